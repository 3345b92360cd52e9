/**
 * The request deadline (docs/api.md: 10 s, 504 when it passes), bounded above by the Lambda's remaining
 * time so the function answers before it is killed.
 */
import { ServiceError } from "../api/errors.ts";

export const REQUEST_DEADLINE_MS = 10_000;
/** Kept back from the Lambda's remaining time to serialize and return the answer. */
const RESPONSE_RESERVE_MS = 500;

export interface Deadline {
  /** Epoch ms at which the request must have answered. */
  readonly at: number;
  /** Aborts when the deadline passes; every I/O call of the request listens to it. */
  readonly signal: AbortSignal;
  remainingMs(): number;
  /** Throws `RUNTIME_LOGS_TIMEOUT` once the deadline has passed. */
  check(): void;
  dispose(): void;
}

export function startDeadline(now: () => number, lambdaRemainingMs: number | undefined): Deadline {
  const budget = Math.max(
    0,
    Math.min(REQUEST_DEADLINE_MS, (lambdaRemainingMs ?? Number.POSITIVE_INFINITY) - RESPONSE_RESERVE_MS),
  );
  const at = now() + budget;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ServiceError("RUNTIME_LOGS_TIMEOUT")), budget);
  timer.unref?.();
  return {
    at,
    signal: controller.signal,
    remainingMs: () => Math.max(0, at - now()),
    check() {
      if (controller.signal.aborted || now() >= at) throw new ServiceError("RUNTIME_LOGS_TIMEOUT");
    },
    dispose: () => clearTimeout(timer),
  };
}

/**
 * After the deadline passes, how long the answer waits for the work to settle, so that the work's
 * own cleanup (a limiter lease released in its `finally`) runs before the 504 is sent. Inside
 * RESPONSE_RESERVE_MS, so the function still answers before Lambda stops it.
 */
export const SETTLE_GRACE_MS = 300;

/**
 * Settles with the work, or rejects with `RUNTIME_LOGS_TIMEOUT` when the deadline aborts first —
 * after the work has settled or `graceMs` has passed, whichever comes first (0: at once).
 */
export function withinDeadline<T>(
  deadline: Deadline,
  work: Promise<T>,
  graceMs = SETTLE_GRACE_MS,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timeout = () => reject(new ServiceError("RUNTIME_LOGS_TIMEOUT"));
    const onAbort = () => {
      if (graceMs <= 0) return timeout();
      const timer = setTimeout(timeout, graceMs);
      const done = () => {
        clearTimeout(timer);
        timeout();
      };
      work.then(done, done);
    };
    if (deadline.signal.aborted) {
      onAbort();
      return;
    }
    deadline.signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        deadline.signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        deadline.signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
