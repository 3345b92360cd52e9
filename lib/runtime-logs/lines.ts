/**
 * Splitting a driver chunk into lines (docs/pipeline.md §1, §5a). A byte-cut read loses its partial last
 * line here, before anything else looks at it; only its timestamp is kept (for the stall rule). The
 * cluster is not trusted to honour `tailLines`: only the last `maxLines` complete lines are parsed,
 * found by scanning back from the end, so a body of a million lines costs no per-line work beyond
 * its tail.
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
  /**
   * Lines the read returned as far as they were counted: the dropped partial one included, and one
   * more than `maxLines` when the body held more (to tell a full read).
   */
  returned: number;
  /** The body held more complete lines than `maxLines`; the earliest were dropped unparsed. */
  capped: boolean;
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

/**
 * Complete lines of `text` (at most the last `maxLines`), the partial last line of a byte-cut read
 * dropped. Linear in the bytes of the kept tail, plus one backward scan.
 */
export function splitChunk(
  text: string,
  truncated: boolean,
  maxLines = Number.POSITIVE_INFINITY,
): SplitChunk {
  // `end`: just past the last complete line.
  let end = text.length;
  let partial = 0;
  let partialTime: ParsedTime | null = null;
  if (truncated && end > 0 && text.charCodeAt(end - 1) !== 10) {
    const nl = text.lastIndexOf("\n");
    partialTime = parseTimestamp(text.slice(nl + 1));
    end = nl + 1;
    partial = 1;
  }
  // Scan back over at most `maxLines` lines for where the kept tail starts.
  let start = 0;
  let capped = false;
  if (end > 0 && maxLines < Number.POSITIVE_INFINITY) {
    let lineEnd = text.charCodeAt(end - 1) === 10 ? end - 1 : end;
    for (let kept = 1; ; kept++) {
      const nl = lineEnd > 0 ? text.lastIndexOf("\n", lineEnd - 1) : -1;
      if (kept >= maxLines) {
        start = nl + 1;
        capped = nl >= 0;
        break;
      }
      if (nl < 0) break;
      lineEnd = nl;
    }
  }
  const parts = start === end ? [] : text.slice(start, end).split("\n");
  if (parts.length > 0 && parts[parts.length - 1] === "" && text.charCodeAt(end - 1) === 10) parts.pop();
  const lines = new Array<RawLine>(parts.length);
  for (let i = 0; i < parts.length; i++) lines[i] = parseLine(parts[i]!);
  return { lines, returned: lines.length + partial + (capped ? 1 : 0), capped, partialTime };
}
