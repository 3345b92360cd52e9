/**
 * The download renderer (api.md § Download): a header line, then one line per record, no control
 * characters, a trailing newline. Same records and redaction as a page.
 */
import type { FieldValue, LogPage, LogRecord } from "./types.ts";

export const MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024;

export interface DownloadMeta {
  agentId: string;
}

const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** A download line with control characters (and line separators) turned into spaces. */
export const clean = (s: string): string => s.replace(CONTROLS, " ");

function fieldValue(v: FieldValue): string {
  if (typeof v !== "string") return String(v);
  return /[\s"]/.test(v) || v === "" ? JSON.stringify(v) : v;
}

/** One record as a download line (before `clean`). */
export function recordLine(r: LogRecord): string {
  const time = r.time ?? "-";
  if (r.type === "gap") return `${time} GAP ${r.reason}: ${r.remedy}`;
  if (r.type === "withheld") return `${time} WITHHELD ${r.count} ${r.reason}`;
  let line = `${time} ${r.level.toUpperCase()} ${r.kind}`;
  if (r.subsystem !== undefined) line += ` [${r.subsystem}]`;
  line += ` ${r.message}`;
  if (r.fields !== undefined) for (const [k, v] of Object.entries(r.fields)) line += ` ${k}=${fieldValue(v)}`;
  return line;
}

export function renderDownload(meta: DownloadMeta, page: LogPage): string {
  const s = page.stream;
  const pod = s === null ? "-" : "pod" in s ? s.pod : s.sandbox;
  const container = s !== null && "container" in s ? s.container : "-";
  const restartCount = s !== null && "restartCount" in s ? String(s.restartCount) : "-";
  const header =
    `# agent=${meta.agentId} deployment=${page.deploymentId} source=${page.source} pod=${pod} ` +
    `container=${container} restartCount=${restartCount} observedAt=${page.observedAt} withheld=${page.withheld}`;
  const out = [clean(header)];
  for (const r of page.records) out.push(clean(recordLine(r)));
  const body = `${out.join("\n")}\n`;
  if (Buffer.byteLength(body, "utf8") >= MAX_DOWNLOAD_BYTES) {
    throw new Error("download body exceeds its size limit");
  }
  return body;
}

const unsafe = /[^A-Za-z0-9_.-]/g;

/** `<agent>-<deployment>-<source>-<pod>[-<container>][-previous].log`, every other character as `_`. */
export function downloadFileName(x: {
  agentId: string;
  deploymentId: string;
  source: string;
  pod?: string | null;
  /** Only when it is not the source's main container. */
  container?: string | null;
  previous?: boolean;
}): string {
  const parts = [x.agentId, x.deploymentId, x.source];
  if (x.pod !== undefined && x.pod !== null && x.pod !== "") parts.push(x.pod);
  if (x.container !== undefined && x.container !== null && x.container !== "") parts.push(x.container);
  if (x.previous === true) parts.push("previous");
  return `${parts.join("-")}.log`.replace(unsafe, "_");
}
