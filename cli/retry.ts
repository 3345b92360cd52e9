/**
 * When `occ` waits and asks again instead of failing (docs/: follow and download):
 * - 429 RATE_LIMITED: after Retry-After, and never sooner than 2 s;
 * - 504 TIMEOUT: after 2 s;
 * - 503 RUNTIME_LOGS_BUSY: back off with jitter, never sooner than Retry-After nor than one poll
 *   interval, the random part doubling per busy answer in a row (at most 30 s in all), so many
 *   clients do not come back in step.
 * Anything else is not retried here.
 */
import type { ApiError } from "./errors.ts";

/** The least wait before retrying a 429 (with Retry-After) or a 504. */
export const RETRY_FLOOR_MS = 2000;
/** The longest back-off on 503 BUSY. */
export const BUSY_CAP_MS = 30_000;

export type RetryKind = "rate-limited" | "timeout" | "busy";

export interface RetryDecision {
  kind: RetryKind;
  waitMs: number;
}

/**
 * The wait before retrying `e`, or undefined when it is not retried. `busyInARow` counts BUSY
 * answers before this one (0 for the first); `random` is in [0, 1).
 */
export function retryDelay(
  e: ApiError,
  options: { busyInARow: number; pollIntervalMs: number; random: () => number },
): RetryDecision | undefined {
  const retryAfterMs = (e.info.retryAfterSeconds ?? 0) * 1000;
  if (e.status === 429) return { kind: "rate-limited", waitMs: Math.max(RETRY_FLOOR_MS, retryAfterMs) };
  if (e.status === 504) return { kind: "timeout", waitMs: RETRY_FLOOR_MS };
  if (e.status === 503 && e.code === "RUNTIME_LOGS_BUSY") {
    const floor = Math.max(retryAfterMs, options.pollIntervalMs, 1000);
    const spread = Math.min(BUSY_CAP_MS, floor * 2 ** Math.min(options.busyInARow, 10));
    // The floor, plus a random share of a spread that doubles per busy answer in a row.
    const waitMs = Math.min(Math.max(BUSY_CAP_MS, floor), floor + Math.floor(options.random() * spread));
    return { kind: "busy", waitMs };
  }
  return undefined;
}
