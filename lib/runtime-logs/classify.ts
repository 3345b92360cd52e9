/**
 * Sanitize and classify one line (docs/pipeline.md §2): size check → control stripping → classification →
 * pseudonyms and redaction → truncation. The only cross-line state is the bracket depth of a
 * pretty-printed JSON object, which the caller carries line to line within a page.
 */

import type { Level } from "../domain.ts";
import { type RedactOptions, redact } from "../redact/index.ts";
import {
  FIELDS_MEMBER_BYTES,
  fieldValueBytes,
  jsonStringBytes,
  lineRecordBytes,
  parsedTimeBytes,
  SUBSYSTEM_MEMBER_BYTES,
  TRUNCATED_TRUE_BYTES,
} from "./json-size.ts";
import { LEVEL_WORDS, PLAIN_LEVELS } from "./level-words.ts";
import { fitUtf8, stripControls, utf8Length } from "./sanitize.ts";
import type {
  FieldValue,
  IdentityKey,
  LineKind,
  LineRecord,
  LogRecord,
  RecordLevel,
  WithheldReason,
} from "./types.ts";

export const MAX_INPUT_LINE_BYTES = 32 * 1024;
export const MAX_TEXT_BYTES = 4 * 1024;
export const MAX_MESSAGE_BYTES = 8 * 1024;
export const MAX_FIELD_BYTES = 512;
const MAX_JSON_DEPTH = 8;

export const WRAPPER_EVENTS: ReadonlySet<string> = new Set([
  "runtime.startup_phase",
  "openclaw.model_probe",
  "codex.model_probe",
]);

/** Operational scalars a structured record may keep (docs/pipeline.md §2). */
export const FIELD_ALLOWLIST: readonly string[] = [
  "subsystem",
  "component",
  "logger",
  "code",
  "status",
  "method",
  "url",
  "durationMs",
  "elapsedMs",
  "traceId",
  "spanId",
  "requestId",
  "run_id",
  "agent_id",
  "channel",
];

/** PEM shape of a line: how it can open, continue or close a block (docs/pipeline.md §6). */
export const Pem = {
  None: 0,
  Shaped: 1,
  Begin: 2,
  End: 3,
  /** BEGIN and END on one line: a closed block (the chain already masks it). */
  BeginEnd: 4,
} as const;
export type Pem = (typeof Pem)[keyof typeof Pem];

/** A line record before its time is attached (classification knows no sandbox origin or format). */
export type LineContent = Omit<LineRecord, "time" | "origin" | "format">;

export interface WithheldContent {
  type: "withheld";
  reason: WithheldReason;
}

export interface Classified {
  content: LineContent | WithheldContent;
  pem: Pem;
}

export interface ClassifyContext {
  identityKey: IdentityKey | null;
  namespaceId: string;
}

/** Carried from line to line within a page: open bracket depth of a pretty-printed JSON run. */
export interface JsonRunState {
  depth: number;
}

const LEVEL_RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };
export const levelRank = (l: Level): number => LEVEL_RANK[l];

/** A line below `minLevel` is left off the page; lines of unknown level and other records never are. */
export const belowMinLevel = (rec: LogRecord, min: Level | undefined): boolean =>
  min !== undefined &&
  rec.type === "line" &&
  rec.level !== "unknown" &&
  levelRank(rec.level) < levelRank(min);

/** A structured level name (any case) → level. */
export function levelFromName(name: string): RecordLevel {
  if (name.length > 16) return "unknown";
  // Own words only: `constructor` or `__proto__` must not read Object.prototype.
  const level = LEVEL_WORDS[name.toLowerCase()];
  return typeof level === "string" ? level : "unknown";
}

/** pino/bunyan numeric levels. */
export function levelFromNumber(n: number): RecordLevel {
  if (n >= 50) return "error";
  if (n >= 40) return "warn";
  if (n >= 30) return "info";
  return "debug";
}

const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** End index of a bracket tag (`[gateway] `) at `i`, or -1. */
function bracketTagEnd(s: string, i: number): number {
  if (s.charCodeAt(i) !== 91) return -1;
  const limit = Math.min(s.length, i + 66);
  const first = s.charCodeAt(i + 1);
  if (first === 32 || first === 93) return -1;
  for (let j = i + 1; j < limit; j++) {
    const c = s.charCodeAt(j);
    if (c === 93) {
      const next = s.charCodeAt(j + 1);
      return j + 1 === s.length || next === 32 ? j + 1 : -1;
    }
    if (c === 91 || c === 123 || c === 125 || c === 34) return -1;
  }
  return -1;
}

/** `table`'s words grouped by length, for lookups without slicing the line. */
function byLength(table: Record<string, Level>): (readonly [string, Level])[][] {
  const out: (readonly [string, Level])[][] = [];
  for (const [word, level] of Object.entries(table)) {
    const same = out[word.length] ?? [];
    same.push([word, level]);
    out[word.length] = same;
  }
  return out;
}
const LEVEL_WORDS_BY_LENGTH = byLength(LEVEL_WORDS);
const PLAIN_LEVELS_BY_LENGTH = byLength(PLAIN_LEVELS);

/**
 * `LEVEL_WORDS[s.slice(from, to).toLowerCase()]` without the copies: the words are lower-case
 * ASCII without a `k`, and the only characters outside ASCII that lower-case into ASCII letters
 * (the Kelvin sign to `k`, a dotted capital I to `i` plus a combining dot) cannot complete one.
 */
function levelWordAt(s: string, from: number, to: number): Level | undefined {
  const words = LEVEL_WORDS_BY_LENGTH[to - from];
  if (words === undefined) return undefined;
  next: for (const [word, level] of words) {
    for (let k = 0; k < word.length; k++) {
      let c = s.charCodeAt(from + k);
      if (c >= 65 && c <= 90) c += 32;
      if (c !== word.charCodeAt(k)) continue next;
    }
    return level;
  }
  return undefined;
}

/** `PLAIN_LEVELS[s.slice(from, to)]` without the copy. */
function plainWordAt(s: string, from: number, to: number): Level | undefined {
  const words = PLAIN_LEVELS_BY_LENGTH[to - from];
  if (words === undefined) return undefined;
  for (const [word, level] of words) if (s.startsWith(word, from)) return level;
  return undefined;
}

/**
 * Printable ASCII without the quote and the backslash, as most text lines are: no control to strip,
 * ASCII for redaction, and `"${s}"` as JSON.
 */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A klog prefix: `E1129 08:00:00.000000 …`. */
const KLOG = /^[EWIF]\d{4} /;

/** Plain-text level: leading token, bracketed token, logfmt `level=`, or klog prefix. */
export function plainLevel(s: string): RecordLevel {
  // klog: `E1129 08:00:00.000000 …`
  const k = s.charCodeAt(0);
  if ((k === 69 || k === 87 || k === 73 || k === 70) && s.charCodeAt(5) === 32 && KLOG.test(s)) {
    return k === 73 ? "info" : k === 87 ? "warn" : "error";
  }
  let i = 0;
  for (let tags = 0; tags <= 2; tags++) {
    // Bracketed level: `[ERROR] …`, any case.
    const end = bracketTagEnd(s, i);
    if (end > 0) {
      const level = levelWordAt(s, i + 1, end - 1);
      if (level !== undefined) return level;
    }
    // Bare uppercase word.
    let j = i;
    while (j < s.length && j - i < 9) {
      const c = s.charCodeAt(j);
      if (c < 65 || c > 90) break;
      j++;
    }
    if (j > i && (j === s.length || !isWordChar(s.charCodeAt(j)))) {
      const level = plainWordAt(s, i, j);
      if (level !== undefined) return level;
    }
    if (end < 0) break;
    i = end;
    while (s.charCodeAt(i) === 32) i++;
  }
  return logfmtLevel(s);
}

function logfmtLevel(s: string): RecordLevel {
  let i = s.indexOf("level=");
  while (i >= 0) {
    if (i === 0 || s.charCodeAt(i - 1) === 32) {
      let v = i + 6;
      const quoted = s.charCodeAt(v) === 34;
      if (quoted) v++;
      let e = v;
      while (e < s.length && e - v < 16 && isWordChar(s.charCodeAt(e))) e++;
      return levelFromName(s.slice(v, e));
    }
    i = s.indexOf("level=", i + 6);
  }
  return "unknown";
}

// ------------------------------------------------------------------ JSON helpers

/** Net bracket depth change of a line and its maximum depth (strings skipped). Linear. */
function bracketDepth(s: string, start: number): { net: number; max: number } {
  let depth = start;
  let max = start;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return { net: depth, max };
}

const BARE_KEY = /^"[^"]{0,256}"\s*:/;

function isJsonContinuation(t: string): boolean {
  if (t.length === 0) return true;
  const c = t.charCodeAt(0);
  return (
    c === 34 ||
    c === 123 ||
    c === 125 ||
    c === 91 ||
    c === 93 ||
    c === 44 ||
    c === 45 ||
    (c >= 48 && c <= 57) ||
    t.startsWith("true") ||
    t.startsWith("false") ||
    t.startsWith("null")
  );
}

// ------------------------------------------------------------------ classification

/** One shared content per reason: withheld content is only read, never changed. */
const WITHHELD: { readonly [R in WithheldReason]: WithheldContent } = {
  unrecognised_structured: Object.freeze({ type: "withheld", reason: "unrecognised_structured" }),
  oversized: Object.freeze({ type: "withheld", reason: "oversized" }),
  malformed: Object.freeze({ type: "withheld", reason: "malformed" }),
};
const withheldContent = (reason: WithheldReason): WithheldContent => WITHHELD[reason];

/** A PEM body line (base64 and padding) or a PEM header (`Proc-Type: 4,ENCRYPTED`): one native test. */
const PEM_BODY_OR_HEADER = /^(?:[A-Za-z0-9+/=]*$|[A-Za-z][A-Za-z0-9-]{0,63}: \S)/;

/** A PEM body line's characters: base64 and its padding. */
const isBase64 = (c: number): boolean =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 61;

/**
 * Whether PEM_BODY_OR_HEADER may match `t`, told by its first word: a body is base64 to its end,
 * and a header's name (letters, digits, dashes) ends at a colon. Most lines end that word with a
 * space or a bracket within a few characters and need no regex.
 */
function mayBePemBodyOrHeader(t: string): boolean {
  let i = 0;
  while (i < t.length && isBase64(t.charCodeAt(i))) i++;
  if (i === t.length) return true;
  const c = t.charCodeAt(i);
  return c === 58 || c === 45; // `:` ends a header's name, `-` may continue it
}

/** `dashes`: where `s` first holds five dashes (both markers do), or -1. */
function pemShape(s: string, dashes = s.indexOf("-----")): Pem {
  if (dashes >= 0) {
    const begin = s.indexOf("-----BEGIN ", dashes);
    if (begin >= 0) return s.indexOf("-----END ", begin) > 0 ? Pem.BeginEnd : Pem.Begin;
    if (s.includes("-----END ", dashes)) return Pem.End;
  }
  const t = s.trim();
  if (t.length <= 128 && mayBePemBodyOrHeader(t) && PEM_BODY_OR_HEADER.test(t)) return Pem.Shaped;
  return Pem.None;
}

/**
 * The shape masking goes by (docs/pipeline.md §6): the line's PEM shape, or Begin for a BEGIN
 * marker that no END follows wherever it sits in the line, even inside text that is withheld, cut
 * or filtered (Go's `{Name:tls Key:-----BEGIN EC PRIVATE KEY-----`).
 */
function maskingShape(shape: Pem, raw: string): Pem {
  if (shape === Pem.Begin) return shape;
  // A forward scan first: it is fast, and almost no line holds a marker.
  if (raw.indexOf("-----BEGIN ") < 0) return shape;
  const begin = raw.lastIndexOf("-----BEGIN ");
  if (raw.indexOf("-----END ", begin) < 0) return Pem.Begin;
  return shape;
}

/** Redact one outgoing string, identities pseudonymized with the context's key. */
export function cleanString(s: string, ctx: ClassifyContext): string {
  return redact(s, { identity: ctx });
}

/** Bytes of each allowlisted name as a JSON key (`"name"`), by its place in FIELD_ALLOWLIST. */
const FIELD_NAME_BYTES = FIELD_ALLOWLIST.map(jsonStringBytes);

/** Allowlisted field name → its bit (its place in FIELD_ALLOWLIST); `subsystem` has none here. */
const FIELD_BITS = new Map<string, number>(
  FIELD_ALLOWLIST.flatMap((name, i) => (name === "subsystem" ? [] : [[name, 1 << i] as const])),
);

/** The allowlisted names an object holds, as FIELD_BITS bits. Linear in its keys. */
function allowlistedNames(o: Obj): number {
  let bits = 0;
  for (const k in o) bits |= FIELD_BITS.get(k) ?? 0;
  return bits;
}

/**
 * Classifies the lines of one page in order (docs/pipeline.md §2): the redaction options of its
 * context, made once, and the one piece of cross-line state, the bracket depth of a pretty-printed
 * JSON run. Create one per page (or read); never share one between pages.
 */
export class LineClassifier {
  /** Open bracket depth of a pretty-printed JSON run, carried from line to line. */
  readonly run: JsonRunState;
  /** PEM shape of the line classified last (docs/pipeline.md §6). */
  pem: Pem = Pem.None;
  /** The shape masking across lines goes by for that line (maskingShape). */
  maskShape: Pem = Pem.None;
  /**
   * Bytes of `JSON.stringify` of the line record returned last, measured as it was built (the page
   * sums them against its budget, pipeline.md §7); meaningless after withheld content.
   */
  bytes = 0;
  private readonly options: RedactOptions;
  /** Whether the JSON text of the line being classified holds an escape. */
  private escaped = true;
  /** The line being classified was scanned whole for five dashes, and holds none: no marker. */
  private noDashes = false;

  constructor(ctx: ClassifyContext, run: JsonRunState = { depth: 0 }) {
    this.options = { identity: ctx };
    this.run = run;
  }

  /** Redact one outgoing string with this context (`ascii`: `s` is known to be ASCII). */
  clean(s: string, ascii = false): string {
    return redact(s, this.options, ascii);
  }

  /**
   * One line: its record (with `time` in its place, so the page adds nothing to it) or the reason
   * it is withheld; its PEM shapes are left in `pem` and `maskShape`, its record's size in `bytes`.
   * `time` is the line's parsed kubelet time, or null.
   */
  line(raw: string, time: string | null): LineRecord | WithheldContent {
    this.pem = Pem.None;
    this.noDashes = false;
    const content = this.content(raw, time);
    this.maskShape = this.noDashes ? this.pem : maskingShape(this.pem, raw);
    return content;
  }

  private content(raw: string, time: string | null): LineRecord | WithheldContent {
    const run = this.run;
    if (raw.length > MAX_INPUT_LINE_BYTES / 3 && utf8Length(raw) > MAX_INPUT_LINE_BYTES) {
      run.depth = 0;
      return withheldContent("oversized");
    }
    const plain = PLAIN_TEXT.test(raw);
    const text = plain ? raw : stripControls(raw);
    let lead = 0;
    while (lead < text.length && text.charCodeAt(lead) === 32) lead++;
    const first = text.charCodeAt(lead);

    if (run.depth > 0) {
      const t = text.slice(lead);
      if (isJsonContinuation(t)) {
        const d = bracketDepth(t, run.depth);
        run.depth = d.net > 0 && d.max <= 64 ? d.net : 0;
        return withheldContent("malformed");
      }
      run.depth = 0;
    }

    if (first === 123 || (first === 91 && bracketTagEnd(text, lead) < 0)) {
      return this.structured(text.slice(lead), time);
    }
    if (first === 34 && BARE_KEY.test(text.slice(lead, lead + 300))) {
      const d = bracketDepth(text.slice(lead), 0);
      run.depth = d.net > 0 && d.max <= 64 ? d.net : 0;
      return withheldContent("malformed");
    }

    const dashes = text.indexOf("-----");
    this.pem = pemShape(text, dashes);
    this.noDashes = dashes < 0 && text === raw;
    if (text.length > MAX_TEXT_BYTES / 3 && utf8Length(text) > MAX_TEXT_BYTES)
      return withheldContent("oversized");
    const level = plainLevel(text);
    const clean = this.clean(text, plain);
    const message = fitUtf8(clean, MAX_MESSAGE_BYTES);
    const rec = lineRecord(time, "text", level, message);
    const messageBytes = plain && message === text ? text.length + 2 : jsonStringBytes(message);
    this.bytes = lineRecordBytes(parsedTimeBytes(time), "text", level, messageBytes);
    if (message.length !== clean.length) {
      rec.truncated = true;
      this.bytes += TRUNCATED_TRUE_BYTES;
    }
    return rec;
  }

  private structured(t: string, time: string | null): LineRecord | WithheldContent {
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      // An unfinished object starts a pretty-printed run; the lines that continue it go with it.
      const depth = bracketDepth(t, 0);
      this.run.depth = depth.net > 0 && depth.max <= 64 ? depth.net : 0;
      return withheldContent("malformed");
    }
    if (tooDeep(value, 1)) return withheldContent("malformed");
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return withheldContent("unrecognised_structured");
    }
    // The line's own controls are gone: a parsed string holds one only through an escape, so
    // without a backslash no string of the record needs stripping.
    this.escaped = t.includes("\\");
    return this.recognise(value as Obj, time);
  }

  /** `s` without controls (docs/pipeline.md §2), for a string parsed from the current line. */
  private strip(s: string): string {
    return this.escaped ? stripControls(s) : s;
  }

  private recognise(o: Obj, time: string | null): LineRecord | WithheldContent {
    const { level, event, message, msg, subsystem, target, fields } = o;
    if (typeof event === "string" && WRAPPER_EVENTS.has(event)) {
      const failed =
        o.outcome === "failed" ||
        (event.endsWith("model_probe") && o.code !== undefined && o.code !== "READY");
      return this.build(time, "wrapper", failed ? "error" : "info", event, undefined, o, undefined);
    }
    if (typeof level === "string" && typeof message === "string" && msg === undefined) {
      const lvl = levelFromName(level);
      const sub = typeof subsystem === "string" && subsystem.length > 0 ? subsystem : undefined;
      // Below warn without a subsystem is chat output, not an operational record.
      if (sub === undefined && (lvl === "unknown" || levelRank(lvl) < LEVEL_RANK.warn)) {
        return withheldContent("unrecognised_structured");
      }
      return this.build(time, "structured", lvl, message, sub, o, undefined);
    }
    if (typeof level === "number" && level >= 10 && level <= 60 && typeof msg === "string") {
      return this.build(time, "structured", levelFromNumber(level), msg, stringOr(subsystem), o, undefined);
    }
    if (typeof level === "string" && typeof msg === "string") {
      return this.build(time, "structured", levelFromName(level), msg, stringOr(subsystem), o, undefined);
    }
    if (
      typeof level === "string" &&
      typeof target === "string" &&
      typeof fields === "object" &&
      fields !== null &&
      typeof (fields as Obj).message === "string"
    ) {
      const f = fields as Obj;
      return this.build(time, "structured", levelFromName(level), f.message as string, target, o, f);
    }
    return withheldContent("unrecognised_structured");
  }

  private build(
    time: string | null,
    kind: LineKind,
    level: RecordLevel,
    rawMessage: string,
    rawSubsystem: string | undefined,
    o: Obj,
    nested: Obj | undefined,
  ): LineRecord {
    const stripped = this.strip(rawMessage);
    const clean = this.clean(stripped);
    const message = fitUtf8(clean, MAX_MESSAGE_BYTES);
    const rec = lineRecord(time, kind, level, message);
    let bytes = lineRecordBytes(parsedTimeBytes(time), kind, level, jsonStringBytes(message));
    let truncated = message.length !== clean.length;
    if (rawSubsystem !== undefined) {
      const cleanSub = this.clean(this.strip(rawSubsystem));
      const subsystem = fitUtf8(cleanSub, MAX_FIELD_BYTES);
      rec.subsystem = subsystem;
      bytes += SUBSYSTEM_MEMBER_BYTES + jsonStringBytes(subsystem);
      truncated ||= subsystem.length !== cleanSub.length;
    }
    // The allowlisted names present, found from the object's own keys (a parsed object inherits no
    // allowlisted name), then read in allowlist order: a name of the record wins over the nested one.
    let names = allowlistedNames(o);
    if (nested !== undefined) names |= allowlistedNames(nested);
    let fields: Record<string, FieldValue> | undefined;
    let fieldsBytes = 0;
    for (let i = 0; names !== 0; i++, names >>>= 1) {
      if ((names & 1) === 0) continue;
      const name = FIELD_ALLOWLIST[i]!;
      let v = o[name];
      if (v === undefined && nested !== undefined) v = nested[name];
      let out: FieldValue | undefined;
      if (typeof v === "string") {
        const clean = this.clean(this.strip(v));
        out = fitUtf8(clean, MAX_FIELD_BYTES);
        truncated ||= out.length !== clean.length;
      } else if (typeof v === "number" && Number.isFinite(v)) out = v;
      else if (typeof v === "boolean") out = v;
      if (out !== undefined) {
        // The braces come with the first member, a comma with each later one.
        fieldsBytes += (fields === undefined ? 2 : 1) + FIELD_NAME_BYTES[i]! + 1 + fieldValueBytes(out);
        fields ??= {};
        fields[name] = out;
      }
    }
    if (fields !== undefined) {
      rec.fields = fields;
      bytes += FIELDS_MEMBER_BYTES + fieldsBytes;
    }
    if (truncated) {
      rec.truncated = true;
      bytes += TRUNCATED_TRUE_BYTES;
    }
    this.bytes = bytes;
    this.pem = pemShape(stripped);
    return rec;
  }
}

/**
 * A line record with its required members, in their order. Not made by an object literal: V8
 * allocates the objects of a literal straight in the old generation once they tend to outlive young
 * collections (pretenuring), and every record of a page lives until the page is serialized; there
 * each record pays a write barrier for each young string stored in it and waits for a full
 * collection to be freed (P1 ran ~20 % slower with its records pretenured).
 */
function lineRecord(time: string | null, kind: LineKind, level: RecordLevel, message: string): LineRecord {
  const rec = new Object() as LineRecord;
  rec.type = "line";
  rec.time = time;
  rec.kind = kind;
  rec.level = level;
  rec.message = message;
  return rec;
}

/** One line classified on its own (`run` carries the JSON bracket depth from line to line). */
export function classifyLine(raw: string, ctx: ClassifyContext, run: JsonRunState): Classified {
  const classifier = new LineClassifier(ctx, run);
  const rec = classifier.line(raw, null);
  if (rec.type === "withheld") return { content: rec, pem: classifier.pem };
  const { time: _, ...content } = rec;
  return { content, pem: classifier.pem };
}

/** Nesting deeper than MAX_JSON_DEPTH; stops descending as soon as the limit is passed. */
function tooDeep(v: unknown, depth: number): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (depth > MAX_JSON_DEPTH) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (tooDeep(x, depth + 1)) return true;
    return false;
  }
  for (const k in v) if (tooDeep((v as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

type Obj = Record<string, unknown>;

const stringOr = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
