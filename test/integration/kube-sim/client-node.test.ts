/**
 * The real @kubernetes/client-node (what the KubeDriver uses) against the simulator through a
 * written kubeconfig: typed list/get calls, paging, events, and a raw authenticated log GET.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeSim } from "../../../local/kube-sim/index.ts";
import { startBasic } from "./helpers.ts";

let sim: KubeSim;
let dir: string;
let kc: KubeConfig;
let api: CoreV1Api;

beforeAll(async () => {
  sim = await startBasic();
  dir = await mkdtemp(join(tmpdir(), "kube-sim-client-"));
  const paths = await sim.writeKubeconfigs(dir);
  kc = new KubeConfig();
  kc.loadFromFile(paths.main as string);
  api = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("client-node against the simulator", () => {
  it("reads the written kubeconfig: server, token, namespace, insecure-skip-tls-verify", () => {
    const cluster = kc.getCurrentCluster();
    expect(cluster?.server).toBe(sim.clusterUrl("main"));
    expect(cluster?.skipTLSVerify).toBe(true);
    expect(kc.getCurrentUser()?.token).toBe("main-token");
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe("tenant-a");
  });

  it("lists Pods by label with limit and follows continue tokens", async () => {
    const labelSelector = "openclaw.dev/agent=support,openclaw.dev/workload-role=gateway";
    const first = await api.listNamespacedPod({ namespace: "tenant-a", labelSelector, limit: 2 });
    expect(first.items.map((p) => p.metadata?.name)).toEqual(["gw-0", "gw-1"]);
    expect(first.metadata?._continue).toBeTruthy();
    const rest = await api.listNamespacedPod({
      namespace: "tenant-a",
      labelSelector,
      limit: 2,
      _continue: first.metadata?._continue ?? "",
    });
    expect(rest.items.map((p) => p.metadata?.name)).toEqual(["pending-0"]);
    const pod = first.items[0]!;
    expect(pod.metadata?.creationTimestamp).toEqual(new Date("2026-11-29T10:00:00Z"));
    expect(pod.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(143);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("reads a Pod and lists its Events by involvedObject.uid", async () => {
    const pod = await api.readNamespacedPod({ namespace: "tenant-a", name: "gw-0" });
    expect(pod.metadata?.uid).toBe("uid-gw-0");
    const events = await api.listNamespacedEvent({
      namespace: "tenant-a",
      fieldSelector: "involvedObject.uid=uid-gw-0",
      limit: 100,
    });
    expect(events.items.map((e) => e.reason)).toEqual(["Killing", "Started", "Unhealthy"]);
    expect(events.items[2]?.series?.count).toBe(3);
  });

  it("surfaces 404 and 403 Status objects as ApiException with their code", async () => {
    await expect(api.readNamespacedPod({ namespace: "tenant-a", name: "ghost" })).rejects.toMatchObject({
      code: 404,
    });
    const denied = await api
      .readNamespacedPodLog({ namespace: "restricted", name: "secret-0", container: "main" })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(denied).toBeInstanceOf(ApiException);
    expect((denied as ApiException<unknown>).code).toBe(403);
  });

  it("serves a raw authenticated log GET built with applyToFetchOptions, incl. sinceTime", async () => {
    const opts = await kc.applyToFetchOptions({});
    const url = `${sim.clusterUrl("main")}/api/v1/namespaces/tenant-a/pods/gw-0/log?container=gateway&timestamps=true&sinceTime=${encodeURIComponent("2026-11-29T11:59:56Z")}&limitBytes=1048576`;
    const res = await fetch(url, { headers: opts.headers as Record<string, string> });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(
      "2026-11-29T11:59:56.123456789Z line 4\n2026-11-29T11:59:58.000000000Z line 5\n",
    );
    const bad = await fetch(
      `${sim.clusterUrl("main")}/api/v1/namespaces/tenant-a/pods/gw-1/log?previous=true`,
      {
        headers: opts.headers as Record<string, string>,
      },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain("previous terminated container");
  });

  it("gets 401 with another cluster's token", async () => {
    const other = new KubeConfig();
    other.loadFromString(sim.kubeconfigYaml("main").replace('token: "main-token"', 'token: "other-token"'));
    await expect(
      other.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "tenant-a" }),
    ).rejects.toMatchObject({ code: 401 });
  });
});
