/**
 * The matching shadow (docs/redaction.md). Rules match on a copy of the text in which invisible
 * characters and terminal colour sequences are removed and compatibility forms folded (NFKC per character: NBSP → space,
 * fullwidth → ASCII), so `pass\u200bword=…` or a fullwidth `ｐａｓｓｗｏｒｄ` is still a password. An
 * index map leads each shadow character back to the original character it came from, so a span
 * masked on the shadow masks the corresponding span of the original.
 */
import { scratchUnits, sourceUnits, utf16Text } from "./scan.ts";
import { formatEnd, holdsFormat } from "./terminal.ts";

/**
 * Invisible characters: every format character (`Cf`: zero-width space and joiners, soft hyphen,
 * word joiner, bidi controls, BOM, tag characters…), variation selectors, the combining grapheme
 * joiner and the Hangul fillers. The shadow drops them; the output shows them escaped.
 */
const INVISIBLE_SOURCE = "\\p{Cf}\\u034f\\u115f\\u1160\\u3164\\uffa0\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}";
const INVISIBLE_G = new RegExp(`[${INVISIBLE_SOURCE}]`, "gu");
/**
 * The same set tested as two native scans, about twice as fast over long text as the one class:
 * the format characters, then the others (the variation selectors supplement as UTF-16 pairs).
 */
const FORMAT = /\p{Cf}/u;
const OTHER_INVISIBLE_SOURCE =
  "[\\u034f\\u115f\\u1160\\u3164\\uffa0\\ufe00-\\ufe0f]|\\udb40[\\udd00-\\uddef]";
const OTHER_INVISIBLE = new RegExp(OTHER_INVISIBLE_SOURCE);

/** Whether `s` holds an invisible character. */
export const holdsInvisible = (s: string): boolean => FORMAT.test(s) || OTHER_INVISIBLE.test(s);
const NON_ASCII_G = /[^\x00-\x7f]+/g;

export interface Shadow {
  /** The text rules match on. */
  text: string;
  /**
   * For shadow character `i`, the original span it came from: `[start[i], end[i])`; `null` when the
   * shadow is the original text itself (then the map is the identity).
   */
  start: Int32Array | null;
  end: Int32Array | null;
  /** Whether the original holds invisible characters (they must be escaped on the way out). */
  invisible: boolean;
}

/** Per-character folds by code point, remembered: a hostile line repeats a few characters many times. */
const FOLDS = new Map<number, string>();
const MAX_FOLDS = 4096;

function fold(cp: number): string {
  let f = FOLDS.get(cp);
  if (f === undefined) {
    f = String.fromCodePoint(cp).normalize("NFKC");
    if (holdsInvisible(f)) f = f.replace(INVISIBLE_G, "");
    if (FOLDS.size < MAX_FOLDS) FOLDS.set(cp, f);
  }
  return f;
}

/**
 * Whether `s` is ASCII: its own shadow (no invisible or compatibility character is ASCII), with no
 * character to neutralize. Its UTF-8 length is its length exactly then, and V8 counts that natively,
 * several times faster than a regex scans it.
 */
export const isAscii = (s: string): boolean => Buffer.byteLength(s, "utf8") === s.length;

/** The shortest run of ASCII the shadow copies whole. */
const BULK_RUN = 32;

/** `RAMP[i] === i`, grown as needed: the map of a run of ASCII is copied from it. */
let RAMP = new Int32Array(0);

function rampTo(n: number): Int32Array {
  if (RAMP.length < n) {
    RAMP = new Int32Array(2 ** Math.ceil(Math.log2(n)));
    for (let i = 0; i < RAMP.length; i++) RAMP[i] = i;
  }
  return RAMP;
}

/**
 * The shadow of `s` (`ascii`: whether `s` is ASCII, if the caller knows). ASCII, and text that is
 * already NFKC without invisibles, is its own shadow.
 */
export function shadowOf(s: string, ascii = isAscii(s)): Shadow {
  const sequences = holdsFormat(s);
  if (ascii && !sequences) return { text: s, start: null, end: null, invisible: false };
  const invisible = !ascii && holdsInvisible(s);
  if (!invisible && !sequences && allStable(s)) return { text: s, start: null, end: null, invisible };
  // Worst case a character folds to a few more (ligatures, squared words): grow on demand. The
  // shadow's units go to scratch memory and become one string at the end (a piece per run or per
  // character costs more to join than the folding itself on a line of thousands).
  let cap = s.length + 16;
  let start = new Int32Array(cap);
  let end = new Int32Array(cap);
  let units = scratchUnits(cap);
  let n = 0;
  const from = sourceUnits(s);
  const ramp = rampTo(s.length + 1);
  for (let i = 0; i < s.length; ) {
    // A run of ASCII (up to an escape sequence's ESC) maps one to one: a long one is copied whole
    // with its map, natively; a short one a character at a time (three views per run cost more
    // than that where ASCII and folded characters alternate, `ｔ\n` repeated).
    let j = i;
    while (j < s.length && from[j]! < 0x80 && from[j] !== 0x1b) j++;
    if (j - i >= BULK_RUN) {
      units.set(from.subarray(i, j), n);
      start.set(ramp.subarray(i, j), n);
      end.set(ramp.subarray(i + 1, j + 1), n);
      n += j - i;
      i = j;
      continue;
    }
    for (; i < j; i++, n++) {
      units[n] = from[i]!;
      start[n] = i;
      end[n] = i + 1;
    }
    if (i === s.length) break;
    const c = from[i]!;
    if (c === 0x1b || c === 0x9b) {
      // Colour is formatting: the shadow reads through it.
      const past = formatEnd(s, i);
      if (past > 0) {
        i = past;
        continue;
      }
    }
    if (c < 0x80) {
      // An ESC that starts no sequence maps one to one, as other ASCII does.
      units[n] = c;
      start[n] = i;
      end[n] = i + 1;
      n++;
      i++;
      continue;
    }
    // Every other character folded on its own (remembered).
    const cp = s.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    const f = fold(cp);
    if (n + f.length + (s.length - i) > cap) {
      cap = Math.max(cap * 2, n + f.length + (s.length - i));
      const s2 = new Int32Array(cap);
      const e2 = new Int32Array(cap);
      s2.set(start.subarray(0, n));
      e2.set(end.subarray(0, n));
      start = s2;
      end = e2;
      if (cap > units.length) {
        const more = scratchUnits(cap);
        more.set(units.subarray(0, n));
        units = more;
      }
    }
    for (let k = 0; k < f.length; k++) {
      units[n] = f.charCodeAt(k);
      start[n] = i;
      end[n] = i + w;
      n++;
    }
    i += w;
  }
  return { text: utf16Text(units.subarray(0, n)), start, end, invisible };
}

/**
 * Whether every non-ASCII character of `s` is its own fold (ASCII never changes): character by
 * character through the remembered folds, so a line of foldable characters is found at its first.
 */
function allStable(s: string): boolean {
  NON_ASCII_G.lastIndex = 0;
  for (let m = NON_ASCII_G.exec(s); m !== null; m = NON_ASCII_G.exec(s)) {
    const run = m[0];
    for (let i = 0; i < run.length; ) {
      const cp = run.codePointAt(i)!;
      const f = fold(cp);
      const w = cp > 0xffff ? 2 : 1;
      if (f.length !== w || f.codePointAt(0) !== cp) return false;
      i += w;
    }
  }
  return true;
}

/** Each invisible character's escape by code point, or "" for a visible one; remembered. */
const ESCAPES = new Map<number, string>();

function escapeOf(cp: number): string {
  let e = ESCAPES.get(cp);
  if (e === undefined) {
    const ch = String.fromCodePoint(cp);
    e = holdsInvisible(ch) ? `\\u{${cp.toString(16).toUpperCase()}}` : "";
    if (ESCAPES.size < MAX_FOLDS) ESCAPES.set(cp, e);
  }
  return e;
}

/**
 * Invisible characters written as visible escapes (`\u{200B}`), as the CLI shows them. One pass
 * over the non-ASCII characters with their escapes remembered (a regex replace calls back per
 * character: half a microsecond each on a line of them).
 */
export function neutralizeInvisible(s: string): string {
  if (!holdsInvisible(s)) return s;
  let out = "";
  let from = 0;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      i++;
      continue;
    }
    const cp = s.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    const e = escapeOf(cp);
    if (e !== "") {
      out += s.slice(from, i) + e;
      from = i + w;
    }
    i += w;
  }
  return out + s.slice(from);
}
