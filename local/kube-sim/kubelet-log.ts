/**
 * Kubelet log semantics (docs/kube.md § The kube API simulator), pure: the filters in the kubelet's
 * order — tailLines over the instance's whole log, then sinceSeconds/sinceTime, then limitBytes
 * over the encoded body (mid-line if so).
 */
import type { KubeTime, LogLine } from "../scenario/schema.ts";

export interface KubeletLogFilter {
  tailLines: number | null;
  /** Lines strictly older than this (kubelet form) are dropped; a line exactly at it is kept. */
  since: KubeTime | null;
  limitBytes: number | null;
  timestamps: boolean;
}

export function renderLog(lines: readonly LogLine[], query: KubeletLogFilter): Buffer {
  let selected = lines;
  if (query.tailLines !== null) {
    selected = query.tailLines === 0 ? [] : selected.slice(-query.tailLines);
  }
  if (query.since !== null) {
    const since = query.since;
    // Kubelet times are canonical nine-digit UTC strings, so string order is time order.
    selected = selected.filter(([time]) => time >= since);
  }
  const text = selected
    .map(([time, line]) => (query.timestamps ? `${time} ${line}\n` : `${line}\n`))
    .join("");
  const body = Buffer.from(text, "utf8");
  return query.limitBytes !== null && body.length > query.limitBytes
    ? body.subarray(0, query.limitBytes)
    : body;
}
