import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pseudonymize } from "../../../lib/redact/index.ts";
import { attribute, selectChain, transitionTime } from "../../../lib/restarts/attribute.ts";
import { detectBetween, detectInProcess, detectSingle } from "../../../lib/restarts/detect.ts";
import { attributionDeps } from "../../../lib/restarts/identity.ts";
import { formatRestartLine, readRestartLines } from "../../../lib/restarts/parse.ts";
import type { ObservedTermination, Transition } from "../../../lib/restarts/types.ts";
import { container, event, obs, pod } from "./fixtures.ts";

const KEY = { id: "k1", secret: randomBytes(32) };
const deps = attributionDeps(KEY, "acme");

const term = (over: Partial<ObservedTermination> = {}): ObservedTermination => ({
  exitCode: 143,
  signal: null,
  reason: "Error",
  message: null,
  startedAt: "2026-11-29T11:00:00Z",
  finishedAt: "2026-11-29T11:59:00Z",
  ...over,
});

function restartOf(t: ObservedTermination, events = [event("Pulled")]): Transition {
  const p = pod({ containers: [container({ restartCount: 1, lastTermination: t })], events });
  return detectSingle(obs([p]))[0] as Transition;
}

const lines = (...texts: string[]) => readRestartLines(texts.join("\n"));

function attr(t: Transition, previous: string[] = [], current: string[] = [], d = deps) {
  return attribute(
    {
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d3",
      transition: t,
      previousLines: lines(...previous),
      currentLines: lines(...current),
      restartId: "01JD0000000000000000000000",
      detectedAt: "2026-11-29T12:00:00.000Z",
      detectedBy: "status-read",
    },
    d,
  );
}

const verdict = (r: ReturnType<typeof attr>) => [r.trigger.category, r.trigger.confidence, r.actor.kind];

describe("mapping table, in order of precedence", () => {
  it.each([
    ["slash-command", "operator-restart", "human-operator"],
    ["control-ui", "operator-restart", "human-operator"],
    ["cli", "operator-restart", "human-operator"],
    ["restart-request", "operator-restart", "human-operator"],
    ["gateway-tool", "operator-restart", "agent"],
    ["config-write", "config-write", "agent"],
    ["config-reload", "config-write", "agent"],
    ["update", "gateway-update", "agent"],
    ["gateway-update", "gateway-update", "agent"],
  ])("dispatch source=%s → %s (%s), confirmed", (source, category, actor) => {
    const r = attr(restartOf(term()), [`gateway restart-dispatch source=${source} sender_id=u1 old_pid=7`]);
    expect(verdict(r)).toEqual([category, "confirmed", actor]);
    expect(r.trigger.source).toBe(source);
  });

  it("the agent's dispatch outranks OOM; OOM outranks liveness Events", () => {
    const oom = term({ reason: "OOMKilled", exitCode: 137 });
    expect(verdict(attr(restartOf(oom), ["gateway restart-dispatch source=cli"])).slice(0, 1)).toEqual([
      "operator-restart",
    ]);
    const liveness = [
      event("Unhealthy", { message: "Liveness probe failed: timeout" }),
      event("Killing", { message: "Container gateway failed liveness probe" }),
    ];
    expect(verdict(attr(restartOf(oom, liveness)))).toEqual(["oom", "confirmed", "kubernetes"]);
  });

  it("liveness needs Unhealthy (liveness) then Killing for that container", () => {
    const ordered = [
      event("Unhealthy", { message: "Liveness probe failed", lastObservedAt: "2026-11-29T11:58:00Z" }),
      event("Killing", { lastObservedAt: "2026-11-29T11:58:30Z" }),
    ];
    expect(verdict(attr(restartOf(term(), ordered)))[0]).toBe("liveness-probe");
    const reversed = [
      event("Unhealthy", { message: "Liveness probe failed", lastObservedAt: "2026-11-29T11:58:30Z" }),
      event("Killing", { lastObservedAt: "2026-11-29T11:58:00Z" }),
    ];
    expect(verdict(attr(restartOf(term(), reversed)))[0]).not.toBe("liveness-probe");
    const readiness = [event("Unhealthy", { message: "Readiness probe failed" }), event("Killing")];
    expect(verdict(attr(restartOf(term(), readiness)))[0]).not.toBe("liveness-probe");
    const otherContainer = [
      event("Unhealthy", { message: "Liveness probe failed", container: "sidecar" }),
      event("Killing", { container: "sidecar" }),
    ];
    expect(verdict(attr(restartOf(term(), otherContainer)))[0]).not.toBe("liveness-probe");
    const stale = [
      event("Unhealthy", { message: "Liveness probe failed", lastObservedAt: "2026-11-29T10:00:00Z" }),
      event("Killing", { lastObservedAt: "2026-11-29T10:00:01Z" }),
    ];
    expect(verdict(attr(restartOf(term(), stale)))[0]).not.toBe("liveness-probe");
  });

  it("Evicted / Preempting Events → eviction / preemption", () => {
    expect(verdict(attr(restartOf(term(), [event("Evicted", { container: null })])))).toEqual([
      "eviction",
      "confirmed",
      "kubernetes",
    ]);
    expect(verdict(attr(restartOf(term(), [event("Preempting", { container: null })])))[0]).toBe(
      "preemption",
    );
  });

  it("non-zero exit without a signal, or BackOff → crash (inferred); a signal exit alone → unknown", () => {
    expect(verdict(attr(restartOf(term({ exitCode: 2 }))))).toEqual(["crash", "inferred", "kubernetes"]);
    expect(verdict(attr(restartOf(term({ exitCode: 137 }), [event("BackOff")])))[0]).toBe("crash");
    expect(verdict(attr(restartOf(term({ exitCode: 137, signal: 9 }))))).toEqual([
      "unknown",
      "unknown",
      "external-unknown",
    ]);
    expect(verdict(attr(restartOf(term({ exitCode: 0 }))))[0]).toBe("unknown");
  });

  it("signal-received without a matching dispatch → external; a dispatch of another process does not match", () => {
    const r = attr(restartOf(term()), [
      "gateway restart-signal-received signal=SIGTERM source=slash-command old_pid=7",
    ]);
    expect(verdict(r)).toEqual(["external", "confirmed", "external-unknown"]);
    expect(r.trigger.source).toBe("external");
    const other = attr(restartOf(term()), [
      "gateway restart-dispatch source=cli sender_id=u1 old_pid=5",
      "gateway restart-signal-received signal=SIGTERM source=external old_pid=7",
    ]);
    expect(verdict(other)[0]).toBe("external");
    expect(other.actor.actorRef).toBeNull();
  });

  it("a chain already completed in the previous instance is not evidence for this transition", () => {
    const r = attr(restartOf(term()), [
      "gateway restart-dispatch source=cli old_pid=5",
      "gateway restart-signal-received signal=SIGUSR1 source=cli old_pid=5",
      "gateway restart-completed source=cli old_pid=5 new_pid=6 first_start=false",
    ]);
    expect(verdict(r)[0]).toBe("unknown");
  });

  it("pod replacement: restartedAt change → rollout; otherwise pod-deletion; both inferred", () => {
    const before = obs([pod({ restartedAt: "a" })]);
    const rollout = detectBetween(
      before,
      obs([pod({ uid: "uid-b", name: "gw-1", restartedAt: "b" })]),
    )[0] as Transition;
    expect(verdict(attr(rollout))).toEqual(["rollout", "inferred", "external-unknown"]);
    expect(attr(rollout).evidence.restartedAtAnnotation).toBe(true);
    const same = detectBetween(
      before,
      obs([pod({ uid: "uid-b", name: "gw-1", restartedAt: "a" })]),
    )[0] as Transition;
    expect(verdict(attr(same))).toEqual(["pod-deletion", "inferred", "external-unknown"]);
  });
});

describe("actor and identifiers", () => {
  const dispatch =
    "gateway restart-dispatch source=slash-command sender_id=alice-77 session_key=agent:main:discord:chan:9";

  it("names the actor by keyed pseudonyms, with a coarse channel", () => {
    const r = attr(restartOf(term()), [dispatch]);
    expect(r.actor).toEqual({
      kind: "human-operator",
      actorRef: pseudonymize(KEY, "actor", "acme", "alice-77"),
      sessionRef: pseudonymize(KEY, "session", "acme", "agent:main:discord:chan:9"),
      channel: "discord",
    });
  });

  it("without the identity key the references are withheld (null), never raw", () => {
    const r = attr(restartOf(term()), [dispatch], [], attributionDeps(null, "acme"));
    expect(r.actor).toMatchObject({ actorRef: null, sessionRef: null });
    expect(JSON.stringify(r)).not.toMatch(/alice-77|chan:9/);
  });

  it("property: no raw sender_id or session_key value ever appears in a record", () => {
    const ident = fc.string({
      unit: fc.constantFrom(..."abcdefghXYZ0123456789-_.:@"),
      minLength: 12,
      maxLength: 40,
    });
    const phase = fc.constantFrom("dispatch", "signal-received", "completed");
    const source = fc.constantFrom(
      "slash-command",
      "cli",
      "gateway-tool",
      "config-write",
      "external",
      "update",
      "zzz",
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(phase, source, ident, ident), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (steps, withKey) => {
          const text = steps.map(
            ([p, s, a, b]) => `gateway restart-${p} source=${s} sender_id=${a} session_key=${b}`,
          );
          const r = attr(restartOf(term()), text, text, attributionDeps(withKey ? KEY : null, "acme"));
          const json = JSON.stringify(r);
          for (const [, , a, b] of steps) {
            expect(json).not.toContain(a);
            expect(json).not.toContain(b);
          }
          for (const ref of [r.actor.actorRef, r.actor.sessionRef]) {
            if (ref !== null) expect(ref).toMatch(/^hmac-sha256:v1:k1:[0-9a-f]{64}$/);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("record fields", () => {
  it("redacts and caps the termination message", () => {
    const r = attr(restartOf(term({ message: `token sk-ant-${"a".repeat(40)} ${"x".repeat(2000)}` })));
    expect(r.termination?.message?.length).toBeLessThanOrEqual(512);
    expect(r.termination?.message).not.toContain("sk-ant-aaaa");
  });

  it("uses finishedAt, then the completion time, then the new Pod's creation as the sort time", () => {
    const t = restartOf(term());
    expect(transitionTime(attr(t), t)).toBe("2026-11-29T11:59:00Z");
  });

  it("selectChain takes the boot completion only when it is the new instance's first restart line", () => {
    const t = restartOf(term());
    const chain = selectChain(t, [], lines("gateway restart-completed source=cli old_pid=3 new_pid=1"));
    expect(chain.completed?.oldPid).toBe(3);
    const notFirst = selectChain(
      t,
      [],
      lines(
        "gateway restart-dispatch source=cli",
        "gateway restart-completed source=cli old_pid=3 new_pid=1",
      ),
    );
    expect(notFirst.completed).toBeNull();
  });
});

describe("phases and pseudonyms", () => {
  it("keeps every phase seen, in order, with the actor pseudonymized and the pids of both instances", () => {
    const r = attr(
      restartOf(term()),
      [
        "gateway restart-dispatch source=slash-command sender_id=alice-77 session_key=agent:main:telegram:x old_pid=7",
        "gateway restart-signal-received signal=SIGTERM source=slash-command old_pid=7",
      ],
      ["gateway restart-completed signal=boot source=slash-command old_pid=7 new_pid=1 first_start=false"],
    );
    expect(r.evidence.phases).toEqual(["dispatch", "signal-received", "completed"]);
    expect(r.trigger.source).toBe("slash-command");
    expect(r.actor.actorRef).not.toBeNull();
    expect(JSON.stringify(r)).not.toContain("alice-77");
    expect(JSON.stringify(r)).not.toContain("agent:main:telegram:x");
    expect(r.previous.pid).toBe(7);
    expect(r.next.pid).toBe(1);
  });

  it("has no phase for a record without the agent's lines, and drops a source that is not a code", () => {
    expect(attr(restartOf(term({ reason: "OOMKilled" }))).evidence.phases).toEqual([]);
    const r = attr(restartOf(term()), [`gateway restart-dispatch source=sk-ant-${"a".repeat(40)}`]);
    expect(r.trigger.source).toBeNull();
  });
});

describe("action and method", () => {
  it("keeps the agent's action= and method= (dispatch first)", () => {
    const r = attr(
      restartOf(term()),
      [
        "gateway restart-dispatch source=cli action=restart method=sigusr1 sender_id=u1 old_pid=7",
        "gateway restart-signal-received signal=SIGUSR1 source=cli action=restart old_pid=7",
      ],
      ["gateway restart-completed signal=boot source=cli action=restart old_pid=7 new_pid=9"],
    );
    expect(r.trigger).toMatchObject({ action: "restart", method: "sigusr1" });
    expect(r.previous.pid).toBe(7);
    expect(r.next.pid).toBe(9);
  });

  it("bounds and redacts them like source: anything but a short code is dropped", () => {
    const code = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/);
    const junk = fc.oneof(
      fc.constant(`sk-ant-${"a".repeat(40)}`),
      fc.string({ minLength: 65, maxLength: 70 }).map((s) => `a${s.replace(/\s/g, "x")}`),
      fc.constantFrom("a\u202eb", "<script>", "x;y"),
    );
    fc.assert(
      fc.property(fc.oneof(code, junk), fc.oneof(code, junk), (action, method) => {
        const r = attr(restartOf(term()), [
          `gateway restart-dispatch source=cli action=${action} method=${method}`,
        ]);
        for (const [got, sent] of [
          [r.trigger.action, action],
          [r.trigger.method, method],
        ] as const) {
          if (got !== null) {
            expect(got).toBe(sent);
            expect(got).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/);
            expect(deps.redact(got)).toBe(got);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps equal pids as they came: the -o log printer (cli/format/restarts.ts) drops old_pid then", () => {
    const r = attr(
      restartOf(term()),
      ["gateway restart-signal-received signal=SIGTERM source=external old_pid=1"],
      ["gateway restart-completed signal=boot source=external old_pid=1 new_pid=1"],
    );
    expect(r.previous.pid).toBe(1);
    expect(r.next.pid).toBe(1);
  });
});

describe("evidence", () => {
  it("lists Event reasons of this container and of the Pod only, and none for an in-process restart", () => {
    const events = [
      event("Killing"),
      event("BackOff", { container: "sidecar" }),
      event("Evicted", { container: null }),
    ];
    expect(attr(restartOf(term(), events)).evidence.eventReasons).toEqual(["Evicted", "Killing"]);
    const p = pod({ events });
    const [found] = detectInProcess(
      p,
      container({ startedAt: "2026-11-29T11:00:00Z" }),
      lines(
        "2026-11-29T11:30:00.000000000Z gateway restart-signal-received signal=SIGUSR1 source=external old_pid=5",
        "2026-11-29T11:30:01.000000000Z gateway restart-completed source=external old_pid=5 new_pid=6 first_start=false",
      ),
    );
    const r = attr(
      found!.transition,
      [],
      found!.chain.map((l) => formatRestartLine(l)),
    );
    expect(r.scope).toBe("in-process");
    expect(r.evidence.eventReasons).toEqual([]);
    expect(verdict(r)).toEqual(["external", "confirmed", "external-unknown"]);
  });
});
