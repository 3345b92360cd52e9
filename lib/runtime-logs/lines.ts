/**
 * Splitting a driver chunk into lines (pipeline.md §1). A byte-cut read loses its partial last line
 * here, before anything else looks at it; only its timestamp is kept (for the stall rule).
 */
import { type ParsedTime, parseTimestamp } from "./time.ts";

export interface RawLine {
  /** The whole line as read (timestamp included); what line hashes cover. */
  raw: string;
  /** UTC time with original fraction digits, or null when untimed. */
  time: string | null;
  /** Comparison key of `time`, or null. */
  key: string | null;
  /** The text after the timestamp and its space (the whole line when untimed). */
  text: string;
}

export interface SplitChunk {
  lines: RawLine[];
  /** Lines the read returned, the dropped partial one included (to tell a full read). */
  returned: number;
  /** Timestamp of the dropped partial line, if it had a valid one. */
  partialTime: ParsedTime | null;
}

export function parseLine(raw: string): RawLine {
  const t = parseTimestamp(raw);
  if (t !== null && (t.end === raw.length || raw.charCodeAt(t.end) === 32)) {
    return { raw, time: t.time, key: t.key, text: raw.slice(t.end + 1) };
  }
  return { raw, time: null, key: null, text: raw };
}

export function splitChunk(text: string, truncated: boolean): SplitChunk {
  const parts = text.split("\n");
  let partialTime: ParsedTime | null = null;
  const last = parts.pop();
  let returned = parts.length;
  if (last !== undefined && last !== "") {
    returned++;
    if (truncated) partialTime = parseTimestamp(last);
    else parts.push(last);
  } else if (truncated && last === "" && text.length > 0) {
    // Cut exactly after a newline: nothing partial to drop.
  }
  const lines = new Array<RawLine>(parts.length);
  for (let i = 0; i < parts.length; i++) lines[i] = parseLine(parts[i]!);
  return { lines, returned, partialTime };
}
