/**
 * The read's tail bounds the parsed lines (docs/pipeline.md §5a), and a cursor poll reads up to 1000 lines
 * whatever tail the view started with (§5): a small tail never reports a gap that did not happen.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LogChunk } from "../../../lib/domain.ts";
import {
  buildLogPage,
  type CursorState,
  type LogRecord,
  planLogRead,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { splitChunk } from "../../../lib/runtime-logs/lines.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

/** The reference: split everything, drop the cut partial line, keep the last `max`. */
function reference(text: string, truncated: boolean, max: number): { texts: string[]; capped: boolean } {
  const parts = text.split("\n");
  const last = parts.pop();
  if (last !== undefined && last !== "" && !truncated) parts.push(last);
  const kept = parts.slice(Math.max(0, parts.length - max));
  return { texts: kept, capped: kept.length < parts.length };
}

describe("splitChunk caps to the read's tail", () => {
  it("keeps exactly the last N complete lines, whatever the body", () => {
    const body = fc.array(fc.constantFrom("", "a", "{", ".", "2026-01-15T08:00:00Z x", "\r"), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(
        body,
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 50 }),
        (parts, nl, cut, max) => {
          const text = parts.join("\n") + (nl ? "\n" : "");
          const got = splitChunk(text, cut, max);
          const want = reference(text, cut, max);
          expect(got.lines.map((l) => l.raw)).toEqual(want.texts);
          expect(got.capped).toBe(want.capped);
          if (want.capped) expect(got.returned).toBeGreaterThan(max);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("without a cap splits every line", () => {
    expect(splitChunk("a\n\nb\n", false).lines.map((l) => l.raw)).toEqual(["a", "", "b"]);
  });
});

function hostileChunk(text: string): LogChunk {
  return {
    text,
    truncated: false,
    limitBytes: 1_048_576,
    pod: "gateway-0",
    podUid: "u",
    container: "gateway",
    restartCount: 0,
    previous: false,
    observedAfter: { podUid: "u", restartCount: 0 },
  };
}

describe("a body that ignores tailLines", () => {
  for (const [name, unit] of [
    ["newlines", "\n"],
    ["open braces", "{\n"],
    ["PEM markers", "-----BEGIN PRIVATE KEY-----\n"],
    ["one character", "x\n"],
  ] as const) {
    it(`${name}: a page accounts for at most the asked tail`, () => {
      const text = unit.repeat(Math.floor((256 * 1024) / unit.length));
      const built = buildLogPage({
        chunk: hostileChunk(text),
        cursor: null,
        expired: false,
        view: { binding: BINDING, tailLines: 7, source: "gateway" },
        deploymentId: "dep-1",
        requestId: "req_1",
        now: T0,
        keys: { cursor: KEYS, identity: IDENTITY },
        namespaceId: "ns-a",
      });
      let accounted = 0;
      for (const r of built.page.records) {
        if (r.type === "line") accounted++;
        if (r.type === "withheld") accounted += r.count;
      }
      expect(accounted).toBeLessThanOrEqual(7);
      expect(accounted).toBeGreaterThan(0);
    });
  }
});

describe("follow with a small tail (issue: gaps that did not happen)", () => {
  it("tail 1–3 across contiguous heartbeats reports no window_exceeded", () => {
    for (const tail of [1, 2, 3]) {
      const log = new ModelLog("u", 0);
      let ns = BigInt(T0) * 1_000_000n;
      let token: string | null = null;
      const records: LogRecord[] = [];
      let n = 0;
      for (let poll = 0; poll < 12; poll++) {
        // A burst of heartbeats between polls, one per 200 ms, more than the view's tail.
        for (let i = 0; i < 5 + (poll % 3); i++) {
          ns += 200_000_000n;
          log.append(ns, `INFO heartbeat ${n++}`);
        }
        ns += 100_000_000n;
        const now = Number(ns / 1_000_000n);
        let state: CursorState | null = null;
        if (token !== null) {
          const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
          if (v.status === "valid") state = v.state;
        }
        const plan = planLogRead({
          cursor: state,
          pod: "gateway-0",
          podUid: "u",
          restartCount: 0,
          previous: false,
          tailLines: tail,
          now,
        });
        // A cursor poll reads 1000 lines since its frontier; the view's tail bounds its first page.
        expect(plan.tailLines).toBe(state === null ? tail : 1000);
        const read = log.read({ ...plan, nowNs: ns });
        const built = buildLogPage({
          chunk: chunkOf(log, read, plan.limitBytes),
          cursor: state,
          expired: false,
          view: { binding: BINDING, tailLines: tail, source: "gateway" },
          deploymentId: "dep-1",
          requestId: "req_1",
          now,
          keys: { cursor: KEYS, identity: IDENTITY },
          namespaceId: "ns-a",
        });
        if (state === null) expect(built.page.records).toHaveLength(tail);
        records.push(...built.page.records);
        token = built.cursor;
      }
      expect(records.filter((r) => r.type === "gap")).toEqual([]);
      const shown = records.flatMap((r) => (r.type === "line" ? [r.message] : []));
      // The first page shows the view's tail; every heartbeat after it arrives exactly once.
      const first = Number(/\d+$/.exec(shown[0]!)![0]);
      expect(shown).toEqual(Array.from({ length: n - first }, (_, i) => `INFO heartbeat ${first + i}`));
      expect(shown.length).toBeGreaterThan(50);
    }
  });
});
