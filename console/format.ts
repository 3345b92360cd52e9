/** Pure formatting for the views: times in UTC, restart summaries, termination lines. */
import type { Container, Pod, PodEvent, RestartRecord } from "./types.ts";

const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** `14:02 UTC` (the server sends RFC 3339 UTC; anything else is shown as given). */
export function hourMinuteUtc(iso: string | null): string {
  if (!iso) return "time unknown";
  const m = ISO.exec(iso);
  if (m?.[5] === "Z") return `${m[2]} UTC`;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(11, 16)} UTC`;
}

/** `08:39:21.121` for a log row; the full time goes in the row's title. */
export function clockTime(iso: string | null): string {
  if (!iso) return "—";
  const m = ISO.exec(iso);
  if (!m) return iso;
  return `${m[2]}${m[3]}.${(m[4] ?? "").padEnd(3, "0").slice(0, 3)}`;
}

/** A sortable key for RFC 3339 UTC times (fraction padded to 9 digits). */
export function timeKey(iso: string | null | undefined): string {
  if (!iso) return "";
  const m = ISO.exec(iso);
  return m ? `${m[1]}T${m[2]}${m[3]}.${(m[4] ?? "").padEnd(9, "0")}` : iso;
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
