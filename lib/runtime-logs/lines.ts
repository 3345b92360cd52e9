/**
 * Splitting a driver chunk into lines (docs/pipeline.md §1, §5a). A byte-cut read loses its partial last
 * line here, before anything else looks at it; only its timestamp is kept (for the stall rule). The
 * cluster is not trusted to honour `tailLines`: only the last `maxLines` complete lines are parsed,
 * found by scanning back from the end, so a body of a million lines costs no per-line work beyond
 * its tail.
 */
import { type ParsedTime, parseTimestamp } from "./time.ts";

/**
 * A cursor poll reads up to this many lines since its frontier, whatever tail the view started with:
 * the view's tailLines bounds only its first page, so a small tail never reports a gap that did not
 * happen (docs/pipeline.md §5).
 */
export const RESUME_TAIL_LINES = 1000;

export interface RawLine {
  /** The whole line as read (timestamp included); what line hashes cover. */
  readonly raw: string;
  /** UTC time with original fraction digits, or null when untimed. */
  readonly time: string | null;
  /** Comparison key of `time`, or null. */
  readonly key: string | null;
  /** The text after the timestamp and its space (the whole line when untimed). */
  readonly text: string;
}

/**
 * A line of a chunk: its time and key parsed once, its whole text and the text after its timestamp
 * cut from the chunk only when asked for (a page hashes few of its lines and classifies each once),
 * so the lines of a 1 MiB read hold no substrings nothing looks at.
 */
class ChunkLine implements RawLine {
  readonly time: string | null;
  readonly key: string | null;
  private readonly chunk: string;
  private readonly start: number;
  private readonly textStart: number;
  private readonly end: number;

  /** The line `chunk[start, end)`: a newline or the chunk's end follows it. */
  constructor(chunk: string, start: number, end: number) {
    this.chunk = chunk;
    this.start = start;
    this.end = end;
    const t = parseTimestamp(chunk, start);
    if (t !== null && (t.end === end || chunk.charCodeAt(t.end) === 32)) {
      this.time = t.time;
      this.key = t.key;
      this.textStart = t.end + 1;
    } else {
      this.time = null;
      this.key = null;
      this.textStart = start;
    }
  }

  get raw(): string {
    return this.chunk.slice(this.start, this.end);
  }

  get text(): string {
    return this.chunk.slice(this.textStart, this.end);
  }
}

export interface SplitChunk {
  /** What was split, and how: a split is handed on with the read it came from (`splitRead`). */
  readonly text: string;
  readonly truncated: boolean;
  readonly maxLines: number;
  /** Never changed in place: one split may serve several steps of a poll. */
  readonly lines: readonly RawLine[];
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
  return new ChunkLine(raw, 0, raw.length);
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
  // Each newline ends a line; text after the last one (when `end` is the chunk's end) is one more.
  const lines: RawLine[] = [];
  for (let from = start; from < end; ) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = end;
    lines.push(new ChunkLine(text, from, nl));
    from = nl + 1;
  }
  return {
    text,
    truncated,
    maxLines,
    lines,
    returned: lines.length + partial + (capped ? 1 : 0),
    capped,
    partialTime,
  };
}

/**
 * `read` split keeping at most `maxLines` lines: `known` when it is that split already (a cursor poll
 * splits its read once, to tell an idle read and then to build the page).
 */
export function splitRead(
  read: { text: string; truncated: boolean },
  maxLines = Number.POSITIVE_INFINITY,
  known?: SplitChunk,
): SplitChunk {
  return known !== undefined &&
    known.text === read.text &&
    known.truncated === read.truncated &&
    known.maxLines === maxLines
    ? known
    : splitChunk(read.text, read.truncated, maxLines);
}
