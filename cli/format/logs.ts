/**
 * Log pages as text lines, stderr notices and NDJSON (surfaces.md § occ: text output, -o json).
 */

import { afterRepeatedLevel } from "../../lib/runtime-logs/level-words.ts";
import { TransportError } from "../errors.ts";
import { escapeJsonText, escapeText } from "../escape.ts";
import { isObject } from "../http.ts";
import { compactJson, rawElements, rawMember } from "../raw-json.ts";
import type { Style } from "../style.ts";
import { timeCell } from "./time.ts";

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

const LEVEL_COLOR = {
  error: "red",
  warn: "yellow",
  info: "green",
  debug: "gray",
} as const;

const PSEUDONYM = /hmac-sha256:v1:[A-Za-z0-9._-]{1,64}:([0-9a-f]{8})[0-9a-f]{56}/g;

/**
 * Pseudonyms (`hmac-sha256:v1:{key}:{64 hex}`) shortened for reading: `hmac:` and the digest's
 * first 8 hex digits, then `…`. Still a pseudonym, never the identifier: the server sends no other
 * form (`-o json` keeps the full one).
 */
export function shortenPseudonyms(text: string): string {
  return text.replace(PSEUDONYM, (_m, head: string) => `hmac:${head}…`);
}

/** Record times in one form: UTC with milliseconds (`2026-11-29T11:59:58.123Z`); `-` when untimed. */
export function formatTime(time: unknown): string {
  return timeCell(time) ?? "-".padEnd(24);
}

/** The message without a leading level word that only repeats the record's level (never emptied). */
export function stripRepeatedLevel(message: string, level: unknown): string {
  const rest = afterRepeatedLevel(message, level);
  return rest === "" ? message : rest;
}

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

/** Policy-decision fields of sandbox lines come first, in this order; the rest sorted by key. */
const DECISION_KEYS = ["action", "dst_host", "dst_port", "binary", "policy", "reason"];

function fieldOrder(a: string, b: string): number {
  const ia = DECISION_KEYS.indexOf(a);
  const ib = DECISION_KEYS.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `k=v` pairs: decision keys first, then code-unit order (stable across locales). */
export function formatFields(fields: unknown, style?: Style): string {
  if (!isObject(fields)) return "";
  return Object.keys(fields)
    .sort(fieldOrder)
    .map((k) => {
      const key = escapeText(/^[A-Za-z0-9_.-]+$/.test(k) ? k : formatFieldValue(k));
      const value = escapeText(shortenPseudonyms(formatFieldValue(fields[k])));
      if (style === undefined || !style.enabled) return `${key}=${value}`;
      const v = fields[k];
      const painted =
        k === "action" && typeof v === "string" && /^(allow|allowed|accept)$/i.test(v)
          ? style.paint("green", value)
          : k === "action" && typeof v === "string" && /^(deny|denied|block|blocked|reject)$/i.test(v)
            ? style.paint(["red", "bold"], value)
            : value;
      return `${style.paint("dim", `${key}=`)}${painted}`;
    })
    .join(" ");
}

function text(v: unknown, fallback = "-"): string {
  return typeof v === "string" && v.length > 0 ? v : fallback;
}

export interface LineOptions {
  /** Show the time column (`--timestamps=false` hides it). */
  timestamps: boolean;
  /** `source/pod/container` (or `sandbox/name`) before the line, painted in its stream's colour. */
  prefix?: { text: string; color: Parameters<Style["paint"]>[0] };
  style: Style;
}

const PLAIN: LineOptions = { timestamps: true, style: { enabled: false, paint: (_f, t) => t } };

/**
 * One `line` record: `[prefix] time LEVEL [subsystem] message k=v…`. The level is shown once,
 * pseudonyms are shortened, everything from the server is escaped before it is painted.
 */
export function formatLogLine(rec: Record<string, unknown>, options: LineOptions = PLAIN): string {
  const { style } = options;
  const level = typeof rec.level === "string" ? rec.level : "unknown";
  const parts: string[] = [];
  if (options.prefix !== undefined)
    parts.push(style.paint(options.prefix.color, escapeText(options.prefix.text)));
  if (options.timestamps) parts.push(style.paint("dim", escapeText(formatTime(rec.time))));
  const levelText = (LEVEL_TEXT[level] ?? "-").padEnd(5);
  const color = LEVEL_COLOR[level as keyof typeof LEVEL_COLOR];
  parts.push(color === undefined ? levelText : style.paint(color, levelText));
  if (rec.origin === "gateway") parts.push(style.paint("dim", "(openshell)"));
  if (rec.format === "ocsf") parts.push(style.paint("dim", "(ocsf)"));
  if (typeof rec.subsystem === "string" && rec.subsystem.length > 0)
    parts.push(style.paint("cyan", `[${escapeText(rec.subsystem)}]`));
  const message = typeof rec.message === "string" ? stripRepeatedLevel(rec.message, level) : "";
  parts.push(escapeText(shortenPseudonyms(message)));
  const fields = formatFields(rec.fields, style);
  if (fields !== "") parts.push(fields);
  if (rec.truncated === true) parts.push(style.paint("dim", "[truncated]"));
  return parts.join(" ").trimEnd();
}

/** The stderr notice for a gap or withheld record; undefined for a line. */
export function formatRecordNotice(rec: Record<string, unknown>): string | undefined {
  const time = timeCell(rec.time);
  const at = time === undefined ? "" : ` at ${time}`;
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
