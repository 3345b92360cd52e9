/** P6's heap probe: it must see memory a piece of work holds at its peak, and not invent any. */
import { describe, expect, it } from "vitest";
import { findGc, measureHeap } from "../../../bench/support/heap.ts";

const MIB = 1024 * 1024;

describe("measureHeap", () => {
  const { gc } = findGc();

  it("finds a full collection to start from", () => {
    expect(gc).toBeTypeOf("function");
  });

  it("counts what the work still holds at its end", () => {
    // 2^20 small integers in a packed array: 8 MiB of heap on a 64-bit V8 without compression,
    // at least 4 MiB with pointer compression.
    const sample = measureHeap(() => new Array(1 << 20).fill(7), gc);
    expect(sample.peakGrowth).toBeGreaterThanOrEqual(4 * MIB);
    expect(sample.peakGrowth).toBeLessThan(64 * MIB);
    expect(sample.retainedGrowth).not.toBeNull();
    expect(sample.retainedGrowth!).toBeLessThan(MIB);
  });

  it("sees a peak that a collection during the work already freed", () => {
    let after = 0;
    let before = 0;
    const sample = measureHeap(() => {
      before = process.memoryUsage().heapUsed;
      let keep: number[][] | null = [];
      for (let i = 0; i < 16; i++) keep.push(new Array(1 << 17).fill(i));
      keep = null;
      // Freed before the work ends: only V8's record of this collection still knows the peak.
      gc?.();
      after = process.memoryUsage().heapUsed;
      return keep;
    }, gc);
    expect(after - before).toBeLessThan(2 * MIB);
    expect(sample.collections).toBeGreaterThan(0);
    expect(sample.peakGrowth).toBeGreaterThanOrEqual(8 * MIB);
  });

  it("reports little growth for work that allocates almost nothing", () => {
    const sample = measureHeap(() => 1 + 1, gc);
    expect(sample.peakGrowth).toBeLessThan(MIB);
  });
});
