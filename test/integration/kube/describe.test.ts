import { afterEach, describe, expect, it } from "vitest";
import type { RolePlacement } from "../../../lib/domain.ts";
import type { CallStats } from "../../../lib/kube/types.ts";
import { failure } from "../../support/failure.ts";
import { deployment, type Harness, harness, labels, pod, scenario, uid } from "./fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GW: RolePlacement = { clusterId: "c1", namespace: "tenant-a", plane: "control" };
const AG: RolePlacement = { clusterId: "c1", namespace: "tenant-a", plane: "execution" };

const ev = (n: number, podUid: string, extra: Record<string, unknown> = {}) => ({
  name: `e-${String(n).padStart(4, "0")}`,
  involvedObject: { kind: "Pod", name: "gw-0", uid: podUid, fieldPath: "spec.containers{gateway}" },
  type: "Normal",
  reason: "Pulled",
  message: `event ${n}`,
  lastTimestamp: `now-${1000 - n}s`,
  ...extra,
});

describe("describeRuntime (single cluster)", () => {
  it("describes Pods, containers, readiness, terminations and sources", async () => {
    h = await harness(
      scenario(
        [
          {
            id: "c1",
            namespaces: [
              {
                name: "tenant-a",
                pods: [
                  pod("gw-0", 1, "gateway", {
                    createdAt: "now-2h",
                    containers: [
                      {
                        name: "init-config",
                        init: true,
                        state: { terminated: { exitCode: 0, reason: "Completed" } },
                      },
                      {
                        name: "gateway",
                        restartCount: 2,
                        lastState: {
                          terminated: {
                            exitCode: 143,
                            signal: 15,
                            reason: "Error",
                            startedAt: "now-90m",
                            finishedAt: "now-60m",
                          },
                        },
                      },
                      { name: "sidecar" },
                    ],
                  }),
                  pod("gw-crash", 2, "gateway", {
                    createdAt: "now-1h",
                    containers: [
                      {
                        name: "gateway",
                        state: { waiting: { reason: "CrashLoopBackOff" } },
                        restartCount: 7,
                        lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: "now-30s" } },
                      },
                    ],
                  }),
                  pod("gw-new", 3, "gateway", {
                    createdAt: "now-5s",
                    phase: "Pending",
                    containers: [{ name: "gateway", state: { waiting: { reason: "ContainerCreating" } } }],
                  }),
                  pod("gw-old-deleting", 4, "gateway", { createdAt: "now-1m", deletionTimestamp: "now-10s" }),
                  // Another deployment's Pod: not selected.
                  { ...pod("gw-other", 5, "gateway"), labels: labels("gateway", "d2") },
                ],
              },
            ],
          },
        ],
        { gateway: GW },
      ),
    );
    const d = deployment(
      { gateway: GW },
      { sandbox: { driver: "openshell", endpointRef: "x", sandboxName: "s", workspace: "w" } },
    );
    const out = await h.driver.observeRuntime(d, { events: false, ...h.call() });
    const desc = out.description;
    expect(desc.deploymentId).toBe("d3");
    expect(desc.pods.map((p) => p.name)).toEqual(["gw-new", "gw-crash", "gw-0"]);
    const [fresh, crash, gw0] = desc.pods;
    expect(fresh?.phase).toBe("Pending");
    expect(fresh?.ready).toBe(false);
    expect(fresh?.containers[0]).toMatchObject({
      state: "waiting",
      reason: "ContainerCreating",
      startedAt: null,
    });
    expect(crash?.containers[0]).toMatchObject({
      state: "waiting",
      reason: "CrashLoopBackOff",
      restartCount: 7,
      lastTermination: { exitCode: 1, reason: "Error", signal: null },
    });
    expect(gw0?.ready).toBe(true);
    expect(gw0?.cluster).toBe("control");
    expect(gw0?.createdAt).toMatch(/^2026-11-29T10:00:00Z$/);
    expect(gw0?.containers.map((c) => [c.name, c.init, c.state])).toEqual([
      ["init-config", true, "terminated"],
      ["gateway", false, "running"],
      ["sidecar", false, "running"],
    ]);
    expect(gw0?.containers[1]?.lastTermination).toEqual({
      reason: "Error",
      exitCode: 143,
      signal: 15,
      finishedAt: "2026-11-29T11:00:00Z",
    });
    expect(desc.sources).toEqual([
      {
        id: "gateway",
        kind: "container",
        pods: [
          { name: "gw-new", uid: uid(3), container: "gateway", restartCount: 0 },
          { name: "gw-crash", uid: uid(2), container: "gateway", restartCount: 7 },
          { name: "gw-0", uid: uid(1), container: "gateway", restartCount: 2 },
        ],
        available: true,
        retention: expect.any(String),
      },
      { id: "sandbox", kind: "sandbox", pods: [], available: true, retention: expect.any(String) },
    ]);
    const obs = out.observations.find((o) => o.name === "gw-0");
    expect(obs?.containers[1]?.lastTerminated).toMatchObject({
      exitCode: 143,
      signal: 15,
      startedAt: "2026-11-29T10:30:00Z",
    });
    expect(obs?.clusterId).toBe("c1");
  });

  it("keeps the 8 newest Pods (ties by name) and reports NO_POD for an empty role", async () => {
    const pods = Array.from({ length: 12 }, (_, i) =>
      pod(`gw-${String(i).padStart(2, "0")}`, 10 + i, "gateway", {
        createdAt: i < 4 ? "now-1m" : `now-${i}h`,
      }),
    );
    h = await harness(
      scenario([{ id: "c1", namespaces: [{ name: "tenant-a", pods }] }], { gateway: GW, agent: AG }),
    );
    const desc = await h.driver.describeRuntime(deployment({ gateway: GW, agent: AG }), {
      events: false,
      ...h.call(),
    });
    expect(desc.pods.map((p) => p.name)).toEqual([
      "gw-00",
      "gw-01",
      "gw-02",
      "gw-03",
      "gw-04",
      "gw-05",
      "gw-06",
      "gw-07",
    ]);
    expect(desc.sources.find((s) => s.id === "agent")).toMatchObject({
      available: false,
      unavailableCode: "NO_POD",
      pods: [],
    });
  });

  it("refuses a role with more than 16 Pods (a list that needs continuation)", async () => {
    const pods = Array.from({ length: 17 }, (_, i) => pod(`gw-${i}`, 100 + i, "gateway"));
    h = await harness(scenario([{ id: "c1", namespaces: [{ name: "tenant-a", pods }] }], { gateway: GW }));
    const e = await failure(
      h.driver.describeRuntime(deployment({ gateway: GW }), { events: false, ...h.call() }),
    );
    expect(e.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });
});

describe("describeRuntime (two clusters)", () => {
  it("reads gateways from the control cluster and Harness Pods from the execution cluster", async () => {
    const ctl: RolePlacement = { clusterId: "control", namespace: "ctl-acme", plane: "control" };
    const exe: RolePlacement = { clusterId: "exec", namespace: "tenant-a", plane: "execution" };
    h = await harness(
      scenario(
        [
          { id: "control", namespaces: [{ name: "ctl-acme", pods: [pod("gw-0", 1, "gateway")] }] },
          {
            id: "exec",
            namespaces: [
              { name: "tenant-a", pods: [pod("harness-0", 2, "agent"), pod("harness-1", 3, "agent")] },
            ],
          },
        ],
        { gateway: ctl, agent: exe },
      ),
    );
    const stats: CallStats = { clusterCalls: 0 };
    const desc = await h.driver.describeRuntime(deployment({ gateway: ctl, agent: exe }), {
      events: true,
      ...h.call({ stats }),
    });
    expect(desc.pods.map((p) => [p.role, p.cluster, p.name])).toEqual([
      ["gateway", "control", "gw-0"],
      ["agent", "execution", "harness-0"],
      ["agent", "execution", "harness-1"],
    ]);
    expect(desc.sources.map((s) => [s.id, s.pods.map((p) => `${p.name}/${p.container}`)])).toEqual([
      ["gateway", ["gw-0/gateway"]],
      ["agent", ["harness-0/harness", "harness-1/harness"]],
      ["sandbox", []],
    ]);
    // No sandbox named: listed, not available, NOT_CONFIGURED (and no call made for it).
    expect(desc.sources.at(-1)).toMatchObject({ available: false, unavailableCode: "NOT_CONFIGURED" });
    // 2 Pod lists + 3 Event lists.
    expect(stats.clusterCalls).toBe(5);
    const onlyAgent = await h.driver.describeRuntime(deployment({ gateway: ctl, agent: exe }), {
      roles: ["agent"],
      events: false,
      ...h.call(),
    });
    expect(onlyAgent.pods.every((p) => p.role === "agent")).toBe(true);
    expect(onlyAgent.sources.map((s) => s.id)).toEqual(["agent"]);
  });
});

describe("Events", () => {
  it("follows continue tokens across pages and keeps the newest 100, filtered and redacted", async () => {
    const u = uid(1);
    const events = [
      ...Array.from({ length: 250 }, (_, i) => ev(i, u)),
      ev(900, u, { type: "Custom", lastTimestamp: "now-1s" }),
      ev(901, u, {
        reason: "FailedScheduling",
        type: "Warning",
        message:
          'running PreBind plugin "VolumeBinding": Operation cannot be fulfilled on persistentvolumeclaims "data": the object has been modified; please apply your changes to the latest version and try again',
        lastTimestamp: "now-2s",
        involvedObject: { kind: "Pod", name: "gw-0", uid: u },
      }),
      ev(902, u, {
        type: "Warning",
        reason: "BackOff",
        message: "Back-off pulling image; token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked",
        series: { count: 5, lastObservedTime: "now-0.5s" },
        lastTimestamp: "now-900s",
      }),
      ev(903, uid(2), { lastTimestamp: "now-0s" }),
    ];
    h = await harness(
      scenario(
        [{ id: "c1", namespaces: [{ name: "tenant-a", pods: [pod("gw-0", 1, "gateway")], events }] }],
        { gateway: GW },
      ),
    );
    const stats: CallStats = { clusterCalls: 0 };
    const desc = await h.driver.describeRuntime(deployment({ gateway: GW }), {
      events: true,
      ...h.call({ stats }),
    });
    const got = desc.pods[0]?.events ?? [];
    expect(stats.clusterCalls).toBe(1 + 3); // 253 Events of this Pod: 3 pages of 100
    expect(got).toHaveLength(100);
    expect(got[0]).toMatchObject({
      type: "Warning",
      reason: "BackOff",
      count: 5,
      lastObservedAt: "2026-11-29T11:59:59.500000Z",
    });
    expect(got[0]?.message).not.toContain("ghp_");
    expect(got[0]?.message).toContain("[redacted:");
    expect(got[1]).toMatchObject({ message: "event 249", container: "gateway" });
    expect(got[99]?.message).toBe("event 151");
    expect(got.some((e) => e.reason === "FailedScheduling" || e.message === "event 900")).toBe(false);
    const times = got.map((e) => e.lastObservedAt ?? "");
    expect([...times].sort().reverse()).toEqual(times);
  });

  it("keeps FailedScheduling while the Pod has no node", async () => {
    const u = uid(1);
    const events = [
      ev(1, u, {
        reason: "FailedScheduling",
        type: "Warning",
        message:
          'Operation cannot be fulfilled on persistentvolumeclaims "data": the object has been modified',
      }),
    ];
    const p = pod("gw-0", 1, "gateway", {
      phase: "Pending",
      containers: [{ name: "gateway", state: { waiting: { reason: "Pending" } } }],
    });
    delete (p as { nodeName?: string }).nodeName;
    h = await harness(
      scenario([{ id: "c1", namespaces: [{ name: "tenant-a", pods: [p], events }] }], { gateway: GW }),
    );
    const desc = await h.driver.describeRuntime(deployment({ gateway: GW }), { events: true, ...h.call() });
    expect(desc.pods[0]?.events.map((e) => e.reason)).toEqual(["FailedScheduling"]);
  });
});

describe("errors", () => {
  const one = (extra: Record<string, unknown> = {}) =>
    scenario(
      [{ id: "c1", namespaces: [{ name: "tenant-a", pods: [pod("gw-0", 1, "gateway")] }], ...extra }],
      { gateway: GW },
    );

  it.each([
    ["pods", false],
    ["events", true],
  ])("maps a 403 on %s to RUNTIME_LOGS_CLUSTER_RBAC", async (resource, events) => {
    h = await harness(one({ rbac: { deny: [{ namespace: "tenant-a", resource }] } }));
    const e = await failure(h.driver.describeRuntime(deployment({ gateway: GW }), { events, ...h.call() }));
    expect(e.code).toBe("RUNTIME_LOGS_CLUSTER_RBAC");
    expect(e.message).toContain("cluster c1");
  });

  it("reports per-check access with the exact verb and resource", async () => {
    h = await harness(one({ rbac: { deny: [{ namespace: "tenant-a", resource: "pods/log" }] } }));
    const report = await h.driver.checkAccess("c1", "tenant-a", h.call());
    expect(report.version.ok).toBe(true);
    expect(report.checks).toEqual([
      { verb: "list", resource: "pods", allowed: true },
      { verb: "get", resource: "pods/log", allowed: false },
      { verb: "list", resource: "events", allowed: true },
    ]);
  });

  it("latency past the per-call timeout is UNAVAILABLE, past the request deadline TIMEOUT", async () => {
    h = await harness(one({ faults: { latencyMs: 400 } }), { callTimeoutMs: 50 });
    const d = deployment({ gateway: GW });
    const started = Date.now();
    expect((await failure(h.driver.describeRuntime(d, { events: false, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    expect(Date.now() - started).toBeLessThan(350);
    const nearDeadline = h.call({ deadline: Date.now() + 20 });
    expect((await failure(h.driver.describeRuntime(d, { events: false, ...nearDeadline }))).code).toBe(
      "RUNTIME_LOGS_TIMEOUT",
    );
    const aborted = new AbortController();
    setTimeout(() => aborted.abort(), 10);
    const e = await failure(
      h.driver.describeRuntime(d, { events: false, ...h.call({ signal: aborted.signal }) }),
    );
    expect(e.code).toBe("RUNTIME_LOGS_TIMEOUT");
  });

  it("500s and an unreachable cluster are UNAVAILABLE; an unregistered cluster too", async () => {
    h = await harness(one({ faults: { status: 500 } }));
    const d = deployment({ gateway: GW });
    expect((await failure(h.driver.describeRuntime(d, { events: false, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    h.sim.setFault({ cluster: "c1", status: null, unreachable: true });
    expect((await failure(h.driver.describeRuntime(d, { events: false, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    const ghost = deployment({ gateway: { ...GW, clusterId: "nowhere" } });
    expect((await failure(h.driver.describeRuntime(ghost, { events: false, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
  });
});
