/**
 * Order statistics for benchmark rows: nearest-rank percentiles (a reported p99 is always a
 * latency that was actually observed, never an interpolation) and a rounded summary.
 */

/**
 * The nearest-rank percentile: the smallest sample with at least `p` % of the samples at or below
 * it. `p` in (0, 100]; NaN for no samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The median (mean of the two middle samples for an even count); NaN for no samples. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The largest sample; -Infinity for none (no argument spreading, so any count works). */
export const maximum = (samples: readonly number[]): number =>
  samples.reduce((m, x) => Math.max(m, x), Number.NEGATIVE_INFINITY);

/** Rounds for a row; NaN and infinities become null so the row stays valid JSON. */
export function round(x: number, digits = 2): number | null {
  return Number.isFinite(x) ? Number(x.toFixed(digits)) : null;
}

export interface LatencySummary {
  n: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return {
    n: samples.length,
    p50_ms: round(median(samples)),
    p99_ms: round(percentile(samples, 99)),
    max_ms: round(maximum(samples)),
  };
}
