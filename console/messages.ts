/**
 * What the console says: one clear sentence per api.md error code (with what to do), labels for gap
 * reasons, and the remedies for withheld lines. Fixed text only: nothing from a response is
 * interpolated except the request ID and a number of seconds.
 */
import type { ErrorCode } from "../lib/api/errors.ts";
import type { ApiError } from "./api.ts";
import type { Deployment } from "./types.ts";

/** Codes the console itself gives a failure that never reached the service's envelope. */
type ClientCode = "NETWORK" | "MALFORMED_RESPONSE";

/** Every code of the service's catalog has a sentence here; a new code fails the typecheck. */
const ERRORS: Record<ErrorCode | ClientCode, string> = {
  INVALID_REQUEST: "The request was outside the API contract. Check the namespace, Agent and deployment IDs.",
  RUNTIME_LOGS_CURSOR_INVALID: "The log position is no longer valid; a new view was started.",
  RUNTIME_LOGS_POD_INVALID:
    "That Pod is no longer a current Pod of this source. Refresh the runtime to pick another.",
  RUNTIME_LOGS_SOURCE_UNAVAILABLE: "This deployment has no such log source.",
  UNAUTHENTICATED: "You are not signed in, or your token expired. Sign in again.",
  FORBIDDEN: "You are not allowed to read this. Ask an administrator for a grant.",
  NOT_FOUND: "The Agent or deployment does not exist.",
  RUNTIME_LOGS_RATE_LIMITED: "Too many requests: waiting before the next one.",
  NOT_IMPLEMENTED:
    "Runtime reads are not available for this deployment (switched off, or its driver owns logging).",
  RUNTIME_LOGS_BUSY: "Too many reads are in flight: waiting before the next one.",
  RUNTIME_LOGS_AUDIT_UNAVAILABLE: "The read could not be audited, so nothing was read. Try again shortly.",
  DEPENDENCY_UNAVAILABLE: "A service dependency is unavailable. Try again shortly.",
  RUNTIME_LOGS_CLUSTER_RBAC:
    "The cluster denied this service access to the runtime. An operator must fix its permissions.",
  RUNTIME_LOGS_SANDBOX_NOT_FOUND: "The sandbox driver reports no such sandbox.",
  RUNTIME_LOGS_UNAVAILABLE: "The runtime is unavailable right now. Try again shortly.",
  RUNTIME_LOGS_TIMEOUT: "The request took too long and was stopped. Try again.",
  INTERNAL: "The service failed unexpectedly. Try again; report the request ID if it persists.",
  NETWORK: "The service could not be reached. Check your connection and try again.",
  MALFORMED_RESPONSE: "The service answered with something the console does not understand.",
};

/** One line for an error: our sentence, then status, code and request ID for support. */
export function errorMessage(err: ApiError, retryInSeconds?: number): string {
  const known = Object.hasOwn(ERRORS, err.code) ? ERRORS[err.code as ErrorCode | ClientCode] : undefined;
  let text = known ?? `The request failed (HTTP ${err.status}).`;
  if (retryInSeconds !== undefined && retryInSeconds > 0) text += ` Retrying in ${retryInSeconds} s.`;
  const parts = [err.status > 0 ? `HTTP ${err.status}` : null, known ? err.code : null];
  if (err.requestId) parts.push(`request ${err.requestId}`);
  const ref = parts.filter((p) => p !== null).join(" · ");
  return ref ? `${text} (${ref})` : text;
}

/** "1 line", "2 lines". */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The notice above the log for a page's withheld lines (empty when none). */
export const withheldNotice = (n: number): string =>
  n > 0 ? `${count(n, "line")} withheld in this page.` : "";

/**
 * What the chooser says about the deployment list: true of the deployment selected right now, so it
 * changes when another one is chosen.
 */
export function deploymentsNotice(list: readonly Deployment[], selected: string): string {
  if (list.length === 0) return "This Agent has no deployments.";
  const head = count(list.length, "deployment");
  const active = list.find((d) => d.active);
  if (active?.deploymentId === selected) return `${head}; the active one is selected.`;
  if (!active) return `${head}; none is active. ${selected} is selected.`;
  return `${head}; ${selected} is selected (the active one is ${active.deploymentId}).`;
}

/** Said after an error that ends polling, only when something was polling. */
export const stoppedNotice = (what: "Follow" | "Status polling", wasPolling: boolean): string =>
  wasPolling ? ` ${what} stopped.` : "";

export const GAP_LABELS: Record<string, string> = {
  stream_replaced: "The stream was replaced (new Pod or container instance)",
  window_exceeded: "Lines were lost between reads",
  cursor_expired: "The view expired and was restarted",
  truncated: "The page was cut at its size limit",
  buffer_lost: "The sandbox buffer rolled over",
  clock_step: "A clock stepped: lines written around here may be missing",
};

export const WITHHELD_REMEDIES: Record<string, string> = {
  unrecognised_structured:
    "Structured output of an unknown shape (it may carry chat content) is never shown here; ask an operator with cluster access.",
  oversized: "Lines over the size limit are not shown; ask an operator with cluster access for the raw log.",
  malformed: "Broken or multi-line JSON is not shown; ask an operator with cluster access for the raw log.",
};
