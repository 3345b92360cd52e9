/**
 * Log pages as text lines, stderr notices and NDJSON (surfaces.md § occ: text output, -o json).
 */

import { TransportError } from "../errors.ts";
import { escapeJsonText, escapeText } from "../escape.ts";
import { isObject } from "../http.ts";
import { compactJson, rawElements, rawMember } from "../raw-json.ts";

export interface LogPage {
  source: string;
  stream: Record<string, unknown> | null;
  records: Record<string, unknown>[];
  withheld: number;
  truncated: boolean;
  cursor: string | null;
}

/** Checks the parts of a log page the CLI relies on; anything else is passed through untouched. */
export function toLogPage(data: unknown): LogPage {
  if (!isObject(data) || !Array.isArray(data.records) || !data.records.every(isObject))
    throw new TransportError("the server sent a log page without records");
  const cursor = typeof data.cursor === "string" && data.cursor.length > 0 ? data.cursor : null;
  return {
    source: typeof data.source === "string" ? data.source : "",
    stream: isObject(data.stream) ? data.stream : null,
    records: data.records,
    withheld: typeof data.withheld === "number" && Number.isFinite(data.withheld) ? data.withheld : 0,
    truncated: data.truncated === true,
    cursor,
  };
}

const LEVEL_TEXT: Record<string, string> = {
  error: "ERROR",
  warn: "WARN",
  info: "INFO",
  debug: "DEBUG",
};

/** A field value for `k=v`: bare when it is one plain word, else double-quoted with `\\` and `"` escaped. */
export function formatFieldValue(value: unknown): string {
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  else text = JSON.stringify(value) ?? "";
  if (/^[A-Za-z0-9_.:/@+,-]+$/.test(text) && !/^(true|false|null)$/.test(text) && !/^-?\d/.test(text))
    return text;
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** `k=v` pairs, sorted by key (code-unit order, so output is stable across locales). */
export function formatFields(fields: unknown): string {
  if (!isObject(fields)) return "";
  return Object.keys(fields)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => `${/^[A-Za-z0-9_.-]+$/.test(k) ? k : formatFieldValue(k)}=${formatFieldValue(fields[k])}`)
    .join(" ");
}

function text(v: unknown, fallback = "-"): string {
  return typeof v === "string" && v.length > 0 ? v : fallback;
}

/** One `line` record: `time LEVEL kind [subsystem] message k=v…`, escaped. */
export function formatLogLine(rec: Record<string, unknown>): string {
  const level = typeof rec.level === "string" ? (LEVEL_TEXT[rec.level] ?? "-") : "-";
  const parts = [text(rec.time), level.padEnd(5), text(rec.kind).padEnd(10)];
  if (typeof rec.subsystem === "string" && rec.subsystem.length > 0) parts.push(`[${rec.subsystem}]`);
  parts.push(typeof rec.message === "string" ? rec.message : "");
  const fields = formatFields(rec.fields);
  if (fields !== "") parts.push(fields);
  if (rec.truncated === true) parts.push("[truncated]");
  return escapeText(parts.join(" ").trimEnd());
}

/** The stderr notice for a gap or withheld record; undefined for a line. */
export function formatRecordNotice(rec: Record<string, unknown>): string | undefined {
  const at = typeof rec.time === "string" ? ` at ${rec.time}` : "";
  if (rec.type === "gap")
    return escapeText(`gap${at} (${text(rec.reason, "unknown")}): ${text(rec.remedy, "no remedy given")}`);
  if (rec.type === "withheld") {
    const count = typeof rec.count === "number" ? rec.count : 0;
    return escapeText(
      `withheld ${count} line${count === 1 ? "" : "s"}${at} (${text(rec.reason, "unknown")}); they are counted, never shown`,
    );
  }
  return undefined;
}

export function noRunningPodNotice(source: string): string {
  return escapeText(`no running Pod for source ${source}: nothing to show yet`);
}

/** True when the page is not the whole story: a gap, withheld lines, or no running Pod. */
export function isIncomplete(page: LogPage): boolean {
  return (
    page.stream === null ||
    page.withheld > 0 ||
    page.records.some((r) => r.type === "gap" || r.type === "withheld")
  );
}

/**
 * Each record as one compact JSON line, cut from the raw response so numbers and key order stay as
 * the server wrote them; falls back to re-serializing when the raw text cannot be matched.
 */
export function ndjsonRecords(page: LogPage, rawData: string | undefined): string[] {
  let raws: string[] | undefined;
  try {
    const rawRecords = rawData === undefined ? undefined : rawMember(rawData, "records");
    raws = rawRecords === undefined ? undefined : rawElements(rawRecords);
  } catch {
    raws = undefined;
  }
  if (raws === undefined || raws.length !== page.records.length)
    return page.records.map((r) => escapeJsonText(JSON.stringify(r)));
  return raws.map((raw) => escapeJsonText(compactJson(raw)));
}
