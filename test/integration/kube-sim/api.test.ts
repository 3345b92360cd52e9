/** Lists, paging, selectors, objects, Status errors, auth and RBAC over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeSim } from "../../../local/kube-sim/index.ts";
import { mainGet, request, startBasic } from "./helpers.ts";

let sim: KubeSim;
beforeAll(async () => {
  sim = await startBasic();
});
afterAll(async () => {
  await sim.close();
});

const PODS = "/api/v1/namespaces/tenant-a/pods";
const EVENTS = "/api/v1/namespaces/tenant-a/events";

describe("Pod lists", () => {
  it("returns a real PodList with resourceVersion and Pods sorted by name", async () => {
    const r = await mainGet(sim, PODS);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: "PodList", apiVersion: "v1" });
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.json.metadata.continue).toBeUndefined();
    expect(r.json.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual([
      "agent-0",
      "gw-0",
      "gw-1",
      "pending-0",
    ]);
  });

  it("serializes Pods like the API server", async () => {
    const r = await mainGet(sim, `${PODS}/gw-0`);
    expect(r.status).toBe(200);
    const pod = r.json;
    expect(pod).toMatchObject({
      kind: "Pod",
      apiVersion: "v1",
      metadata: {
        name: "gw-0",
        namespace: "tenant-a",
        uid: "uid-gw-0",
        creationTimestamp: "2026-11-29T10:00:00Z",
        labels: { "openclaw.dev/workload-role": "gateway" },
      },
      spec: { nodeName: "node-1", containers: [{ name: "gateway", image: "registry.example/gw:1.2" }] },
      status: { phase: "Running", startTime: "2026-11-29T10:00:00Z" },
    });
    expect(pod.status.conditions).toContainEqual(expect.objectContaining({ type: "Ready", status: "True" }));
    const cs = pod.status.containerStatuses[0];
    expect(cs).toMatchObject({
      name: "gateway",
      ready: true,
      restartCount: 1,
      image: "registry.example/gw:1.2",
      state: { running: { startedAt: "2026-11-29T11:00:00Z" } },
      lastState: {
        terminated: {
          exitCode: 143,
          signal: 15,
          reason: "Error",
          startedAt: "2026-11-29T10:00:00Z",
          finishedAt: "2026-11-29T11:00:00Z",
        },
      },
    });
    expect(cs.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(cs.lastState.terminated.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(cs.lastState.terminated.containerID).not.toBe(cs.containerID);

    const agent = (await mainGet(sim, `${PODS}/agent-0`)).json;
    expect(agent.spec.initContainers.map((c: { name: string }) => c.name)).toEqual(["init-workspace"]);
    expect(agent.status.initContainerStatuses[0].state.terminated).toMatchObject({
      exitCode: 0,
      reason: "Completed",
    });
    expect(agent.spec.containers.map((c: { name: string }) => c.name)).toEqual(["harness", "sidecar"]);

    const pending = (await mainGet(sim, `${PODS}/pending-0`)).json;
    expect(pending.status.phase).toBe("Pending");
    expect(pending.status.containerStatuses[0]).toMatchObject({
      ready: false,
      state: { waiting: { reason: "ContainerCreating" } },
    });
    expect(pending.status.containerStatuses[0].containerID).toBeUndefined();
    expect(pending.status.conditions).toContainEqual(
      expect.objectContaining({ type: "Ready", status: "False" }),
    );
  });

  it("filters by label selectors (=, ==, !=, exists, in, comma-joined)", async () => {
    const names = async (sel: string) =>
      (await mainGet(sim, `${PODS}?labelSelector=${encodeURIComponent(sel)}`)).json.items.map(
        (p: { metadata: { name: string } }) => p.metadata.name,
      );
    expect(await names("openclaw.dev/workload-role=gateway")).toEqual(["gw-0", "gw-1", "pending-0"]);
    expect(await names("openclaw.dev/workload-role==gateway,openclaw.dev/revision=d3")).toEqual([
      "gw-0",
      "gw-1",
    ]);
    expect(await names("openclaw.dev/revision!=d3")).toEqual(["pending-0"]);
    expect(await names("openclaw.dev/revision in (d4, d9)")).toEqual(["pending-0"]);
    expect(await names("!openclaw.dev/agent")).toEqual([]);
    expect(await names("openclaw.dev/agent=nobody")).toEqual([]);
    const bad = await mainGet(sim, `${PODS}?labelSelector=${encodeURIComponent("a=b=c")}`);
    expect(bad.status).toBe(400);
    expect(bad.json.kind).toBe("Status");
  });

  it("pages with limit and continue, and rejects bogus or foreign continue tokens", async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const q = new URLSearchParams({ limit: "3" });
      if (token) q.set("continue", token);
      const r = await mainGet(sim, `/api/v1/pods?${q}`);
      expect(r.status).toBe(200);
      expect(r.json.items.length).toBeLessThanOrEqual(3);
      seen.push(
        ...r.json.items.map(
          (p: { metadata: { namespace: string; name: string } }) =>
            `${p.metadata.namespace}/${p.metadata.name}`,
        ),
      );
      token = r.json.metadata.continue;
      if (token) expect(r.json.metadata.remainingItemCount).toBeGreaterThan(0);
      pages++;
    } while (token);
    expect(pages).toBe(2);
    expect(seen).toEqual([
      "restricted/secret-0",
      "tenant-a/agent-0",
      "tenant-a/gw-0",
      "tenant-a/gw-1",
      "tenant-a/pending-0",
    ]);

    const first = await mainGet(sim, `${PODS}?limit=1&labelSelector=openclaw.dev%2Fworkload-role%3Dgateway`);
    expect(first.json.items).toHaveLength(1);
    expect(first.json.metadata.remainingItemCount).toBeUndefined();
    const cont = first.json.metadata.continue as string;
    const second = await mainGet(
      sim,
      `${PODS}?limit=1&labelSelector=openclaw.dev%2Fworkload-role%3Dgateway&continue=${cont}`,
    );
    expect(second.json.items[0].metadata.name).toBe("gw-1");

    for (const bogus of [
      "not-a-token",
      "!!!",
      Buffer.from('{"v":1,"s":"pods|tenant-a","k":"x","rv":1,"h":"0"}').toString("base64url"),
    ]) {
      const r = await mainGet(sim, `${PODS}?limit=1&continue=${encodeURIComponent(bogus)}`);
      expect(r.status, bogus).toBe(400);
      expect(r.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    }
    const foreign = await mainGet(sim, `${EVENTS}?limit=1&continue=${cont}`);
    expect(foreign.status).toBe(400);
  });

  it("ignores limit=0 and unknown query parameters", async () => {
    const r = await mainGet(
      sim,
      `${PODS}?limit=0&pretty=true&timeoutSeconds=5&resourceVersion=0&allowWatchBookmarks=true`,
    );
    expect(r.status).toBe(200);
    expect(r.json.items).toHaveLength(4);
    expect((await mainGet(sim, `${PODS}?limit=ten`)).status).toBe(400);
  });

  it("lists an unknown namespace as empty and 404s an unknown Pod", async () => {
    expect((await mainGet(sim, "/api/v1/namespaces/nowhere/pods")).json.items).toEqual([]);
    const r = await mainGet(sim, `${PODS}/ghost`);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "NotFound",
      message: 'pods "ghost" not found',
    });
  });
});

describe("Events", () => {
  it("filters by involvedObject.uid and serializes core/v1 Events", async () => {
    const r = await mainGet(
      sim,
      `${EVENTS}?fieldSelector=${encodeURIComponent("involvedObject.uid=uid-gw-0")}`,
    );
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe("EventList");
    expect(r.json.items.map((e: { metadata: { name: string } }) => e.metadata.name)).toEqual([
      "gw-0.e1",
      "gw-0.e2",
      "gw-0.e3",
    ]);
    const [killing, started, unhealthy] = r.json.items;
    expect(killing).toMatchObject({
      involvedObject: {
        kind: "Pod",
        name: "gw-0",
        uid: "uid-gw-0",
        namespace: "tenant-a",
        fieldPath: "spec.containers{gateway}",
      },
      type: "Normal",
      reason: "Killing",
      count: 1,
      lastTimestamp: "2026-11-29T11:00:00Z",
      firstTimestamp: "2026-11-29T11:00:00Z",
      eventTime: null,
      source: { component: "kubelet" },
    });
    expect(started).toMatchObject({
      count: 2,
      firstTimestamp: "2026-11-29T10:00:00Z",
      lastTimestamp: "2026-11-29T11:00:01Z",
    });
    expect(unhealthy).toMatchObject({
      type: "Warning",
      eventTime: "2026-11-29T10:59:00.123456Z",
      firstTimestamp: null,
      lastTimestamp: null,
      series: { count: 3, lastObservedTime: "2026-11-29T10:59:30.500000Z" },
    });
    expect(unhealthy.involvedObject.fieldPath).toBeUndefined();
  });

  it("supports several field selector forms and rejects unknown fields", async () => {
    const count = async (sel: string) =>
      (await mainGet(sim, `${EVENTS}?fieldSelector=${encodeURIComponent(sel)}`)).json.items.length;
    expect(await count("involvedObject.uid==uid-gw-0,type=Warning")).toBe(1);
    expect(await count("involvedObject.uid!=uid-gw-0")).toBe(1);
    expect(await count("involvedObject.kind=Pod,involvedObject.name=gw-1")).toBe(1);
    const bad = await mainGet(sim, `${EVENTS}?fieldSelector=${encodeURIComponent("spec.bogus=1")}`);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("field label not supported");
  });

  it("pages events with limit/continue, also across all namespaces", async () => {
    const sel = encodeURIComponent("involvedObject.uid=uid-gw-0");
    const a = await mainGet(sim, `${EVENTS}?fieldSelector=${sel}&limit=2`);
    expect(a.json.items).toHaveLength(2);
    const b = await mainGet(
      sim,
      `${EVENTS}?fieldSelector=${sel}&limit=2&continue=${a.json.metadata.continue}`,
    );
    expect(b.json.items.map((e: { metadata: { name: string } }) => e.metadata.name)).toEqual(["gw-0.e3"]);
    expect(b.json.metadata.continue).toBeUndefined();
    const all = await mainGet(sim, "/api/v1/events");
    expect(all.json.items).toHaveLength(4);
    const one = await mainGet(sim, `${EVENTS}/gw-1.e1`);
    expect(one.json).toMatchObject({
      kind: "Event",
      reason: "Scheduled",
      source: { component: "default-scheduler" },
    });
  });
});

describe("discovery", () => {
  it("serves version, APIVersions, APIGroupList and resource lists", async () => {
    expect((await mainGet(sim, "/version")).json).toMatchObject({
      major: "1",
      gitVersion: expect.stringMatching(/^v1\./),
    });
    expect((await mainGet(sim, "/api?timeout=32s")).json).toMatchObject({
      kind: "APIVersions",
      versions: ["v1"],
    });
    expect((await mainGet(sim, "/apis")).json.kind).toBe("APIGroupList");
    const core = (await mainGet(sim, "/api/v1")).json;
    expect(core.kind).toBe("APIResourceList");
    expect(core.resources.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(["pods", "pods/log", "events"]),
    );
    expect((await mainGet(sim, "/apis/authorization.k8s.io/v1")).json.resources[0].name).toBe(
      "selfsubjectaccessreviews",
    );
    const unknown = await mainGet(sim, "/apis/apps/v1/deployments");
    expect(unknown.status).toBe(404);
    expect(unknown.json.kind).toBe("Status");
  });
});

describe("authentication and RBAC", () => {
  it("answers 401 Status on a missing or wrong token, and for another cluster's token", async () => {
    for (const token of [null, "wrong", "other-token"]) {
      const r = await mainGet(sim, PODS, token);
      expect(r.status).toBe(401);
      expect(r.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    }
    const other = await request(`${sim.clusterUrl("other")}/api/v1/namespaces/default/pods`, {
      token: "other-token",
    });
    expect(other.status).toBe(200);
  });

  it("answers 403 per resource from the scenario's denials, everything else allowed", async () => {
    const log = await mainGet(sim, "/api/v1/namespaces/restricted/pods/secret-0/log");
    expect(log.status).toBe(403);
    expect(log.json).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      code: 403,
      details: { name: "secret-0", kind: "pods" },
    });
    expect(log.json.message).toContain('cannot get resource "pods/log"');
    expect((await mainGet(sim, "/api/v1/namespaces/restricted/pods/secret-0")).status).toBe(200);
    expect((await mainGet(sim, "/api/v1/namespaces/restricted/pods")).status).toBe(200);
    expect((await mainGet(sim, `${PODS}/gw-0/log`)).status).toBe(200);
  });

  it("answers SelfSubjectAccessReviews from the denials", async () => {
    const review = (namespace: string, resource: string, subresource?: string) =>
      request(`${sim.clusterUrl("main")}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        token: "main-token",
        headers: { "content-type": "application/json" },
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: {
            resourceAttributes: { namespace, verb: "get", resource, ...(subresource ? { subresource } : {}) },
          },
        },
      });
    const denied = await review("restricted", "pods", "log");
    expect(denied.status).toBe(201);
    expect(denied.json).toMatchObject({ kind: "SelfSubjectAccessReview", status: { allowed: false } });
    expect((await review("tenant-a", "pods", "log")).json.status.allowed).toBe(true);
    expect((await review("restricted", "pods")).json.status.allowed).toBe(true);
    const get = await mainGet(sim, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
    expect(get.status).toBe(405);
  });

  it("counts requests by kind per cluster", async () => {
    sim.resetStats();
    await mainGet(sim, PODS);
    await mainGet(sim, `${PODS}/gw-0`);
    await mainGet(sim, `${PODS}/gw-0/log`);
    await mainGet(sim, `${PODS}/gw-0/log`);
    await mainGet(sim, EVENTS);
    const s = sim.stats();
    expect(s.clusters.main).toMatchObject({
      podLists: 1,
      podGets: 1,
      logReads: 2,
      eventLists: 1,
      ssar: 0,
      requests: 5,
    });
    expect(s.total.logReads).toBe(2);
    const http = await request(`${sim.url}/__sim/stats`);
    expect(http.json.total.logReads).toBe(2);
    await request(`${sim.url}/__sim/stats/reset`, { method: "POST" });
    expect(sim.stats().total.requests).toBe(0);
  });
});
