import { afterEach, describe, expect, it } from "vitest";
import type { RolePlacement } from "../../../lib/domain.ts";
import type { ReadLogOptions } from "../../../lib/kube/driver.ts";
import { isPodGone } from "../../../lib/kube/errors.ts";
import type { CallStats } from "../../../lib/kube/types.ts";
import { failure } from "../../support/failure.ts";
import { deployment, type Harness, harness, pod, scenario, uid } from "./fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GW: RolePlacement = { clusterId: "c1", namespace: "tenant-a", plane: "control" };
const D = deployment({ gateway: GW });
const lines = (n: number, from = 100) =>
  Array.from({ length: n }, (_, i) => [`now-${from - i}s`, `INFO line ${i}`] as [string, string]);

function world(containers: Record<string, unknown>[], extraPods: Record<string, unknown>[] = []) {
  return scenario(
    [
      {
        id: "c1",
        namespaces: [{ name: "tenant-a", pods: [pod("gw-0", 1, "gateway", { containers }), ...extraPods] }],
      },
    ],
    { gateway: GW },
  );
}

const read = (over: Partial<ReadLogOptions> = {}): Omit<ReadLogOptions, "signal" | "deadline"> => ({
  role: "gateway",
  pod: "gw-0",
  podUid: uid(1),
  container: "gateway",
  previous: false,
  ...over,
});

describe("readLog", () => {
  it("reads the current log with timestamps, tailLines and sinceTime, and re-reads the Pod", async () => {
    h = await harness(
      world([{ name: "gateway", restartCount: 1, logs: { current: lines(50), previous: [] } }]),
    );
    const stats: CallStats = { clusterCalls: 0 };
    const chunk = await h.driver.readLog(D, {
      ...read({ tailLines: 3, restartCount: 1 }),
      ...h.call({ stats }),
    });
    expect(chunk.text.split("\n")).toEqual([
      "2026-11-29T11:59:07.000000000Z INFO line 47",
      "2026-11-29T11:59:08.000000000Z INFO line 48",
      "2026-11-29T11:59:09.000000000Z INFO line 49",
      "",
    ]);
    expect(chunk).toMatchObject({
      truncated: false,
      limitBytes: 1048576,
      podUid: uid(1),
      restartCount: 1,
      previous: false,
    });
    expect(chunk.observedAfter).toEqual({ podUid: uid(1), restartCount: 1 });
    // The caller listed the Pod already (docs/quality.md P9): no second list, just the log and the re-read.
    expect(stats.clusterCalls).toBe(2);
    const since = await h.driver.readLog(D, { ...read({ sinceTime: "2026-11-29T11:59:08Z" }), ...h.call() });
    expect(since.text.trim().split("\n")).toHaveLength(2);
  });

  it("reads previous logs after a restart; no previous instance is an empty page", async () => {
    h = await harness(world([{ name: "gateway", logs: { current: lines(2), previous: [] } }]));
    const none = await h.driver.readLog(D, { ...read({ previous: true }), ...h.call() });
    expect(none.text).toBe("");
    expect(none.truncated).toBe(false);
    h.sim.restart({
      cluster: "c1",
      namespace: "tenant-a",
      pod: "gw-0",
      container: "gateway",
      exitCode: 137,
      reason: "OOMKilled",
    });
    const prev = await h.driver.readLog(D, { ...read({ previous: true }), ...h.call() });
    expect(prev.text).toContain("INFO line 1");
    expect(prev.restartCount).toBe(1);
    expect(prev.previous).toBe(true);
  });

  it("a never-started container is an empty page, not an error", async () => {
    h = await harness(world([{ name: "gateway", state: { waiting: { reason: "ContainerCreating" } } }]));
    const chunk = await h.driver.readLog(D, { ...read(), ...h.call() });
    expect(chunk.text).toBe("");
  });

  it("a crash-looping container still serves its logs", async () => {
    h = await harness(
      world([
        {
          name: "gateway",
          state: { waiting: { reason: "CrashLoopBackOff" } },
          restartCount: 4,
          lastState: { terminated: { exitCode: 1, reason: "Error" } },
          logs: { current: [], previous: lines(3) },
        },
      ]),
    );
    const prev = await h.driver.readLog(D, { ...read({ previous: true }), ...h.call() });
    expect(prev.text.trim().split("\n")).toHaveLength(3);
    expect(prev.restartCount).toBe(4);
  });

  it("cuts at limitBytes and says so", async () => {
    h = await harness(world([{ name: "gateway", logs: { current: lines(40), previous: [] } }]));
    const chunk = await h.driver.readLog(D, { ...read({ limitBytes: 100 }), ...h.call() });
    expect(Buffer.byteLength(chunk.text)).toBe(100);
    expect(chunk.truncated).toBe(true);
    expect(chunk.limitBytes).toBe(100);
    const whole = await h.driver.readLog(D, { ...read({ limitBytes: 1_048_576 }), ...h.call() });
    expect(whole.truncated).toBe(false);
  });

  it("reports a Pod replaced during the read in observedAfter, and a gone Pod as PodGoneError", async () => {
    h = await harness(world([{ name: "gateway", logs: { current: lines(3), previous: [] } }]));
    const sim = h.sim;
    // The second cluster call is the re-read: change the Pod right before it is sent.
    const beforeCall = (n: number, change: () => void): CallStats => {
      let calls = 0;
      return {
        get clusterCalls() {
          return calls;
        },
        set clusterCalls(v: number) {
          calls = v;
          if (v === n) change();
        },
      };
    };
    const at = { cluster: "c1", namespace: "tenant-a", pod: "gw-0" };
    const restarting = beforeCall(2, () =>
      sim.restart({ ...at, container: "gateway", exitCode: 1, reason: "Error" }),
    );
    const restarted = await h.driver.readLog(D, {
      ...read({ restartCount: 0 }),
      ...h.call({ stats: restarting }),
    });
    expect(restarted.restartCount).toBe(0);
    expect(restarted.observedAfter).toEqual({ podUid: uid(1), restartCount: 1 });

    const replacing = beforeCall(2, () => sim.replacePod({ ...at, newName: "gw-1", newUid: uid(9) }));
    const replaced = await h.driver.readLog(D, { ...read(), ...h.call({ stats: replacing }) });
    expect(replaced.observedAfter).toBeNull();

    const gone = await failure(h.driver.readLog(D, { ...read(), ...h.call() }));
    expect(isPodGone(gone)).toBe(true);
    expect(gone.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("reads the listed Pod only: another UID shows as a replacement, an undeclared container fails", async () => {
    h = await harness(world([{ name: "gateway", logs: { current: lines(2), previous: [] } }]));
    const stale = await h.driver.readLog(D, { ...read({ podUid: uid(7) }), ...h.call() });
    expect(stale.podUid).toBe(uid(7));
    expect(stale.observedAfter).toEqual({ podUid: uid(1), restartCount: 0 });
    expect((await failure(h.driver.readLog(D, { ...read({ container: "other" }), ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    expect((await failure(h.driver.readLog(D, { ...read({ pod: "../x" }), ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_POD_INVALID",
    );
  });

  it("on previous=true only the kubelet's exact 'no previous instance' 400 is an empty page", async () => {
    h = await harness(world([{ name: "gateway", logs: { current: lines(2), previous: [] } }]));
    expect((await h.driver.readLog(D, { ...read({ previous: true }), ...h.call() })).text).toBe("");
    // The kubelet's 400 for a container the Pod does not declare is a failure, previous or not.
    const other = await failure(
      h.driver.readLog(D, { ...read({ previous: true, container: "other" }), ...h.call() }),
    );
    expect(other.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("maps a 403 on pods/log to RUNTIME_LOGS_CLUSTER_RBAC", async () => {
    h = await harness(
      scenario(
        [
          {
            id: "c1",
            rbac: { deny: [{ namespace: "tenant-a", resource: "pods/log" }] },
            namespaces: [{ name: "tenant-a", pods: [pod("gw-0", 1, "gateway")] }],
          },
        ],
        { gateway: GW },
      ),
    );
    expect((await failure(h.driver.readLog(D, { ...read(), ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_CLUSTER_RBAC",
    );
  });
});
