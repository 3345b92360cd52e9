/**
 * The request deadline (api.md: 10 s, 504 when it passes), bounded above by the Lambda's remaining
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

/** Settles with the work, or rejects with `RUNTIME_LOGS_TIMEOUT` when the deadline aborts first. */
export function withinDeadline<T>(deadline: Deadline, work: Promise<T>): Promise<T> {
  if (deadline.signal.aborted) return Promise.reject(new ServiceError("RUNTIME_LOGS_TIMEOUT"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ServiceError("RUNTIME_LOGS_TIMEOUT"));
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
