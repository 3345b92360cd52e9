/**
 * The raw log read (docs/kube.md § readLog): query building and the classification of the answer.
 * Pure: the HTTP happens in ClusterSession.rawGet.
 */

import { LOG_READ_LIMIT_BYTES } from "../domain.ts";
import { isRfc3339Utc } from "../rfc3339.ts";
import { statusMessage } from "./cluster-session.ts";
import { ClusterHttpError } from "./errors.ts";
import type { RawResponse } from "./transport.ts";
import { InvalidClusterData } from "./validate.ts";

/** The query of one Pod log GET (`…/pods/{pod}/log`), before it becomes a URL. */
export interface PodLogQuery {
  container: string;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  previous: boolean;
  limitBytes: number;
}

const isCount = (n: number, min: number, max: number): boolean =>
  Number.isSafeInteger(n) && n >= min && n <= max;

/** Path and query of the log GET, with `timestamps=true`; refuses values outside the contract. */
export function buildLogQuery(namespace: string, pod: string, q: PodLogQuery): string {
  if (!isCount(q.limitBytes, 1, LOG_READ_LIMIT_BYTES)) throw new RangeError("limitBytes out of range");
  if (q.tailLines !== undefined && !isCount(q.tailLines, 0, 1_000_000))
    throw new RangeError("tailLines out of range");
  if (q.sinceSeconds !== undefined && !isCount(q.sinceSeconds, 1, 86_400 * 366)) {
    throw new RangeError("sinceSeconds out of range");
  }
  if (q.sinceTime !== undefined && !isRfc3339Utc(q.sinceTime))
    throw new RangeError("sinceTime is not RFC 3339 UTC");
  if (q.sinceTime !== undefined && q.sinceSeconds !== undefined) {
    throw new RangeError("sinceTime and sinceSeconds exclude each other");
  }
  const params = new URLSearchParams({ container: q.container, timestamps: "true" });
  if (q.tailLines !== undefined) params.set("tailLines", String(q.tailLines));
  if (q.sinceSeconds !== undefined) params.set("sinceSeconds", String(q.sinceSeconds));
  if (q.sinceTime !== undefined) params.set("sinceTime", q.sinceTime);
  if (q.previous) params.set("previous", "true");
  params.set("limitBytes", String(q.limitBytes));
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log?${params}`;
}

export type LogOutcome = { kind: "text"; text: string; truncated: boolean } | { kind: "gone" };

const EMPTY: LogOutcome = { kind: "text", text: "", truncated: false };
const UNABLE = /^unable to retrieve container logs for [A-Za-z0-9:/._-]{1,256}\n?$/;

/** True for the kubelet's exact 400 for a container that never started. */
export function isWaitingToStart(message: string, container: string, pod: string): boolean {
  const head = `container "${container}" in pod "${pod}" is waiting to start: `;
  if (!message.startsWith(head)) return false;
  const rest = message.slice(head.length);
  return rest === "ContainerCreating" || rest === "PodInitializing";
}

/** True for the kubelet's exact 400 for a `previous=true` read of a container with no previous instance. */
export function isNoPreviousInstance(message: string, container: string, pod: string): boolean {
  return message === `previous terminated container "${container}" in pod "${pod}" not found`;
}

/**
 * Maps the log answer: text (cut at `limitBytes`), an empty page for exactly the documented kubelet
 * answers that mean "nothing to read yet" (no previous instance on `previous=true`, a container
 * waiting to start, "unable to retrieve container logs"), `gone` for a 404, else a ClusterHttpError
 * (any other 400 included: it is a failure, never an empty page).
 */
export function classifyLogResponse(
  res: RawResponse,
  q: PodLogQuery,
  pod: string,
  limitBytes: number,
): LogOutcome {
  if (res.status === 200) {
    if (res.body.length < 300 && UNABLE.test(res.body.toString("utf8"))) return EMPTY;
    return {
      kind: "text",
      text: res.body.toString("utf8"),
      truncated: res.cut || res.body.length >= limitBytes,
    };
  }
  if (res.status === 400) {
    const message = statusMessage(res.body);
    if (q.previous && isNoPreviousInstance(message, q.container, pod)) return EMPTY;
    if (isWaitingToStart(message, q.container, pod)) return EMPTY;
    throw new ClusterHttpError(400, message);
  }
  if (res.status === 404) return { kind: "gone" };
  if (res.status >= 200 && res.status < 300) throw new InvalidClusterData(`log answered ${res.status}`);
  throw new ClusterHttpError(res.status, statusMessage(res.body));
}
