/**
 * Mapping of cluster failures to contract codes (docs/kube.md § Errors). Client-facing errors carry a
 * fixed message per code; what the cluster said goes, capped and stripped of control characters,
 * into the internal message for the structured log only (which redacts it again on the way out).
 */
import { ServiceError } from "../api/errors.ts";
import { redactEventText } from "../redact/index.ts";
import { InvalidClusterData } from "./validate.ts";

/** A non-2xx answer from a cluster. `detail` is cluster text, redacted and capped: internal only. */
export class ClusterHttpError extends Error {
  override name = "ClusterHttpError";
  readonly detail: string;
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`cluster answered HTTP ${status}`);
    this.detail = internalText(detail);
  }
}

/** The per-call timer fired (the request's own signal may not have). */
export class CallTimeoutError extends Error {
  override name = "CallTimeoutError";
  /**
   * The timer was the request deadline's. Node's timers count from the event loop's cached time,
   * so one may fire a millisecond or more before the deadline by the wall clock: the deadline
   * passed all the same.
   */
  readonly atDeadline: boolean;
  constructor(message: string, atDeadline = false) {
    super(message);
    this.atDeadline = atDeadline;
  }
}

/** A response body larger than the call allows. */
export class OversizedResponse extends Error {
  override name = "OversizedResponse";
}

/** The Pod a log read targets is gone (or was replaced) before or during the read: start a new view. */
export class PodGoneError extends ServiceError {
  constructor(internal: string) {
    super("RUNTIME_LOGS_UNAVAILABLE", { internal });
    this.name = "PodGoneError";
  }
}

export const isPodGone = (e: unknown): e is PodGoneError => e instanceof PodGoneError;

/** Printable, bounded, redacted version of cluster text for internal messages. */
export function internalText(value: string, max = 300): string {
  const redacted = redactEventText(value.slice(0, 4096));
  let out = "";
  for (const ch of redacted.slice(0, max)) {
    const c = ch.charCodeAt(0);
    out += c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0) ? " " : ch;
  }
  return redacted.length > max ? `${out}…` : out;
}

export interface ErrorScope {
  clusterId: string;
  /** What was being done, e.g. `list pods`. */
  operation: string;
  /** The request's signal and deadline decide between TIMEOUT and UNAVAILABLE. */
  requestSignal: AbortSignal;
  deadline: number;
  now: () => number;
}

const isAbort = (e: unknown): boolean =>
  e instanceof CallTimeoutError ||
  (e instanceof Error && (e.name === "AbortError" || (e as { type?: string }).type === "aborted"));

/** Turns any failure of a cluster call into the ServiceError the contract wants. */
export function toServiceError(error: unknown, scope: ErrorScope): ServiceError {
  if (error instanceof ServiceError) return error;
  const where = `cluster ${scope.clusterId}: ${scope.operation}`;
  if (error instanceof ClusterHttpError) {
    const internal = `${where}: HTTP ${error.status}: ${error.detail}`;
    return new ServiceError(error.status === 403 ? "RUNTIME_LOGS_CLUSTER_RBAC" : "RUNTIME_LOGS_UNAVAILABLE", {
      internal,
      cause: error,
    });
  }
  if (isAbort(error) || scope.requestSignal.aborted) {
    const deadlinePassed =
      scope.requestSignal.aborted ||
      (error instanceof CallTimeoutError && error.atDeadline) ||
      scope.now() >= scope.deadline;
    return new ServiceError(deadlinePassed ? "RUNTIME_LOGS_TIMEOUT" : "RUNTIME_LOGS_UNAVAILABLE", {
      internal: `${where}: ${deadlinePassed ? "request deadline passed" : "call timed out"}`,
    });
  }
  if (error instanceof InvalidClusterData) {
    return new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: `${where}: ${error.message}` });
  }
  if (error instanceof OversizedResponse) {
    return new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: `${where}: ${error.message}` });
  }
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | null)?.code;
  const codeText = typeof code === "string" && /^[A-Z_]{1,40}$/.test(code) ? ` ${code}` : "";
  return new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: `${where}: ${name}${codeText}` });
}
