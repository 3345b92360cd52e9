/**
 * The health probe's OpenShell check against the simulator through the real driver: one `Health`
 * per gateway that a running deployment's sandbox names, over mTLS, token and plaintext; latency,
 * version and auth in the report; a faulted gateway and one missing from the Registry are failed
 * with a contract code; the figures reach the EMF document with only the `Function` dimension.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentRecord } from "../../../lib/domain.ts";
import { type ProbeDeps, runHealthProbe } from "../../../lib/probe/probe.ts";
import { createProbeMetrics, recordProbeMetrics } from "../../../lib/probe/report.ts";
import { SIM_VERSION } from "../../../local/openshell-sim/server.ts";
import { NOW, type ShellHarness, shellHarness } from "./fixtures.ts";

let h: ShellHarness;
beforeAll(async () => {
  const sandboxes = [{ name: "sb", id: "sbx-1" }];
  h = await shellHarness([
    { id: "os-mtls", sandboxes },
    { id: "os-token", auth: "token", sandboxes },
    { id: "os-plain", auth: "plaintext", sandboxes },
    { id: "os-down", faults: { code: "UNAVAILABLE" }, sandboxes },
  ]);
});
afterAll(() => h?.close());

/** Running Agents whose active deployments name these gateways (one of them twice). */
function deps(gateways: string[]): ProbeDeps {
  const deployments = new Map<string, DeploymentRecord>(
    gateways.map((g, i) => [
      `a${i}`,
      {
        namespaceId: "ns",
        agentId: `a${i}`,
        deploymentId: "d1",
        revision: 1,
        createdAt: new Date(NOW).toISOString(),
        computeDriver: "kubernetes",
        runtimeLogging: "service",
        placement: {},
        sandbox: h.ref(g),
      },
    ]),
  );
  const unused = async (): Promise<never> => {
    throw new Error("not used by this test");
  };
  return {
    registry: {
      listRunningAgents: async () =>
        [...deployments.keys()].map((agentId) => ({ namespaceId: "ns", agentId, activeDeploymentId: "d1" })),
      getDeployment: async (_ns: string, agentId: string) => deployments.get(agentId) ?? null,
    } as unknown as ProbeDeps["registry"],
    // No cluster in this world: the restart check fails on its own; the gateways do not care.
    driver: { observeRuntime: unused, readLog: unused, checkAccess: unused },
    sandbox: h.driver(),
    tables: [],
    keys: unused,
    restarts: {} as ProbeDeps["restarts"],
    observations: {} as ProbeDeps["observations"],
    log: { info: () => {}, warn: () => {} },
    now: Date.now,
  };
}

describe("health probe: OpenShell gateways", () => {
  it("calls Health once per named gateway and reports latency, version and auth", async () => {
    const report = await runHealthProbe(
      deps(["os-token", "os-mtls", "os-plain", "os-mtls", "os-down", "os-ghost"]),
    );
    const g = report.checks.gateways;
    expect(g.gateways.map((x) => x.gatewayId)).toEqual([
      "os-down",
      "os-ghost",
      "os-mtls",
      "os-plain",
      "os-token",
    ]);
    for (const [id, auth] of [
      ["os-mtls", "mtls"],
      ["os-token", "token"],
      ["os-plain", "plaintext"],
    ] as const) {
      expect(g.gateways.find((x) => x.gatewayId === id)).toEqual({
        gatewayId: id,
        status: "ok",
        latencyMs: expect.any(Number),
        serving: "healthy",
        version: SIM_VERSION,
        auth,
      });
    }
    expect(g.gateways.find((x) => x.gatewayId === "os-down")).toMatchObject({
      status: "failed",
      latencyMs: null,
      errorCode: "RUNTIME_LOGS_UNAVAILABLE",
    });
    expect(g.gateways.find((x) => x.gatewayId === "os-ghost")).toMatchObject({ status: "failed" });
    expect(g.status).toBe("degraded");
    expect(h.sim.counts()["os-mtls"]).toEqual({ health: 1, getSandboxLogs: 0 });
    expect(JSON.stringify(report)).not.toContain("simulated");

    const metrics = createProbeMetrics();
    recordProbeMetrics(metrics, report);
    const doc = JSON.parse(JSON.stringify(metrics.serializeMetrics()));
    expect(doc._aws.CloudWatchMetrics[0].Dimensions).toEqual([["Function"]]);
    expect(doc.GatewayFailures).toBe(2);
    expect(doc.GatewayLatencyMs).toBe(Math.max(...g.gateways.flatMap((x) => x.latencyMs ?? [])));
    expect(JSON.parse(doc.gateways)).toContainEqual({
      gatewayId: "os-token",
      latencyMs: expect.any(Number),
      version: SIM_VERSION,
      auth: "token",
    });
  });

  it("is ok with nothing to check when no running deployment names a sandbox", async () => {
    const report = await runHealthProbe({ ...deps([]) });
    expect(report.checks.gateways).toEqual({ status: "ok", gateways: [], partial: false, skipped: 0 });
  });
});
