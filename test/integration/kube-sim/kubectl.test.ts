/**
 * Conformance: a real kubectl (the one on PATH, else the 1.32 binary an npm package ships:
 * test/support/kubectl.ts) against the simulator through a written kubeconfig. Note: kubectl sends no credentials over plain HTTP (client-go only attaches them to
 * TLS connections), which the simulator admits for kubectl only (see cluster-api.ts).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeSim } from "../../../local/kube-sim/index.ts";
import { findKubectl } from "../../support/kubectl.ts";
import { startBasic } from "./helpers.ts";

let sim: KubeSim;
let kubectlBinary: string;
let dir: string;
let kubeconfig: string;

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
}

function kubectl(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      kubectlBinary,
      ["--kubeconfig", kubeconfig, "--request-timeout=10s", "--cache-dir", join(dir, "cache"), ...args],
      { encoding: "buffer", timeout: 20_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: stderr.toString("utf8") });
      },
    );
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.toString("utf8");
}

beforeAll(async () => {
  kubectlBinary = (await findKubectl()).path;
  sim = await startBasic();
  dir = await mkdtemp(join(tmpdir(), "kube-sim-kubectl-"));
  kubeconfig = (await sim.writeKubeconfigs(join(dir, "kubeconfigs"))).main as string;
});
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The scenario's own view of a log: the parsed lines of gw-0/gateway. */
function scenarioLines(which: "current" | "previous"): Array<[string, string]> {
  const pod = sim.scenario.clusters[0]?.namespaces[0]?.pods.find((p) => p.name === "gw-0");
  return pod?.containers[0]?.logs[which] ?? [];
}

describe("kubectl against the simulator", () => {
  it("get pods -A lists every Pod of every namespace (json and table)", async () => {
    const json = JSON.parse(await ok("get", "pods", "-A", "-o", "json"));
    const expected = sim.scenario.clusters[0]!.namespaces.flatMap((n) =>
      n.pods.map((p) => `${n.name}/${p.name}`),
    ).sort();
    expect(
      json.items.map(
        (p: { metadata: { namespace: string; name: string } }) =>
          `${p.metadata.namespace}/${p.metadata.name}`,
      ),
    ).toEqual(expected);
    const table = (await ok("get", "pods", "-A")).trimEnd().split("\n");
    expect(table[0]).toMatch(/^NAMESPACE\s+NAME\s/);
    expect(table.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join("/"))).toEqual(expected);
  });

  it("get pods -l selects by label in the context's namespace", async () => {
    const json = JSON.parse(
      await ok(
        "get",
        "pods",
        "-l",
        "openclaw.dev/workload-role=gateway,openclaw.dev/revision=d3",
        "-o",
        "json",
      ),
    );
    expect(
      json.items.map((p: { metadata: { name: string; uid: string } }) => [p.metadata.name, p.metadata.uid]),
    ).toEqual([
      ["gw-0", "uid-gw-0"],
      ["gw-1", "uid-gw-1"],
    ]);
    expect(json.items[0].status.containerStatuses[0]).toMatchObject({
      restartCount: 1,
      lastState: { terminated: { exitCode: 143 } },
    });
    expect(await ok("get", "pods", "-l", "openclaw.dev/workload-role=agent", "-o", "name")).toBe(
      "pod/agent-0\n",
    );
  });

  it("logs --tail --timestamps returns kubelet-formatted lines", async () => {
    const out = await ok("logs", "gw-0", "-c", "gateway", "--tail=3", "--timestamps");
    expect(out).toBe(
      scenarioLines("current")
        .slice(-3)
        .map(([t, l]) => `${t} ${l}\n`)
        .join(""),
    );
  });

  it("logs --since uses the simulator's clock and --limit-bytes cuts mid-line", async () => {
    const since = await ok("logs", "gw-0", "-c", "gateway", "--since=5s", "--timestamps");
    expect(since).toBe(
      scenarioLines("current")
        .filter(([t]) => t >= "2026-11-29T11:59:55.000000000Z")
        .map(([t, l]) => `${t} ${l}\n`)
        .join(""),
    );
    const r = await kubectl(
      "logs",
      "gw-0",
      "-c",
      "gateway",
      "--tail=4",
      "--timestamps",
      "--limit-bytes=45",
      "--since=1h",
    );
    expect(r.code).toBe(0);
    const full = Buffer.from(
      scenarioLines("current")
        .slice(-4)
        .map(([t, l]) => `${t} ${l}\n`)
        .join(""),
    );
    expect(r.stdout.equals(full.subarray(0, 45))).toBe(true);
  });

  it("logs --previous serves the previous instance; a container without one fails like kubelet", async () => {
    expect(await ok("logs", "gw-0", "-c", "gateway", "--previous")).toBe(
      scenarioLines("previous")
        .map(([, l]) => `${l}\n`)
        .join(""),
    );
    const none = await kubectl("logs", "gw-1", "--previous");
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('previous terminated container "gateway" in pod "gw-1" not found');
    const waiting = await kubectl("logs", "pending-0");
    expect(waiting.stderr).toContain(
      'container "gateway" in pod "pending-0" is waiting to start: ContainerCreating',
    );
  });

  it("get events --field-selector involvedObject.uid returns that Pod's Events", async () => {
    const json = JSON.parse(
      await ok("get", "events", "--field-selector", "involvedObject.uid=uid-gw-0", "-o", "json"),
    );
    const expected = sim.scenario.clusters[0]!.namespaces[0]!.events.filter(
      (e) => e.involvedObject.uid === "uid-gw-0",
    );
    expect(
      json.items.map((e: { metadata: { name: string }; reason: string }) => [e.metadata.name, e.reason]),
    ).toEqual(expected.map((e) => [e.name, e.reason]));
    const table = await ok("get", "events", "--field-selector", "involvedObject.uid=uid-gw-1");
    expect(table).toContain("gw-1.e1");
  });

  it("RBAC denials reach kubectl as Forbidden, and auth can-i reads them", async () => {
    const denied = await kubectl("logs", "secret-0", "-n", "restricted");
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/Forbidden|forbidden/);
    const no = await kubectl("auth", "can-i", "get", "pods", "--subresource=log", "-n", "restricted");
    expect(no.stdout.toString().trim()).toBe("no");
    const yes = await kubectl("auth", "can-i", "get", "pods", "--subresource=log", "-n", "tenant-a");
    expect(yes.stdout.toString().trim()).toBe("yes");
  });

  it("is counted in the simulator's stats", async () => {
    sim.resetStats();
    await ok("logs", "gw-0", "-c", "gateway", "--tail=1");
    expect(sim.stats().clusters.main).toMatchObject({ logReads: 1, podGets: 1 });
  });
});
