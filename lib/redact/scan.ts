/** Character classes, span helpers, the ledger and the code copy the rules share. Every helper is a linear scan. */

export const isAlnum = (c: number): boolean =>
  (c >= /* 0 */ 48 && c <= /* 9 */ 57) ||
  (c >= /* A */ 65 && c <= /* Z */ 90) ||
  (c >= /* a */ 97 && c <= /* z */ 122);
export const isTokenChar = (c: number): boolean => isAlnum(c) || c === /* _ */ 95 || c === /* - */ 45;
export const isKeyChar = (c: number): boolean => isTokenChar(c) || c === /* . */ 46;
export const isSpace = (c: number): boolean => c <= /* space */ 0x20;
export const isPlaceholder = (c: number): boolean => c >= 0xe000 && c <= 0xf8ff;

export const isLetter = (c: number): boolean =>
  (c >= /* A */ 65 && c <= /* Z */ 90) || (c >= /* a */ 97 && c <= /* z */ 122);

/**
 * The ledger of the text the chain is working on: for each placeholder in it, in order, where it
 * is and how many characters of the shadow it stands for. A masked span shrinks to one placeholder,
 * so later rules scan less (a mask to the end of a 32 KiB line leaves them almost nothing), and the
 * ledger leads every placeholder back to its span. Module state: one `redact` call at a time,
 * synchronously.
 */
export interface Ledger {
  /** Index of each placeholder in the current text. */
  readonly at: readonly number[];
  /** Shadow characters each placeholder stands for. */
  readonly covers: readonly number[];
  /** Whether the text is ASCII apart from its placeholders. */
  readonly ascii: boolean;
}

let ledger: Ledger = { at: [], covers: [], ascii: false };

/** Start a fresh ledger for a text without placeholders (`ascii`: known to hold only ASCII). */
export function startLedger(ascii = false): void {
  ledger = { at: [], covers: [], ascii };
}

/** The ledger of the current text. */
export function currentLedger(): Ledger {
  return ledger;
}

/**
 * Replace sorted, non-overlapping [start, end) spans of `s` with their one-character marker, and
 * keep the ledger in step (a span that swallows earlier placeholders stands for all they covered).
 */
export function splice(s: string, spans: number[], reps: string[]): string {
  if (reps.length === 0) return s;
  const { at, covers } = ledger;
  const nextAt: number[] = [];
  const nextCovers: number[] = [];
  let li = 0;
  /** How much shorter the new text is than `s` before the current span. */
  let shift = 0;
  for (let k = 0; k < reps.length; k++) {
    const start = spans[2 * k]!;
    const end = spans[2 * k + 1]!;
    for (; li < at.length && at[li]! < start; li++) {
      nextAt.push(at[li]! - shift);
      nextCovers.push(covers[li]!);
    }
    let covered = end - start;
    for (; li < at.length && at[li]! < end; li++) covered += covers[li]! - 1;
    nextAt.push(start - shift);
    nextCovers.push(covered);
    shift += end - start - 1;
  }
  for (; li < at.length; li++) {
    nextAt.push(at[li]! - shift);
    nextCovers.push(covers[li]!);
  }
  ledger = { at: nextAt, covers: nextCovers, ascii: ledger.ascii };
  if (LITTLE_ENDIAN && manySpans(reps.length, s.length)) return spliceByUnits(s, spans, reps);
  // Pieces joined once: appending thousands of pieces to one string is quadratic-ish in V8.
  const out: string[] = [];
  let from = 0;
  for (let k = 0; k < reps.length; k++) {
    out.push(s.slice(from, spans[2 * k]!), reps[k]!);
    from = spans[2 * k + 1]!;
  }
  out.push(s.slice(from));
  return out.join("");
}

/**
 * Whether `count` spans over a text of `length` characters are spliced faster by copying the text
 * through scratch memory (about a nanosecond a character) than by joining its pieces (tens of
 * nanoseconds a piece).
 */
export const manySpans = (count: number, length: number): boolean => count >= 64 && 32 * count >= length;

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** `splice`'s text for many spans: `s` copied as UTF-16 into scratch memory, then copied past it with the markers. */
function spliceByUnits(s: string, spans: number[], reps: string[]): string {
  const n = s.length;
  // The new text is no longer than `s` plus one marker per (empty) span.
  const { bytes, units } = take(unitScratch, 2 * (2 * n + reps.length));
  bytes.write(s, 0, 2 * n, "utf16le");
  let o = n;
  let from = 0;
  for (let k = 0; k < reps.length; k++) {
    const start = spans[2 * k]!;
    for (let i = from; i < start; i++) units[o++] = units[i]!;
    units[o++] = reps[k]!.charCodeAt(0);
    from = spans[2 * k + 1]!;
  }
  for (let i = from; i < n; i++) units[o++] = units[i]!;
  return bytes.toString("utf16le", 2 * n, 2 * o);
}

/** Whether [a, b) is exactly one run of one placeholder (an earlier redaction or a pseudonym). */
export function isOneMark(s: string, a: number, b: number): boolean {
  const c = s.charCodeAt(a);
  if (b <= a || !isPlaceholder(c)) return false;
  for (let i = a + 1; i < b; i++) if (s.charCodeAt(i) !== c) return false;
  // A run that continues past `b` was cut: not a whole value.
  return s.charCodeAt(b) !== c && s.charCodeAt(a - 1) !== c;
}

/**
 * A native search for the first character of a class at or after `i` (or the end), remembering
 * the last run it crossed: the keys inside one long value (`keyboard=keyboard=…`) each ask where
 * the value ends, and without the memory each would scan the rest of the line again (quadratic).
 * The memory is of one text: `===` on the same string object compares no characters; another
 * text replaces it (an equal text in another object is compared once, then kept instead).
 */
export function firstOfClass(re: RegExp): (s: string, i: number) => number {
  let text = "";
  let from = 0;
  let end = 0;
  return (s, i) => {
    if (i >= from && i <= end && s === text) {
      // Equal text in another string object compares its characters: keep this object, so the
      // next call compares none.
      text = s;
      return end;
    }
    re.lastIndex = i;
    const found = re.test(s) ? re.lastIndex - 1 : s.length;
    text = s;
    from = i;
    end = found;
    return found;
  };
}

/**
 * `firstOfClass` for a pattern of several characters: where its first match at or after `i` starts,
 * or -1, remembering the last answer the same way (a later search from before that match, or from
 * anywhere when there was none, is answered without scanning).
 */
export function firstMatch(re: RegExp): (s: string, i: number) => number {
  let text = "";
  let from = 0;
  let at = -1;
  return (s, i) => {
    if (i >= from && (at < 0 || i <= at) && s === text) {
      text = s;
      return at;
    }
    re.lastIndex = i;
    const m = re.exec(s);
    text = s;
    from = i;
    at = m === null ? -1 : m.index;
    return at;
  };
}

/** Whitespace as `isSpace` has it, searched natively. */
const nextSpace = firstOfClass(/[\x00-\x20]/g);

/**
 * Index of the first whitespace at or after `i` (or the end): a few characters looked at here,
 * then searched natively, which is several times faster over a long run (a value to the end of a
 * 32 KiB line) but costs a call.
 */
export function spaceFrom(s: string, i: number): number {
  const n = s.length;
  for (const stop = Math.min(n, i + 16); i < stop; i++) if (isSpace(s.charCodeAt(i))) return i;
  return i >= n ? n : nextSpace(s, i);
}

export function skipBlanks(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== /* space */ 32 && c !== /* tab */ 9) break;
    i++;
  }
  return i;
}

export function onlyPlaceholders(s: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if (!isPlaceholder(c) && !isSpace(c)) return false;
  }
  return true;
}

/** ASCII alphabet table: bit 1 standard base64 `[A-Za-z0-9+/]`, bit 2 base64url `[A-Za-z0-9_-]`. */
export const ALPHABET = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (isAlnum(c) || c === /* + */ 43 || c === /* slash */ 47) ALPHABET[c]! |= 1;
  if (isTokenChar(c)) ALPHABET[c]! |= 2;
}

/** A span `[start, end)` found by a rule, and the marker that replaces it. */
export type Found = readonly [start: number, end: number, marker: string];

/**
 * `splice` for spans found by several scans, in any order: sorted, and of overlapping spans the
 * first kept.
 */
export function spliceFound(s: string, found: Found[]): string {
  if (found.length === 0) return s;
  found.sort((a, b) => a[0] - b[0]);
  const spans: number[] = [];
  const reps: string[] = [];
  let last = -1;
  for (const [a, b, marker] of found) {
    if (a < last) continue;
    spans.push(a, b);
    reps.push(marker);
    last = b;
  }
  return splice(s, spans, reps);
}

/**
 * Whether a placeholder of the ledger in `s` touches a character of either alphabet (or another
 * placeholder): only then can it join or complete a run (`joinsMarks`).
 */
export function marksTouchRuns(s: string): boolean {
  const inRun = (c: number): boolean => (c < 128 ? ALPHABET[c] !== 0 : isPlaceholder(c));
  for (const at of ledger.at) if (inRun(s.charCodeAt(at - 1)) || inRun(s.charCodeAt(at + 1))) return true;
  return false;
}

/**
 * Scratch memory reused from call to call: grown to the next power of two that fits, and kept
 * while no larger than 4 MiB (a larger need gets memory of its own each time). A need that outgrew
 * the kept memory by a little must not allocate (and zero) fresh memory on every call.
 */
class Scratch {
  /** Views of the whole memory. */
  readonly bytes: Buffer;
  readonly codes: Uint8Array;
  readonly units: Uint16Array;

  constructor(size = 64 * 1024) {
    const memory = new ArrayBuffer(size);
    this.bytes = Buffer.from(memory);
    this.codes = new Uint8Array(memory);
    this.units = new Uint16Array(memory);
  }
}

/** Scratch memory with room for `bytes` bytes from `kept`, which is replaced when it grows. */
function take(kept: { scratch: Scratch }, bytes: number): Scratch {
  if (bytes <= kept.scratch.bytes.length) return kept.scratch;
  const size = 2 ** Math.ceil(Math.log2(bytes));
  const scratch = new Scratch(size);
  if (size <= 4 * 1024 * 1024) kept.scratch = scratch;
  return scratch;
}

const codeScratch = { scratch: new Scratch() };
const unitScratch = { scratch: new Scratch() };

/**
 * Scratch UTF-16 units with room for `count`, for building one string at a time: each builder (the
 * shadow, the escape decoder, `assemble`, `splice`) makes its string (`utf16Text`) before it returns,
 * so none holds the memory while another takes it.
 */
export function scratchUnits(count: number): Uint16Array {
  return take(unitScratch, 2 * count).units;
}

const BIG_ENDIAN_UTF16 = LITTLE_ENDIAN ? null : new TextDecoder("utf-16be");

/** UTF-16 units as a string, copied natively (Buffer's copy where the platform is little-endian). */
export function utf16Text(units: Uint16Array): string {
  return BIG_ENDIAN_UTF16 === null
    ? Buffer.from(units.buffer, units.byteOffset, units.length * 2).toString("utf16le")
    : BIG_ENDIAN_UTF16.decode(units);
}

/**
 * `s` as one code per UTF-16 unit, followed by two zero codes, in scratch memory that the next call
 * reuses (the array returned runs on past them): ASCII as itself, a placeholder as `mark`, any
 * other character as `other`. Text known to be ASCII is copied natively; other text natively as
 * UTF-16 first (after the codes), then cut in a typed-array loop.
 */
export function codesOf(s: string, ascii: boolean, other: number, mark: number): Uint8Array {
  const n = s.length;
  /** Where the UTF-16 units go: past the codes, at an even byte. */
  const unitsAt = 2 * Math.ceil((n + 2) / 2);
  const { bytes, codes, units } = take(codeScratch, unitsAt + 2 * n);
  if (ascii) {
    bytes.write(s, 0, n, "latin1");
  } else {
    bytes.write(s, unitsAt, 2 * n, "utf16le");
    for (let i = 0, u = unitsAt / 2; i < n; i++, u++) {
      const c = units[u]!;
      codes[i] = c < 128 ? c : isPlaceholder(c) ? mark : other;
    }
  }
  codes[n] = 0;
  codes[n + 1] = 0;
  return codes;
}

/**
 * `s` copied into a flat string (`ascii`: `s` is known to be ASCII, copied a byte a character). A
 * long line usually arrives as a rope or as a slice of a body (pieces joined, `split`), and V8 reads
 * such a string a character at a time through a hop per character; the rules read each character
 * several times.
 */
export function flatText(s: string, ascii: boolean): string {
  const n = s.length;
  const { bytes } = take(codeScratch, 2 * n);
  if (ascii) {
    bytes.write(s, 0, n, "latin1");
    return bytes.toString("latin1", 0, n);
  }
  bytes.write(s, 0, 2 * n, "utf16le");
  return bytes.toString("utf16le", 0, 2 * n);
}

/**
 * `s` as UTF-16 units, copied natively into the scratch memory `codesOf` and `flatText` use (so
 * valid until either is called).
 */
export function sourceUnits(s: string): Uint16Array {
  const { bytes, units } = take(codeScratch, 2 * s.length);
  bytes.write(s, 0, 2 * s.length, "utf16le");
  return units.subarray(0, s.length);
}

/** Code of a non-ASCII character in `textCodes`, and of a placeholder. */
export const OTHER_CODE = 128;
export const MARK_CODE = 129;

/**
 * The codes of the chain's current text `s` (see `codesOf`): an ASCII text is copied natively
 * (its placeholders cut to their low byte) and its placeholders then set from the ledger.
 */
export function textCodes(s: string): Uint8Array {
  const codes = codesOf(s, ledger.ascii, OTHER_CODE, MARK_CODE);
  if (ledger.ascii) for (const i of ledger.at) codes[i] = MARK_CODE;
  return codes;
}
