/**
 * The P7 delivery audit: a model appends 1..n, delivers it in pages with some stretches dropped
 * (each with or without a gap record), duplicated or swapped, and the ledger must count exactly
 * what the model did.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sequenceOf, totalAudits, ViewLedger } from "../../../bench/support/delivery.ts";

const timeOf = (seq: number) => 1_000_000 + seq * 10;

interface Plan {
  n: number;
  /** Disjoint [from, to] stretches to drop, never the first or last line, each with its gap choice. */
  drops: { from: number; to: number; gap: "none" | "dated" | "undated" | "too-early" }[];
  duplicates: number[];
}

const plan: fc.Arbitrary<Plan> = fc
  .record({
    n: fc.integer({ min: 2, max: 400 }),
    cuts: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 30 })), {
      maxLength: 6,
    }),
    gaps: fc.array(
      fc.constantFrom("none", "dated", "undated", "too-early") as fc.Arbitrary<Plan["drops"][0]["gap"]>,
      {
        minLength: 6,
        maxLength: 6,
      },
    ),
    dups: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 5 }),
  })
  .map(({ n, cuts, gaps, dups }) => {
    const drops: Plan["drops"] = [];
    let next = 2;
    for (const [i, [at, len]] of cuts.entries()) {
      const from = Math.max(next, 2 + Math.floor(at * (n - 2)));
      const to = Math.min(n - 1, from + len - 1);
      if (from > to) continue;
      drops.push({ from, to, gap: gaps[i]! });
      next = to + 2; // keep one delivered line between stretches
    }
    const dropped = (s: number) => drops.some((d) => s >= d.from && s <= d.to);
    const duplicates = [...new Set(dups.map((d) => 1 + Math.floor(d * n)))].filter(
      (s) => s <= n && !dropped(s),
    );
    return { n, drops, duplicates };
  });

function play(p: Plan): ViewLedger {
  const ledger = new ViewLedger();
  for (let s = 1; s <= p.n; s++) {
    const drop = p.drops.find((d) => s >= d.from && s <= d.to);
    if (drop) {
      if (s === drop.to && drop.gap !== "none") {
        // Like window_exceeded: dated at the earliest line fetched after the stretch.
        const timeMs =
          drop.gap === "undated" ? null : drop.gap === "dated" ? timeOf(s + 1) : timeOf(drop.from) - 1;
        ledger.add({ type: "gap", reason: "window_exceeded", timeMs });
      }
      continue;
    }
    ledger.add({ type: "line", seq: s });
    if (p.duplicates.includes(s)) ledger.add({ type: "line", seq: s });
  }
  return ledger;
}

describe("ViewLedger", () => {
  it("counts deliveries, duplicates and every lost line, covered or not, as the model made them", () => {
    fc.assert(
      fc.property(plan, (p) => {
        const audit = play(p).audit(timeOf, p.n + 7);
        const size = (d: Plan["drops"][0]) => d.to - d.from + 1;
        const lost = p.drops.reduce((a, d) => a + size(d), 0);
        const covered = p.drops
          .filter((d) => d.gap === "dated" || d.gap === "undated")
          .reduce((a, d) => a + size(d), 0);
        expect(audit.delivered).toBe(p.n - lost);
        expect(audit.duplicates).toBe(p.duplicates.length);
        expect(audit.reordered).toBe(0);
        expect(audit.lost).toBe(lost);
        expect(audit.lostInGap).toBe(covered);
        expect(audit.lostWithoutGap).toBe(lost - covered);
        expect(audit.pending).toBe(7);
        const gapCount = p.drops.filter((d) => d.gap !== "none").length;
        expect(audit.gaps.window_exceeded ?? 0).toBe(gapCount);
      }),
    );
  });

  it("does not let a gap received elsewhere in the stream excuse a loss", () => {
    const ledger = new ViewLedger();
    ledger.add({ type: "gap", reason: "window_exceeded", timeMs: null });
    for (const seq of [1, 2, 4, 5]) ledger.add({ type: "line", seq });
    ledger.add({ type: "gap", reason: "truncated", timeMs: null });
    const audit = ledger.audit(timeOf, 5);
    expect(audit).toMatchObject({ delivered: 4, lost: 1, lostInGap: 0, lostWithoutGap: 1, pending: 0 });
    expect(audit.gaps).toEqual({ window_exceeded: 1, truncated: 1 });
  });

  it("reports lines delivered out of order", () => {
    const ledger = new ViewLedger();
    for (const seq of [1, 3, 2, 4]) ledger.add({ type: "line", seq });
    expect(ledger.audit(timeOf, 4)).toMatchObject({ delivered: 4, reordered: 1, duplicates: 0, lost: 0 });
  });

  it("sums views, and an empty view has nothing pending", () => {
    const a = new ViewLedger();
    for (const seq of [1, 2, 2, 5]) a.add({ type: "line", seq });
    a.add({ type: "gap", reason: "stream_replaced", timeMs: null });
    const empty = new ViewLedger().audit(timeOf, 9);
    expect(empty).toMatchObject({ delivered: 0, lost: 0, pending: 0 });
    const total = totalAudits([a.audit(timeOf, 5), empty, a.audit(timeOf, 6)]);
    expect(total).toMatchObject({ delivered: 6, duplicates: 2, lost: 4, lostWithoutGap: 4, pending: 1 });
    expect(total.gaps).toEqual({ stream_replaced: 2 });
  });
});

describe("sequenceOf", () => {
  it("reads the appender's tag and nothing that merely looks like it", () => {
    expect(sequenceOf("INFO gateway request seq=42 method=POST")).toBe(42);
    expect(sequenceOf("subseq=42")).toBeNull();
    expect(sequenceOf("seq=")).toBeNull();
    expect(sequenceOf("seq=12ab")).toBeNull();
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(sequenceOf(`x seq=${n} y`)).toBe(n);
      }),
    );
  });
});
