/** Page assembly and read planning: streams, gaps, no Pod, expiry, cursor targets, stall. */
import { describe, expect, it } from "vitest";
import {
  type BuildLogPageInput,
  buildLogPage,
  type CursorState,
  cursorStream,
  planLogRead,
  REMEDIES,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

const base = (over: Partial<BuildLogPageInput>): BuildLogPageInput => ({
  chunk: null,
  cursor: null,
  expired: false,
  view: { binding: BINDING, tailLines: 200, source: "gateway" },
  deploymentId: "dep-1",
  requestId: "req_00000000-0000-4000-8000-000000000000",
  now: T0 + 10_000,
  keys: { cursor: KEYS, identity: IDENTITY },
  namespaceId: "ns-a",
  ...over,
});

function logWith(uid: string, rc: number, lines: string[]): ModelLog {
  const log = new ModelLog(uid, rc);
  lines.forEach((l, i) => {
    log.append(BigInt(T0 + i * 1000) * 1_000_000n, l);
  });
  return log;
}

const read = (log: ModelLog) => log.read({ tailLines: 200, limitBytes: 1_048_576, nowNs: 0n });

function stateOf(token: string, now: number): CursorState {
  const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
  if (v.status !== "valid") throw new Error("expected a valid cursor");
  return v.state;
}

describe("buildLogPage", () => {
  it("no running Pod: no stream, no cursor, no records", () => {
    const out = buildLogPage(base({}));
    expect(out.page).toMatchObject({
      stream: null,
      cursor: null,
      records: [],
      withheld: 0,
      truncated: false,
    });
    expect(out.cursor).toBeNull();
    expect(JSON.parse(out.body)).toEqual({
      data: out.page,
      meta: { requestId: "req_00000000-0000-4000-8000-000000000000" },
    });
  });

  it("a new restart count in the view: leading stream_replaced, no de-duplication across it", () => {
    const first = logWith("u1", 0, ["INFO a", "INFO b"]);
    const p1 = buildLogPage(base({ chunk: chunkOf(first, read(first), 1_048_576) }));
    const state = stateOf(p1.cursor!, T0 + 11_000);
    expect(cursorStream(state)).toEqual({
      pod: "gateway-0",
      podUid: "u1",
      previous: false,
      restartCount: 0,
      tailLines: 200,
    });
    const plan = planLogRead({
      cursor: state,
      pod: "gateway-0",
      podUid: "u1",
      restartCount: 1,
      previous: false,
      tailLines: 5,
      now: T0,
    });
    expect(plan).toEqual({ tailLines: 200, limitBytes: 1_048_576, resume: false });
    const second = logWith("u1", 1, ["INFO a", "INFO b"]);
    const p2 = buildLogPage(base({ chunk: chunkOf(second, read(second), 1_048_576), cursor: state }));
    expect(p2.page.records[0]).toEqual({
      type: "gap",
      time: "2026-01-15T08:00:00.000000000Z",
      reason: "stream_replaced",
      remedy: REMEDIES.stream_replaced,
    });
    expect(p2.page.records.filter((r) => r.type === "line")).toHaveLength(2);
  });

  it("a replacement seen by the re-read after the log read: trailing gap, cursor bound to the new stream", () => {
    const log = logWith("u1", 0, ["INFO a"]);
    const out = buildLogPage(base({ chunk: chunkOf(log, read(log), 1_048_576, new ModelLog("u2", 0)) }));
    expect(out.page.records.at(-1)).toMatchObject({ type: "gap", reason: "stream_replaced" });
    expect(stateOf(out.cursor!, T0 + 11_000).podUid).toBe("u2");
  });

  it("writes each line record's members in one order: required ones first, then subsystem, fields, truncated", () => {
    const long = "m".repeat(9000);
    const log = logWith("u1", 0, [
      "INFO plain",
      `{"level":"error","message":"${long}","status":500,"subsystem":"gw"}`,
    ]);
    const out = buildLogPage(base({ chunk: chunkOf(log, read(log), 1_048_576) }));
    const lines = out.page.records.filter((r) => r.type === "line");
    expect(lines.map((r) => Object.keys(r))).toEqual([
      ["type", "time", "kind", "level", "message"],
      ["type", "time", "kind", "level", "message", "subsystem", "fields", "truncated"],
    ]);
    expect(out.body).toContain(
      '{"type":"line","time":"2026-01-15T08:00:00.000000000Z","kind":"text","level":"info"',
    );
  });

  it("an expired cursor starts a new view with a leading cursor_expired gap", () => {
    const log = logWith("u1", 0, ["INFO a"]);
    const out = buildLogPage(base({ chunk: chunkOf(log, read(log), 1_048_576), expired: true }));
    expect(out.page.records[0]).toMatchObject({ type: "gap", reason: "cursor_expired", time: null });
  });

  it("a byte-cut read that cannot advance stays while the line is young, then skips with a gap", () => {
    const log = logWith("u1", 0, ["INFO a", `INFO ${"x".repeat(5000)}`]);
    const r = log.read({ tailLines: 200, limitBytes: 200, nowNs: 0n });
    const p1 = buildLogPage(base({ chunk: chunkOf(log, r, 200), now: T0 + 1500 }));
    const state = stateOf(p1.cursor!, T0 + 1500);
    const stay = buildLogPage(base({ chunk: chunkOf(log, r, 200), cursor: state, now: T0 + 2000 }));
    expect(stay.page.truncated).toBe(true);
    expect(stay.page.records).toEqual([
      {
        type: "gap",
        time: "2026-01-15T08:00:01.000000000Z",
        reason: "truncated",
        remedy: REMEDIES.truncated_line,
      },
    ]);
    const skip = buildLogPage(base({ chunk: chunkOf(log, r, 200), cursor: state, now: T0 + 9000 }));
    expect(skip.page.records).toEqual([
      {
        type: "gap",
        time: "2026-01-15T08:00:01.000000000Z",
        reason: "window_exceeded",
        remedy: REMEDIES.window_exceeded_line,
      },
    ]);
    const after = stateOf(skip.cursor!, T0 + 9000);
    expect(after.lastTime).toBeNull();
    expect(
      planLogRead({
        cursor: after,
        pod: "gateway-0",
        podUid: "u1",
        restartCount: 0,
        previous: false,
        tailLines: 1,
        now: T0 + 9000,
      }).sinceTime,
    ).toBe("2026-01-15T08:00:09Z");
  });
});

describe("planLogRead", () => {
  it("a new view reads the query; a resumed one reads from lastTime − 2 s, whole seconds", () => {
    expect(
      planLogRead({
        cursor: null,
        pod: "p",
        podUid: "u",
        restartCount: 0,
        previous: false,
        tailLines: 10,
        sinceSeconds: 30,
        now: T0,
      }),
    ).toEqual({
      tailLines: 10,
      sinceSeconds: 30,
      limitBytes: 1_048_576,
      resume: false,
    });
    const state: CursorState = {
      keyId: "k2",
      // Issued after its last line (a cursor issued before it reads from its issue time instead).
      issuedAt: T0 + 10_000,
      pod: "p",
      podUid: "u",
      container: "c",
      restartCount: 0,
      previous: false,
      tailLines: 50,
      lastTime: "2026-01-15T08:00:05.900Z",
      count: 1,
      complete: true,
      hashes: [],
      pemOpen: false,
      pemFrontier: null,
      future: [],
      anchor: "",
      lastNewAt: T0,
      readAt: T0,
    };
    expect(
      planLogRead({
        cursor: state,
        pod: "p",
        podUid: "u",
        restartCount: 0,
        previous: false,
        tailLines: 10,
        now: T0,
      }),
    ).toEqual({
      // The view's tail (50) bounded only its first page; a cursor poll reads up to 1000 lines.
      tailLines: 1000,
      sinceTime: "2026-01-15T08:00:03Z",
      limitBytes: 1_048_576,
      resume: true,
      // Offered on every resumed read; the caller reads it on an idle poll only.
      probe: { tailLines: 10, limitBytes: 1_048_576 },
    });
    // A view that delivered nothing resumes from its previous read time minus the overlap.
    expect(
      planLogRead({
        cursor: { ...state, issuedAt: T0, lastTime: null, count: 0, complete: false },
        pod: "p",
        podUid: "u",
        restartCount: 0,
        previous: false,
        tailLines: 10,
        now: T0,
      }).sinceTime,
    ).toBe("2026-01-15T07:59:58Z");
  });
});
