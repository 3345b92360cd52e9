/**
 * Container restarts recorded by the status read (one observation), on the simulator and dynalite:
 * OOM, liveness failure, the agent's three-phase chain, a raw SIGTERM, a crash, a missing identity
 * key, idempotency, and no raw identifier anywhere.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pseudonymize } from "../../../lib/redact/index.ts";
import { RestartCache, type RestartRecord, recordAndListRestarts } from "../../../lib/restarts/index.ts";
import { GW_UID, gw, type Harness, NS, RAW_SENDER, RAW_SESSION, say, startHarness } from "./harness.ts";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function statusRead(
  options: { identity?: boolean; cache?: RestartCache } = {},
): Promise<RestartRecord[]> {
  const signal = new AbortController().signal;
  const deadline = h.now() + 10_000;
  const runtime = await h.driver.observeRuntime(h.deployment, { events: true, signal, deadline });
  return recordAndListRestarts({
    deployment: h.deployment,
    runtime,
    driver: h.driver,
    store: h.restarts,
    identityKey: options.identity === false ? null : h.identityKey,
    cache: options.cache ?? new RestartCache(),
    now: h.now,
    signal,
    deadline,
    log: { warn: (m, f) => h.logs.push(JSON.stringify({ m, f })) },
  });
}

async function noRawIdentifiers(records: unknown): Promise<void> {
  const everything = [JSON.stringify(records), await h.dump(), ...h.logs].join("\n");
  expect(everything).not.toContain(RAW_SENDER);
  expect(everything).not.toContain(RAW_SESSION);
  expect(everything).not.toContain("8812345");
}

describe("status read records container restarts", () => {
  it("OOM kill: container-restart, oom, confirmed, kubernetes", async () => {
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 137, reason: "OOMKilled" });
    h.sim.advanceClock(2_000);
    const [r, ...rest] = await statusRead();
    expect(rest).toEqual([]);
    expect(r).toMatchObject({
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d3",
      plane: "control",
      pod: "gw-0",
      container: "gateway",
      scope: "container-restart",
      previous: { podUid: GW_UID, container: "gateway", restartCount: 0 },
      next: { podUid: GW_UID, container: "gateway", restartCount: 1 },
      termination: { exitCode: 137, reason: "OOMKilled" },
      trigger: { category: "oom", confidence: "confirmed" },
      actor: { kind: "kubernetes", actorRef: null, sessionRef: null },
      detectedBy: "status-read",
    });
    expect(r?.restartId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r?.previous.finishedAt).toBeTruthy();
  });

  it("liveness failure: Unhealthy then Killing for the container → liveness-probe", async () => {
    h.sim.advanceClock(60_000);
    const involved = { kind: "Pod", name: "gw-0", uid: GW_UID, fieldPath: "spec.containers{gateway}" };
    h.sim.addEvent({
      cluster: "demo",
      namespace: NS,
      event: {
        involvedObject: involved,
        type: "Warning",
        reason: "Unhealthy",
        message: "Liveness probe failed: HTTP probe failed with statuscode: 500",
        count: 3,
      },
    });
    h.sim.advanceClock(1_000);
    h.sim.addEvent({
      cluster: "demo",
      namespace: NS,
      event: {
        involvedObject: involved,
        type: "Normal",
        reason: "Killing",
        message: "Container gateway failed liveness probe, will be restarted",
      },
    });
    h.sim.restart({ ...gw, exitCode: 137, reason: "Error" });
    const [r] = await statusRead();
    expect(r).toMatchObject({
      scope: "container-restart",
      trigger: { category: "liveness-probe", confidence: "confirmed" },
      actor: { kind: "kubernetes" },
    });
    expect(r?.evidence.eventReasons).toEqual(["Killing", "Unhealthy"]);
  });

  it("the agent's three-phase chain with source=slash-command names the operator by pseudonym", async () => {
    h.sim.advanceClock(60_000);
    say(
      h,
      "gw-0",
      `gateway restart-dispatch source=slash-command sender_id=${RAW_SENDER} session_key=${RAW_SESSION} action=restart method=SIGTERM old_pid=1`,
      `gateway restart-signal-received signal=SIGTERM source=slash-command sender_id=${RAW_SENDER} session_key=${RAW_SESSION} action=restart old_pid=1`,
    );
    h.sim.restart({ ...gw, exitCode: 143, reason: "Error" });
    say(
      h,
      "gw-0",
      `gateway restart-completed signal=boot source=slash-command sender_id=${RAW_SENDER} session_key=${RAW_SESSION} action=restart old_pid=1 new_pid=1 first_start=false`,
    );
    const [r] = await statusRead();
    expect(r).toMatchObject({
      scope: "container-restart",
      trigger: { category: "operator-restart", source: "slash-command", confidence: "confirmed" },
      actor: {
        kind: "human-operator",
        actorRef: pseudonymize(h.identityKey, "actor", "acme", RAW_SENDER),
        sessionRef: pseudonymize(h.identityKey, "session", "acme", RAW_SESSION),
        channel: "telegram",
      },
      evidence: { phases: ["dispatch", "signal-received", "completed"] },
      // pid-collision guard: old_pid == new_pid on completed drops old_pid; the dispatch's pid stays.
      previous: { pid: 1 },
      next: { pid: 1 },
    });
    expect(r?.actor.actorRef).toMatch(/^hmac-sha256:v1:idk-1:[0-9a-f]{64}$/);
    await noRawIdentifiers(r);
  });

  it("an in-process restart found in the previous instance's tail is recorded too, with no extra read", async () => {
    h.sim.advanceClock(60_000);
    say(
      h,
      "gw-0",
      `gateway restart-dispatch source=config-write sender_id=${RAW_SENDER} session_key=${RAW_SESSION} action=restart old_pid=1`,
      "gateway restart-signal-received signal=SIGTERM source=external old_pid=1",
      "gateway restart-completed signal=boot source=config-write old_pid=1 new_pid=1 first_start=false",
      "INFO heap usage 97% of limit",
    );
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 137, reason: "OOMKilled" });
    h.sim.resetStats();
    const found = await statusRead();
    expect(h.sim.stats().total.logReads).toBe(2);
    expect(found.map((r) => [r.scope, r.trigger.category, r.next.restartCount])).toEqual([
      ["container-restart", "oom", 1],
      ["in-process", "config-write", 0],
    ]);
    expect(found[1]?.actor).toMatchObject({
      kind: "agent",
      actorRef: expect.stringMatching(/^hmac-sha256:v1:/),
    });
    await noRawIdentifiers(found);
  });

  it("a raw SIGTERM (signal-received without dispatch) is external, confirmed", async () => {
    h.sim.advanceClock(60_000);
    say(h, "gw-0", "gateway restart-signal-received signal=SIGTERM source=external old_pid=1");
    h.sim.restart({ ...gw, exitCode: 143, reason: "Error" });
    const [r] = await statusRead();
    expect(r).toMatchObject({
      trigger: { category: "external", source: "external", confidence: "confirmed" },
      actor: { kind: "external-unknown", actorRef: null, sessionRef: null },
      evidence: { phases: ["signal-received"] },
    });
  });

  it("a non-zero exit without a signal and no other evidence is an inferred crash; exit 143 alone is unknown", async () => {
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 1, reason: "Error" });
    expect((await statusRead())[0]?.trigger).toEqual({
      category: "crash",
      source: null,
      action: null,
      method: null,
      confidence: "inferred",
    });
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 143, reason: "Error" });
    const [newest] = await statusRead();
    expect(newest?.next.restartCount).toBe(2);
    expect(newest?.trigger).toEqual({
      category: "unknown",
      source: null,
      action: null,
      method: null,
      confidence: "unknown",
    });
    expect(newest?.actor.kind).toBe("external-unknown");
  });

  it("a missing identity key fails closed: operator-restart without actorRef or sessionRef, never raw", async () => {
    h.sim.advanceClock(60_000);
    say(
      h,
      "gw-0",
      `gateway restart-dispatch source=cli sender_id=${RAW_SENDER} session_key=${RAW_SESSION} old_pid=1`,
      `gateway restart-signal-received signal=SIGTERM source=cli sender_id=${RAW_SENDER} old_pid=1`,
    );
    h.sim.restart({ ...gw, exitCode: 143, reason: "Error" });
    const [r] = await statusRead({ identity: false });
    expect(r).toMatchObject({
      trigger: { category: "operator-restart", confidence: "confirmed" },
      actor: { kind: "human-operator", actorRef: null, sessionRef: null },
    });
    await noRawIdentifiers(r);
  });

  it("is idempotent: two reads (fresh containers) of the same transition write one item", async () => {
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 137, reason: "OOMKilled" });
    const first = await statusRead();
    h.sim.advanceClock(30_000);
    const second = await statusRead();
    expect(await h.restartItems()).toHaveLength(1);
    expect(second).toEqual(first);
  });

  it("reads at most one previous log and one head per restarted container; a cached transition reads none", async () => {
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 137, reason: "OOMKilled" });
    const cache = new RestartCache();
    h.sim.resetStats();
    await statusRead({ cache });
    expect(h.sim.stats().total.logReads).toBe(2);
    h.sim.resetStats();
    await statusRead({ cache });
    expect(h.sim.stats().total.logReads).toBe(0);
    expect(await h.restartItems()).toHaveLength(1);
  });

  it("lists the newest 20 records, newest first", async () => {
    h.sim.advanceClock(60_000);
    h.sim.restart({ ...gw, exitCode: 1, reason: "Error" });
    const [template] = await statusRead();
    for (let i = 2; i <= 22; i++) {
      const finishedAt = new Date(Date.parse("2026-11-29T12:00:00.000Z") + i * 60_000).toISOString();
      const record = {
        ...(template as RestartRecord),
        restartId: `01JD${String(i).padStart(22, "0")}`,
        previous: { ...(template as RestartRecord).previous, restartCount: i - 1, finishedAt },
        next: { ...(template as RestartRecord).next, restartCount: i },
      };
      expect(await h.restarts.put(record, finishedAt)).toBe("written");
    }
    const records = await statusRead();
    expect(records).toHaveLength(20);
    expect(records.map((r) => r.next.restartCount)).toEqual(Array.from({ length: 20 }, (_, i) => 22 - i));
    expect(await h.restartItems()).toHaveLength(22);
  });
});
