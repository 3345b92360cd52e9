/**
 * The health probe on the simulator and dynalite: Pod replacements (rollout, eviction, plain
 * deletion) need two observations; in-process restarts come from the agent's lines alone; the probe
 * and a status read of the same transition write one item; a missing RBAC permission is named.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runHealthProbe } from "../../../lib/probe/probe.ts";
import { RestartCache, recordAndListRestarts } from "../../../lib/restarts/index.ts";
import type { RestartRecord } from "../../../lib/restarts/types.ts";
import {
  GW_UID,
  gatewayPod,
  gw,
  type Harness,
  NOW,
  NS,
  RAW_SENDER,
  RAW_SESSION,
  type ScenarioOptions,
  say,
  scenario,
  startHarness,
} from "./harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NEW_UID = "6f1c0000-0000-4000-a000-000000000002";
const LATER = "2026-11-29T12:05:00.000Z";

async function start(options: ScenarioOptions = {}): Promise<Harness> {
  h = await startHarness(options);
  return h;
}

async function records(harness: Harness): Promise<RestartRecord[]> {
  return harness.restarts.list("acme", "support", "d3");
}

/** Replaces the cluster state (the registry in DynamoDB stays). */
function reload(harness: Harness, options: ScenarioOptions): void {
  harness.sim.loadScenario(scenario({ now: LATER, ...options }));
}

describe("health probe: pod replacements", () => {
  it("first run records nothing and stores the observation; a second run detects the replacement", async () => {
    const harness = await start();
    const first = await runHealthProbe(harness.probeDeps());
    expect(first.checks.restarts).toMatchObject({
      status: "ok",
      deployments: 1,
      observed: 1,
      transitions: 0,
    });
    expect(await harness.observations.get("acme", "support", "d3")).not.toBeNull();
    expect(await records(harness)).toEqual([]);

    harness.sim.advanceClock(60_000);
    harness.sim.replacePod({ cluster: "demo", namespace: NS, pod: "gw-0", newName: "gw-1", newUid: NEW_UID });
    const second = await runHealthProbe(harness.probeDeps());
    expect(second.checks.restarts).toMatchObject({ recorded: 1, deferred: 0 });
    const [r, ...rest] = await records(harness);
    expect(rest).toEqual([]);
    expect(r).toMatchObject({
      scope: "pod-replacement",
      pod: "gw-1",
      previous: { pod: "gw-0", podUid: GW_UID, restartCount: 0 },
      next: { pod: "gw-1", podUid: NEW_UID, restartCount: 0 },
      trigger: { category: "pod-deletion", confidence: "inferred" },
      actor: { kind: "external-unknown", actorRef: null },
      evidence: { restartedAtAnnotation: false },
      detectedBy: "health-probe",
    });

    // A third run sees nothing new.
    const third = await runHealthProbe(harness.probeDeps());
    expect(third.checks.restarts).toMatchObject({ transitions: 0, recorded: 0 });
    expect(await harness.restartItems()).toHaveLength(1);
  });

  it("kubectl rollout restart: a new UID with a changed restartedAt annotation → rollout, inferred", async () => {
    const annotation = "kubectl.kubernetes.io/restartedAt";
    const harness = await start({ annotations: { [annotation]: "2026-11-01T10:00:00Z" } });
    await runHealthProbe(harness.probeDeps());
    reload(harness, { pods: [gatewayPod("gw-1", NEW_UID, { [annotation]: "2026-11-29T12:04:00Z" })] });
    await runHealthProbe(harness.probeDeps());
    const [r] = await records(harness);
    expect(r).toMatchObject({
      scope: "pod-replacement",
      trigger: { category: "rollout", confidence: "inferred" },
      actor: { kind: "external-unknown" },
      evidence: { restartedAtAnnotation: true },
    });
  });

  it("eviction: the old Pod's Evicted Event → eviction, confirmed, kubernetes", async () => {
    const harness = await start();
    await runHealthProbe(harness.probeDeps());
    // The kubelet evicts: the old Pod stays listed as Failed with an Evicted Event; a new Pod runs.
    reload(harness, {
      pods: [
        gatewayPod("gw-0", GW_UID, {}, { createdAt: "now-1h", phase: "Failed" }),
        gatewayPod("gw-1", NEW_UID),
      ],
      events: [
        {
          involvedObject: { kind: "Pod", name: "gw-0", uid: GW_UID },
          type: "Warning",
          reason: "Evicted",
          message: "The node was low on resource: memory.",
        },
      ],
    });
    const report = await runHealthProbe(harness.probeDeps());
    expect(report.checks.restarts.recorded).toBe(1);
    const [r] = await records(harness);
    expect(r).toMatchObject({
      scope: "pod-replacement",
      previous: { podUid: GW_UID },
      next: { podUid: NEW_UID },
      trigger: { category: "eviction", confidence: "confirmed" },
      actor: { kind: "kubernetes" },
    });
    expect(r?.evidence.eventReasons).toContain("Evicted");
  });
});

describe("health probe: restarts the agent reports", () => {
  it("an in-process restart (lines only) is recorded once, with its pids and pseudonyms", async () => {
    const harness = await start();
    await runHealthProbe(harness.probeDeps());
    harness.sim.advanceClock(120_000);
    say(
      harness,
      "gw-0",
      `gateway restart-dispatch source=config-write sender_id=${RAW_SENDER} session_key=${RAW_SESSION} action=reload old_pid=41`,
      "gateway restart-signal-received signal=SIGUSR1 source=config-write old_pid=41",
      "gateway restart-completed signal=SIGUSR1 source=config-write old_pid=41 new_pid=57 first_start=false",
    );
    await runHealthProbe(harness.probeDeps());
    await runHealthProbe(harness.probeDeps());
    const all = await records(harness);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      scope: "in-process",
      previous: { podUid: GW_UID, restartCount: 0, pid: 41 },
      next: { podUid: GW_UID, restartCount: 0, pid: 57 },
      trigger: { category: "config-write", source: "config-write", confidence: "confirmed" },
      actor: { kind: "agent" },
      evidence: { phases: ["dispatch", "signal-received", "completed"] },
    });
    expect(all[0]?.actor.actorRef).toMatch(/^hmac-sha256:v1:idk-1:[0-9a-f]{64}$/);
    const everything = [JSON.stringify(all), await harness.dump(), ...harness.logs].join("\n");
    expect(everything).not.toContain(RAW_SENDER);
    expect(everything).not.toContain(RAW_SESSION);
  });

  it("the probe and a status read observing the same container restart write one item", async () => {
    const harness = await start();
    await runHealthProbe(harness.probeDeps());
    harness.sim.advanceClock(60_000);
    harness.sim.restart({ ...gw, exitCode: 137, reason: "OOMKilled" });
    const probe = await runHealthProbe(harness.probeDeps());
    expect(probe.checks.restarts.recorded).toBe(1);

    const signal = new AbortController().signal;
    const deadline = harness.now() + 10_000;
    const runtime = await harness.driver.observeRuntime(harness.deployment, {
      events: true,
      signal,
      deadline,
    });
    const listed = await recordAndListRestarts({
      deployment: harness.deployment,
      runtime,
      driver: harness.driver,
      store: harness.restarts,
      identityKey: harness.identityKey,
      cache: new RestartCache(),
      now: harness.now,
      signal,
      deadline,
    });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ detectedBy: "health-probe", trigger: { category: "oom" } });
    expect(await harness.restartItems()).toHaveLength(1);
  });
});

describe("health probe: report", () => {
  it("names the exact verb and resource of a missing RBAC permission", async () => {
    const harness = await start({ rbacDeny: [{ namespace: NS, resource: "pods/log" }] });
    const report = await runHealthProbe(harness.probeDeps());
    const cluster = report.checks.clusters.clusters[0];
    expect(cluster).toMatchObject({ clusterId: "demo", status: "failed", versionOk: true });
    expect(cluster?.latencyMs).toEqual(expect.any(Number));
    expect(cluster?.namespaces).toEqual([
      {
        namespace: NS,
        status: "failed",
        missing: ["get pods/log"],
        permissions: [
          { verb: "list", resource: "pods", allowed: true },
          { verb: "get", resource: "pods/log", allowed: false },
          { verb: "list", resource: "events", allowed: true },
        ],
      },
    ]);
    expect(report.checks.clusters.status).toBe("failed");
    expect(report.status).toBe("failed");
  });

  it("a healthy cluster is ok with a latency figure; stores and keys are checked", async () => {
    const harness = await start();
    const report = await runHealthProbe(harness.probeDeps());
    expect(report.checks.clusters).toMatchObject({ status: "ok", partial: false, skipped: 0 });
    expect(report.checks.clusters.clusters[0]?.namespaces[0]?.missing).toEqual([]);
    expect(report.checks.stores.keys.status).toBe("ok");
    const broken = await runHealthProbe(
      harness.probeDeps({
        keys: async () => {
          throw new Error("no key");
        },
      }),
    );
    expect(broken.checks.stores).toMatchObject({ status: "failed", keys: { status: "failed" } });
    expect(broken.status).toBe("failed");
    // Stale keys served because their refresh fails: requests go on, the probe says so.
    const good = harness.probeDeps().keys;
    const stale = await runHealthProbe(
      harness.probeDeps({ keys: Object.assign(() => good(), { refreshFailing: () => true }) }),
    );
    expect(stale.checks.stores).toMatchObject({
      status: "degraded",
      keys: { status: "degraded", errorCode: "KEY_REFRESH_FAILING" },
    });
  });

  it("a spent time budget marks the result partial instead of silently skipping", async () => {
    const harness = await start();
    let calls = 0;
    // A clock that jumps past the budget right after the probe starts.
    const now = () => harness.now() + (calls++ > 0 ? 3_600_000 : 0);
    const report = await runHealthProbe(harness.probeDeps({ now }), { budgetMs: 1_000 });
    expect(report.partial).toBe(true);
    expect(report.checks.restarts).toMatchObject({ partial: true, skipped: 1, observed: 0 });
    expect(report.checks.clusters).toMatchObject({ partial: true, skipped: 1 });
    expect(report.status).not.toBe("ok");
  });
});

describe("scenario time anchor", () => {
  it("NOW is the simulator's start", async () => {
    const harness = await start();
    expect(harness.sim.now().toISOString()).toBe(NOW);
  });
});
