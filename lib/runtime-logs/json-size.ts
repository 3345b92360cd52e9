/**
 * UTF-8 size of a value's `JSON.stringify` output, computed without serializing (docs/pipeline.md §7:
 * each record is measured once). Exact for what records hold: plain objects, arrays, strings, finite
 * numbers, booleans and null; `undefined` properties are left out, as JSON.stringify does.
 */
import type { FieldValue, LineKind, LogRecord, RecordLevel } from "./types.ts";

/** Printable ASCII that JSON.stringify writes as itself (all but the quote and the backslash). */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7f]*$/;

/** Bytes of `JSON.stringify(s)` for a string, quotes included. Linear. */
export function jsonStringBytes(s: string): number {
  // Most log text is plain ASCII: one native scan, then the string's length is its size.
  if (PLAIN_ASCII.test(s)) return s.length + 2;
  let bytes = 2;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 34 && c !== 92) bytes += 1;
      else if (c === 34 || c === 92 || c === 8 || c === 9 || c === 10 || c === 12 || c === 13) bytes += 2;
      else bytes += 6; // \u00XX
    } else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 6; // a lone surrogate is escaped as \udXXX
    } else if (c >= 0xdc00 && c <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

/** Bytes of `JSON.stringify(v)` (UTF-8). */
export function jsonBytes(v: unknown): number {
  switch (typeof v) {
    case "string":
      return jsonStringBytes(v);
    case "number":
      return Number.isFinite(v) ? String(v).length : 4;
    case "boolean":
      return v ? 4 : 5;
    case "object": {
      if (v === null) return 4;
      if (Array.isArray(v)) {
        let bytes = 2 + Math.max(0, v.length - 1);
        for (const x of v) bytes += x === undefined ? 4 : jsonBytes(x);
        return bytes;
      }
      let bytes = 2;
      let first = true;
      const o = v as Record<string, unknown>;
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue;
        const x = o[k];
        if (x === undefined) continue;
        bytes += (first ? 0 : 1) + jsonStringBytes(k) + 1 + jsonBytes(x);
        first = false;
      }
      return bytes;
    }
    default:
      return 0;
  }
}

/** `{"type":"line","time":,"kind":,"level":,"message":}` without the values. */
const LINE_FIXED = 51;
/** `,"subsystem":` */
export const SUBSYSTEM_MEMBER_BYTES = 13;
/** `,"fields":` */
export const FIELDS_MEMBER_BYTES = 10;
/** `,"truncated":` */
const TRUNCATED_MEMBER_BYTES = 13;
/** `,"truncated":true` */
export const TRUNCATED_TRUE_BYTES = TRUNCATED_MEMBER_BYTES + 4;

/**
 * Bytes of a line record's required members, `{"type":"line","time":…,"kind":…,"level":…,"message":…}`,
 * from the sizes of its time and message: kind and level are names from a fixed set of ASCII words
 * (no escapes).
 */
export const lineRecordBytes = (
  timeBytes: number,
  kind: LineKind,
  level: RecordLevel,
  messageBytes: number,
): number => LINE_FIXED + timeBytes + kind.length + 2 + level.length + 2 + messageBytes;

/**
 * Bytes of a kubelet time the pipeline parsed (or null): digits and ASCII punctuation, which
 * JSON.stringify writes as they are, so no scan is needed.
 */
export const parsedTimeBytes = (time: string | null): number => (time === null ? 4 : time.length + 2);

/** Bytes of a field's scalar value (jsonBytes for the values a record's fields hold). */
export function fieldValueBytes(v: FieldValue): number {
  if (typeof v === "string") return jsonStringBytes(v);
  if (typeof v === "number") return Number.isFinite(v) ? String(v).length : 4;
  return v ? 4 : 5;
}

/**
 * Bytes of `JSON.stringify(rec)` for a record, without serializing it: the page measures every
 * record (pipeline.md §7), and a line record's keys are known, so only its values are looked at.
 * Key order does not change the size.
 */
export function recordBytes(rec: LogRecord): number {
  if (rec.type !== "line") return jsonBytes(rec);
  let bytes = lineRecordBytes(
    rec.time === null ? 4 : jsonStringBytes(rec.time),
    rec.kind,
    rec.level,
    jsonStringBytes(rec.message),
  );
  if (rec.subsystem !== undefined) bytes += SUBSYSTEM_MEMBER_BYTES + jsonStringBytes(rec.subsystem);
  if (rec.fields !== undefined) bytes += FIELDS_MEMBER_BYTES + fieldsBytes(rec.fields);
  if (rec.truncated !== undefined) bytes += TRUNCATED_MEMBER_BYTES + (rec.truncated ? 4 : 5);
  if (rec.origin !== undefined) bytes += 10 + jsonStringBytes(rec.origin); // ,"origin":
  if (rec.format !== undefined) bytes += 10 + jsonStringBytes(rec.format); // ,"format":
  return bytes;
}

function fieldsBytes(fields: Record<string, FieldValue>): number {
  let bytes = 2;
  let first = true;
  for (const k in fields) {
    if (!Object.hasOwn(fields, k)) continue;
    const v = fields[k];
    if (v === undefined) continue;
    bytes += (first ? 0 : 1) + jsonStringBytes(k) + 1 + fieldValueBytes(v);
    first = false;
  }
  return bytes;
}
