/** Order statistics of the benchmark rows: nearest-rank percentiles, median, summary. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { median, percentile, round, summarize } from "../../../bench/support/stats.ts";

const samples = fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 });

describe("percentile (nearest rank)", () => {
  it("is an observed sample with at least p % of the samples at or below it, and fewer strictly below", () => {
    fc.assert(
      fc.property(samples, fc.integer({ min: 1, max: 100 }), (xs, p) => {
        const r = percentile(xs, p);
        const need = Math.ceil((p / 100) * xs.length);
        expect(xs).toContain(r);
        expect(xs.filter((x) => x <= r).length).toBeGreaterThanOrEqual(need);
        expect(xs.filter((x) => x < r).length).toBeLessThan(need);
      }),
    );
  });

  it("is monotone in p and bounded by min and max", () => {
    fc.assert(
      fc.property(samples, fc.integer({ min: 1, max: 99 }), (xs, p) => {
        expect(percentile(xs, p)).toBeLessThanOrEqual(percentile(xs, p + 1));
        expect(percentile(xs, 100)).toBe(Math.max(...xs));
        expect(percentile(xs, p)).toBeGreaterThanOrEqual(Math.min(...xs));
      }),
    );
  });

  it("knows the textbook cases and rejects p outside (0, 100]", () => {
    const xs = [15, 20, 35, 40, 50];
    expect(percentile(xs, 5)).toBe(15);
    expect(percentile(xs, 30)).toBe(20);
    expect(percentile(xs, 40)).toBe(20);
    expect(percentile(xs, 50)).toBe(35);
    expect(percentile(xs, 99)).toBe(50);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(xs, 0)).toThrow(RangeError);
    expect(() => percentile(xs, 101)).toThrow(RangeError);
  });
});

describe("median and summary", () => {
  it("averages the two middle samples of an even count and ignores input order", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([9, 1, 5])).toBe(5);
    fc.assert(
      fc.property(samples, (xs) => {
        expect(median([...xs].reverse())).toBe(median(xs));
        const below = xs.filter((x) => x < median(xs)).length;
        expect(below).toBeLessThanOrEqual(Math.floor(xs.length / 2));
      }),
    );
  });

  it("summarizes with rounded figures and turns an empty set into nulls", () => {
    expect(summarize([1.234, 2.345, 10.987])).toEqual({ n: 3, p50_ms: 2.35, p99_ms: 10.99, max_ms: 10.99 });
    expect(summarize([])).toEqual({ n: 0, p50_ms: null, p99_ms: null, max_ms: null });
    expect(round(Number.POSITIVE_INFINITY)).toBeNull();
    expect(round(1 / 3, 3)).toBe(0.333);
  });
});
