/**
 * How long to wait after `503 RUNTIME_LOGS_BUSY` (too many reads in flight for this Agent). Every
 * client that was told "busy" at the same moment must not come back at the same moment, nor sooner
 * than it would have polled anyway: the wait is at least `Retry-After` and at least one poll
 * interval, doubles with each busy answer in a row (capped), and is spread by random jitter.
 */
export const BUSY_CAP_MS = 30_000;

/**
 * `attempt` counts busy answers in a row (0 for the first); `random` is in [0, 1). The result lies
 * in [floor, 1.5 × floor) where floor = max(Retry-After, poll interval × 2^attempt capped at 30 s).
 */
export function busyDelayMs(
  attempt: number,
  retryAfterSeconds: number | null,
  pollMs: number,
  random: number,
): number {
  const exponential = Math.min(BUSY_CAP_MS, pollMs * 2 ** Math.min(Math.max(0, attempt), 16));
  const floor = Math.max((retryAfterSeconds ?? 1) * 1000, pollMs, exponential);
  const jitter = Math.min(Math.max(random, 0), 0.999_999) * floor * 0.5;
  return Math.round(floor + jitter);
}

/** A wait in milliseconds, said in whole seconds (rounded up, at least 1). */
export const waitSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
