/**
 * Honest remedies (docs/pipeline.md §5): each gap names the cause that happened, never another. Every
 * cause is produced here from the situation it describes, and the sentence must be that cause's.
 */
import { describe, expect, it } from "vitest";
import { gap, REMEDY_REASON, type RemedyId } from "../../../lib/runtime-logs/gaps.ts";
import {
  type BuildLogPageInput,
  buildLogPage,
  type CursorState,
  type LogRecord,
  REMEDIES,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, IDENTITY, KEYS, ModelLog, T0 } from "./harness.ts";

const NS = 1_000_000n;
const at = (ms: number) => BigInt(T0 + ms) * NS;

function input(over: Partial<BuildLogPageInput>): BuildLogPageInput {
  return {
    chunk: null,
    cursor: null,
    expired: false,
    view: { binding: BINDING, tailLines: 1000, source: "gateway" },
    deploymentId: "dep-1",
    requestId: "req_1",
    now: T0 + 10_000,
    keys: { cursor: KEYS, identity: IDENTITY },
    namespaceId: "ns-a",
    ...over,
  };
}

function stateOf(token: string, now: number): CursorState {
  const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
  if (v.status !== "valid") throw new Error("expected a valid cursor");
  return v.state;
}

/** The remedy ids of the page's gaps, in order. */
function causes(records: LogRecord[]): RemedyId[] {
  const byText = new Map(Object.entries(REMEDIES).map(([id, text]) => [text as string, id as RemedyId]));
  return records.flatMap((r) => (r.type === "gap" ? [byText.get(r.remedy)!] : []));
}

function follow(log: ModelLog, now: number, tail = 1000) {
  const read = log.read({ tailLines: tail, limitBytes: 1_048_576, nowNs: BigInt(now) * NS });
  return buildLogPage(
    input({
      chunk: chunkOf(log, read, 1_048_576),
      now,
      view: { binding: BINDING, tailLines: tail, source: "gateway" },
    }),
  );
}

describe("a remedy names what happened", () => {
  it("the container restarted vs. the Pod was replaced, before or during the read", () => {
    const log = new ModelLog("u1", 0);
    log.append(at(0), "INFO one");
    const first = follow(log, T0 + 1000);
    const state = stateOf(first.cursor!, T0 + 1000);
    const restarted = new ModelLog("u1", 1);
    restarted.append(at(2000), "INFO two");
    const r = restarted.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
    const p1 = buildLogPage(input({ chunk: chunkOf(restarted, r, 1_048_576), cursor: state }));
    expect(causes(p1.page.records)).toEqual(["stream_replaced"]);
    const replaced = new ModelLog("u2", 0);
    replaced.append(at(2000), "INFO two");
    const r2 = replaced.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
    const p2 = buildLogPage(input({ chunk: chunkOf(replaced, r2, 1_048_576), cursor: state }));
    expect(causes(p2.page.records)).toEqual(["stream_replaced_pod"]);
    // During the read: the re-read sees a restart, or the Pod gone.
    const r3 = log.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
    const during = buildLogPage(input({ chunk: chunkOf(log, r3, 1_048_576, new ModelLog("u1", 1)) }));
    expect(causes(during.page.records)).toEqual(["stream_replaced"]);
    const gone = buildLogPage(input({ chunk: chunkOf(log, r3, 1_048_576, null) }));
    expect(causes(gone.page.records)).toEqual(["stream_replaced_pod"]);
  });

  it("a burst larger than one read vs. a resume point that cannot be matched", () => {
    const log = new ModelLog("u1", 0);
    log.append(at(0), "INFO first");
    const state = stateOf(follow(log, T0 + 500).cursor!, T0 + 500);
    for (let i = 0; i < 1200; i++) log.append(at(1000 + i), `INFO burst ${i}`);
    const full = log.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
    const burst = buildLogPage(input({ chunk: chunkOf(log, full, 1_048_576), cursor: state }));
    expect(causes(burst.page.records)).toEqual(["window_exceeded"]);
    // Not a full read: the frontier's lines are there but none matches what the cursor remembers.
    const other = new ModelLog("u1", 0);
    other.append(at(0), "INFO not the first");
    other.append(at(10), "INFO next");
    const r = other.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
    const unmatched = buildLogPage(
      input({ chunk: chunkOf(other, r, 1_048_576), cursor: { ...state, complete: false } }),
    );
    expect(causes(unmatched.page.records)).toEqual(["window_exceeded_resume"]);
  });

  it("a stalled read: an oversized line vs. a read filled by lines already shown", () => {
    // One short line, then a huge one the read cuts.
    const big = new ModelLog("u1", 0);
    big.append(at(0), "INFO short");
    big.append(at(100), `INFO ${"x".repeat(5000)}`);
    const cut = (log: ModelLog) => log.read({ tailLines: 1000, limitBytes: 600, nowNs: 0n });
    const s1 = stateOf(
      buildLogPage(input({ chunk: chunkOf(big, cut(big), 600), now: T0 + 200 })).cursor!,
      T0 + 200,
    );
    const young = buildLogPage(input({ chunk: chunkOf(big, cut(big), 600), cursor: s1, now: T0 + 1000 }));
    expect(causes(young.page.records)).toEqual(["truncated_line"]);
    const old = buildLogPage(input({ chunk: chunkOf(big, cut(big), 600), cursor: s1, now: T0 + 9000 }));
    expect(causes(old.page.records)).toEqual(["window_exceeded_line"]);
    // Many shown lines at the resume point fill the read; the next line is small.
    const busy = new ModelLog("u1", 0);
    for (let i = 0; i < 40; i++) busy.append(at(0), `INFO same instant ${i}`);
    busy.append(at(100), "INFO small");
    const s2 = stateOf(
      buildLogPage(
        input({
          chunk: chunkOf(busy, busy.read({ tailLines: 40, limitBytes: 1_048_576, nowNs: 0n }), 1_048_576),
          now: T0 + 50,
        }),
      ).cursor!,
      T0 + 50,
    );
    const filled = (now: number) =>
      buildLogPage(input({ chunk: chunkOf(busy, cut(busy), 600), cursor: s2, now }));
    expect(causes(filled(T0 + 1000).page.records)).toEqual(["truncated_resume"]);
    expect(causes(filled(T0 + 9000).page.records)).toEqual(["window_exceeded_resume"]);
  });

  it("the page budget and an expired cursor", () => {
    const log = new ModelLog("u1", 0);
    for (let i = 0; i < 200; i++) log.append(at(i), `INFO line ${i} ${"y".repeat(100)}`);
    const r = log.read({ tailLines: 1000, limitBytes: 1_048_576, nowNs: 0n });
    const cut = buildLogPage(input({ chunk: chunkOf(log, r, 1_048_576), maxBytes: 8_000 }));
    expect(causes(cut.page.records)).toEqual(["truncated"]);
    const expired = buildLogPage(input({ chunk: chunkOf(log, r, 1_048_576), expired: true }));
    expect(causes(expired.page.records)).toEqual(["cursor_expired"]);
  });

  it("every remedy belongs to exactly one reason, and a mismatched pairing is refused", () => {
    for (const [id, reason] of Object.entries(REMEDY_REASON)) {
      expect(gap(reason, null, id as RemedyId).remedy).toBe(REMEDIES[id as RemedyId]);
      for (const other of new Set(Object.values(REMEDY_REASON))) {
        if (other !== reason) expect(() => gap(other, null, id as RemedyId)).toThrow();
      }
    }
    expect(new Set(Object.values(REMEDIES)).size).toBe(Object.keys(REMEDIES).length);
  });
});
