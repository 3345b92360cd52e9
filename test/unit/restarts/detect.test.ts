import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectBetween, detectInProcess, detectSingle, instanceKey } from "../../../lib/restarts/detect.ts";
import { readRestartLines } from "../../../lib/restarts/parse.ts";
import { container, obs, pod } from "./fixtures.ts";

const oom = {
  exitCode: 137,
  signal: null,
  reason: "OOMKilled",
  message: null,
  startedAt: "2026-11-29T11:00:00Z",
  finishedAt: "2026-11-29T11:59:00Z",
};

describe("detectSingle", () => {
  it("records a container restart visible in one observation", () => {
    const p = pod({
      containers: [container({ restartCount: 3, lastTermination: oom, startedAt: "2026-11-29T11:59:05Z" })],
    });
    const [t, ...rest] = detectSingle(obs([p]));
    expect(rest).toEqual([]);
    expect(t?.scope).toBe("container-restart");
    expect(instanceKey(t!.previous)).toBe("uid-a:gateway:2");
    expect(instanceKey(t!.next)).toBe("uid-a:gateway:3");
    expect(t?.previous.finishedAt).toBe(oom.finishedAt);
    expect(t?.next.startedAt).toBe("2026-11-29T11:59:05Z");
  });

  it("needs lastState.terminated and a count above zero", () => {
    expect(detectSingle(obs([pod({ containers: [container({ restartCount: 2 })] })]))).toEqual([]);
    expect(detectSingle(obs([pod({ containers: [container({ lastTermination: oom })] })]))).toEqual([]);
  });
});

describe("detectBetween", () => {
  it("a count that went up is a container restart, an unchanged one is not re-detected", () => {
    const before = obs([pod({ containers: [container({ restartCount: 1, lastTermination: oom })] })]);
    const same = obs([pod({ containers: [container({ restartCount: 1, lastTermination: oom })] })]);
    const after = obs([pod({ containers: [container({ restartCount: 2, lastTermination: oom })] })]);
    expect(detectBetween(before, same)).toEqual([]);
    expect(detectBetween(before, after).map((t) => [t.scope, instanceKey(t.next)])).toEqual([
      ["container-restart", "uid-a:gateway:2"],
    ]);
  });

  it("without a previous observation it is the single-observation rule", () => {
    const now = obs([pod({ containers: [container({ restartCount: 1, lastTermination: oom })] })]);
    expect(detectBetween(null, now)).toEqual(detectSingle(now));
  });

  it("a vanished Pod and a new UID of the same role are a replacement; other roles are not paired", () => {
    const before = obs([pod(), pod({ role: "agent", name: "h-0", uid: "uid-h" })]);
    const after = obs([
      pod({ name: "gw-1", uid: "uid-b", createdAt: "2026-11-29T12:01:00Z" }),
      pod({ role: "agent", name: "h-0", uid: "uid-h" }),
    ]);
    const ts = detectBetween(before, after);
    expect(ts).toHaveLength(1);
    expect(ts[0]).toMatchObject({
      scope: "pod-replacement",
      role: "gateway",
      previous: { pod: "gw-0", podUid: "uid-a", restartCount: 0 },
      next: { pod: "gw-1", podUid: "uid-b", restartCount: 0 },
    });
  });

  it("an evicted Pod still listed as Failed pairs with its replacement, once", () => {
    const before = obs([pod()]);
    const after = obs([
      pod({ phase: "Failed", statusReason: "Evicted" }),
      pod({ name: "gw-1", uid: "uid-b" }),
    ]);
    const ts = detectBetween(before, after);
    expect(ts.map((t) => t.scope)).toEqual(["pod-replacement"]);
    expect(ts[0]?.previousPod?.statusReason).toBe("Evicted");
    expect(detectBetween(after, after)).toEqual([]);
  });

  it("a scale-up (new Pod, nothing gone) is not a restart", () => {
    expect(detectBetween(obs([pod()]), obs([pod(), pod({ name: "gw-1", uid: "uid-b" })]))).toEqual([]);
  });

  it("property: detection is a function of the two observations and never invents UIDs", () => {
    const podArb = fc.record({
      uid: fc.constantFrom("u1", "u2", "u3", "u4"),
      role: fc.constantFrom("gateway" as const, "agent" as const),
      restartCount: fc.nat({ max: 3 }),
      terminated: fc.boolean(),
    });
    const obsArb = fc.uniqueArray(podArb, { selector: (p) => p.uid, maxLength: 4 }).map((ps) =>
      obs(
        ps.map((p) =>
          pod({
            uid: p.uid,
            name: `p-${p.uid}`,
            role: p.role,
            containers: [
              container({ restartCount: p.restartCount, lastTermination: p.terminated ? oom : null }),
            ],
          }),
        ),
      ),
    );
    fc.assert(
      fc.property(obsArb, obsArb, (a, b) => {
        const ts = detectBetween(a, b);
        const uids = new Set([...a.pods, ...b.pods].map((p) => p.uid));
        for (const t of ts) {
          expect(uids.has(t.previous.podUid) && uids.has(t.next.podUid)).toBe(true);
          expect(b.pods.some((p) => p.uid === t.next.podUid)).toBe(true);
        }
        const keys = ts.map((t) => `${t.scope}|${instanceKey(t.next)}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(detectBetween(b, b)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("detectInProcess", () => {
  const p = pod();
  const c = container({ startedAt: "2026-11-29T11:00:00Z" });

  it("a chain inside the same instance is an in-process restart", () => {
    const lines = readRestartLines(
      [
        "2026-11-29T11:00:01.000000000Z gateway restart-completed signal=boot source=external new_pid=1 first_start=true",
        "2026-11-29T11:30:00.000000000Z gateway restart-dispatch source=cli sender_id=u1 old_pid=10",
        "2026-11-29T11:30:00.500000000Z gateway restart-signal-received signal=SIGUSR1 source=cli old_pid=10",
        "2026-11-29T11:30:01.000000000Z gateway restart-completed signal=SIGUSR1 source=cli old_pid=10 new_pid=11 first_start=false",
      ].join("\n"),
    );
    const found = detectInProcess(p, c, lines);
    expect(found).toHaveLength(1);
    expect(found[0]?.transition).toMatchObject({
      scope: "in-process",
      previous: { podUid: "uid-a", restartCount: 0, finishedAt: "2026-11-29T11:30:00.500000000Z" },
      next: { podUid: "uid-a", restartCount: 0, startedAt: "2026-11-29T11:30:01.000000000Z" },
    });
    expect(found[0]?.chain.map((l) => l.phase)).toEqual(["dispatch", "signal-received", "completed"]);
  });

  it("a completion with a new pid well after start is in-process even without the chain lines", () => {
    const lines = readRestartLines(
      "2026-11-29T11:45:00.000000000Z gateway restart-completed signal=SIGUSR1 source=external old_pid=10 new_pid=11 first_start=false",
    );
    expect(detectInProcess(p, c, lines)).toHaveLength(1);
  });

  it("the instance's own boot line is not in-process", () => {
    const lines = readRestartLines(
      "2026-11-29T11:00:02.000000000Z gateway restart-completed signal=boot source=cli old_pid=7 new_pid=1 first_start=false",
    );
    expect(detectInProcess(p, c, lines)).toEqual([]);
  });
});
