/** Pure formatting for the views: times in UTC, restart summaries, termination lines. */

import { toUtcMillisRfc3339, toUtcRfc3339, utcSortKey } from "../lib/rfc3339.ts";
import { afterRepeatedLevel } from "../lib/runtime-logs/level-words.ts";
import type { Container, LineRecord, Pod, PodEvent, RestartRecord, Runtime, Stream } from "./types.ts";

/** `14:02 UTC` (the server sends RFC 3339 UTC; anything else is shown as given). */
export function hourMinuteUtc(iso: string | null): string {
  if (!iso) return "time unknown";
  const utc = toUtcRfc3339(iso);
  return utc === null ? iso : `${utc.slice(11, 16)} UTC`;
}

/**
 * `2026-12-01 08:39:21.121` for a log row: date and time in UTC, always this one shape (the header
 * says UTC; the full RFC 3339 time goes in the row's title). An offset time is converted to UTC.
 */
export function rowTime(iso: string | null): string {
  if (!iso) return "—";
  const utc = toUtcMillisRfc3339(iso);
  return utc === null ? iso : `${utc.slice(0, 10)} ${utc.slice(11, 23)}`;
}

/** A sortable key for RFC 3339 times (in UTC, fraction padded to 9 digits). */
export function timeKey(iso: string | null | undefined): string {
  if (!iso) return "";
  const utc = toUtcRfc3339(iso);
  return utc === null ? iso : utcSortKey(utc);
}

const restartTime = (r: RestartRecord) => r.next?.startedAt ?? r.previous?.finishedAt ?? r.detectedAt;

/** The newest restart record for one container, if any. */
export function lastRestart(records: RestartRecord[], pod: string, container: string): RestartRecord | null {
  let best: RestartRecord | null = null;
  for (const r of records) {
    if (r.pod !== pod || r.container !== container) continue;
    if (!best || timeKey(restartTime(r)) > timeKey(restartTime(best))) best = r;
  }
  return best;
}

/**
 * "restarted 3×; last: liveness-probe, 14:02 UTC": the attribution when a restart record exists,
 * else how the last instance ended (Kubernetes' own reason, unattributed). Null without restarts.
 */
export function restartSummary(container: Container, records: RestartRecord[], pod: string): string | null {
  if (container.restartCount <= 0) return null;
  const head = `restarted ${container.restartCount}×`;
  const record = lastRestart(records, pod, container.name);
  if (record) {
    const confidence = record.trigger.confidence === "confirmed" ? "" : ` (${record.trigger.confidence})`;
    return `${head}; last: ${record.trigger.category}${confidence}, ${hourMinuteUtc(restartTime(record))}`;
  }
  const t = container.lastTermination;
  if (t) return `${head}; last: ${t.reason ?? "unknown"} (not attributed), ${hourMinuteUtc(t.finishedAt)}`;
  return `${head}; last: unknown`;
}

/** "OOMKilled · exit 137 · 07:52 UTC". */
export function terminationLine(container: Container): string | null {
  const t = container.lastTermination;
  if (!t) return null;
  const parts = [t.reason ?? "reason unknown"];
  if (t.exitCode !== null) parts.push(`exit ${t.exitCode}`);
  if (t.signal !== null) parts.push(`signal ${t.signal}`);
  parts.push(hourMinuteUtc(t.finishedAt));
  return parts.join(" · ");
}

export const isHealthy = (pod: Pod) => pod.phase === "Running" && pod.ready;

/** Up to five Warning Events, newest first (the server already orders them). */
export const warnings = (pod: Pod): PodEvent[] => pod.events.filter((e) => e.type === "Warning").slice(0, 5);

/** A leading word, bare or in brackets, and the spaces after it: a time when it reads as RFC 3339. */
const LEADING_WORD = /^\[?([^\s\]]+)\]?\s+/;

/**
 * The message of a text line as a row shows it: the row already shows the time and the level, so a
 * leading time that names the same second and a leading level word that says the row's level are
 * not shown again. Anything else stays exactly as sent.
 */
export function rowMessage(line: Pick<LineRecord, "kind" | "message" | "level" | "time">): string {
  if (line.kind !== "text") return line.message;
  let text = line.message;
  const time = LEADING_WORD.exec(text);
  if (time && line.time && sameSecond(time[1] as string, line.time)) text = text.slice(time[0].length);
  text = afterRepeatedLevel(text, line.level);
  return text === "" ? line.message : text;
}

function sameSecond(a: string, b: string): boolean {
  const ua = toUtcRfc3339(a);
  const ub = toUtcRfc3339(b);
  return ua !== null && ub !== null && ua.slice(0, 19) === ub.slice(0, 19);
}

/**
 * How a container's readiness reads on a card. An init container that finished with exit 0 is
 * done, not failing; a main container's readiness is Kubernetes' own.
 */
export function readiness(c: Container): { text: string; tone: "ok" | "bad" | "muted" } {
  if (!c.init) return c.ready ? { text: "ready", tone: "ok" } : { text: "not ready", tone: "bad" };
  switch (c.state) {
    case "terminated":
      return c.reason === "Completed" ? { text: "completed", tone: "ok" } : { text: "failed", tone: "bad" };
    case "running":
      return { text: "running", tone: "muted" };
    case "waiting":
      return c.restartCount > 0 || (c.reason !== null && c.reason !== "PodInitializing")
        ? { text: "failing", tone: "bad" }
        : { text: "waiting", tone: "muted" };
    default:
      return { text: "state unknown", tone: "muted" };
  }
}

type ContainerStream = Extract<Stream, { pod: string }>;
const isContainerStream = (s: Stream | null): s is ContainerStream => s !== null && "pod" in s;

/**
 * Whether two pages of a view read the same instance: the same Pod UID, container, restart count
 * and previous flag; for a sandbox the same gateway and name, and the same instance ID once both
 * pages know it (a view starts before the sandbox has written, with no ID yet).
 */
export function sameInstance(a: Stream, b: Stream): boolean {
  if (isContainerStream(a) || isContainerStream(b)) {
    if (!isContainerStream(a) || !isContainerStream(b)) return false;
    return (
      a.podUid === b.podUid &&
      a.container === b.container &&
      a.restartCount === b.restartCount &&
      a.previous === b.previous
    );
  }
  const x = a as SandboxStream;
  const y = b as SandboxStream;
  if (x.gatewayId !== y.gatewayId || x.sandbox !== y.sandbox) return false;
  return (
    x.sandboxId === undefined ||
    y.sandboxId === undefined ||
    x.sandboxId === null ||
    y.sandboxId === null ||
    x.sandboxId === y.sandboxId
  );
}

/** A sandbox stream as the service describes it (gateway, name, instance ID once known). */
type SandboxStream = Extract<Stream, { sandboxId: unknown }>;

/**
 * The inline marker of a restart inside a followed view: which instance the lines above and below
 * belong to, and why the old one ended — the restart record's attribution when the status has it,
 * else Kubernetes' own termination (unattributed), else that the cause is not known yet.
 */
export function restartMarker(
  before: Stream | null,
  after: Stream | null,
  runtime: Pick<Runtime, "pods" | "restarts"> | null,
): { title: string; cause: string } {
  if (!isContainerStream(after)) {
    const id = (after as SandboxStream | null)?.sandboxId;
    const instance = id ? ` (instance ${id})` : "";
    return {
      title: `The sandbox was replaced: lines above are the old instance, below the new one${instance}.`,
      cause: "",
    };
  }
  const old = isContainerStream(before) ? before : null;
  const replaced = old !== null && old.podUid !== after.podUid;
  const title = replaced
    ? `Pod ${old.pod} was replaced by ${after.pod}: lines above are the old Pod, below the new one (${after.container}).`
    : `${after.container} in ${after.pod} restarted: lines above are the old instance, below the new one (restart ${after.restartCount}).`;
  const record = runtime?.restarts.find(
    (r) =>
      r.container === after.container &&
      r.next.podUid === after.podUid &&
      (replaced || r.next.restartCount === after.restartCount),
  );
  if (record) {
    const t = record.trigger;
    const parts = [`Cause: ${t.category}${t.confidence === "confirmed" ? "" : ` (${t.confidence})`}`];
    if (record.actor && record.actor.kind !== "external-unknown") parts.push(`by ${record.actor.kind}`);
    const ended = record.termination ? terminationText(record.termination) : null;
    if (ended) parts.push(`ended ${ended}`);
    parts.push(hourMinuteUtc(restartTime(record)));
    return { title, cause: parts.join(" · ") };
  }
  const container = runtime?.pods
    .find((p) => p.uid === after.podUid)
    ?.containers.find((c) => c.name === after.container);
  const termination = container && !replaced ? terminationLine(container) : null;
  if (termination) return { title, cause: `Not attributed; Kubernetes says: ${termination}` };
  return { title, cause: runtime ? "Cause not recorded." : "Cause: reading the status…" };
}

function terminationText(t: { reason: string | null; exitCode: number | null; signal: number | null }) {
  const parts = [
    t.reason,
    t.exitCode !== null ? `exit ${t.exitCode}` : null,
    t.signal !== null ? `signal ${t.signal}` : null,
  ];
  const text = parts.filter((p) => p !== null).join(", ");
  return text === "" ? null : text;
}
