/**
 * Escaped key characters (docs/redaction.md § Shadow): a letter, digit, `_`, `-` or `.` written as a
 * JSON/JS escape at any depth (`p\u0061ssword`, `p\\u0061ssword`), percent-encoded once or twice
 * (`p%61ssword`, `p%2561ssword`) or as an HTML character reference (`p&#97;ssword`, `p&#x61;ssword`)
 * reads as that character in the shadow, so the words and keys of the rules see through it. Other
 * escaped characters stay as written: the grammar reads escaped quotes and separators itself.
 */
import { scratchUnits, utf16Text } from "./scan.ts";
import type { Shadow } from "./shadow.ts";

/** The trigger words of an escape that may stand for a key character (rule.ts: `.` is any). */
export const ESCAPE_WORDS = ["\\u00", "%2", "%4", "%5", "%6", "%7", "&#"];

const isKeyCode = (c: number): boolean =>
  (c >= /* 0 */ 48 && c <= /* 9 */ 57) ||
  (c >= /* A */ 65 && c <= /* Z */ 90) ||
  (c >= /* a */ 97 && c <= /* z */ 122) ||
  c === /* _ */ 95 ||
  c === /* - */ 45 ||
  c === /* . */ 46;

/** The value of a hex digit's code, or -1. */
export const hexValue = (c: number): number =>
  c >= /* 0 */ 48 && c <= /* 9 */ 57
    ? c - 48
    : c >= /* A */ 65 && c <= /* F */ 70
      ? c - 55
      : c >= /* a */ 97 && c <= /* f */ 102
        ? c - 87
        : -1;

/** The character of the escape at `i` and its length (`code << 8 | length`), or -1 if none is there. */
function escapeAt(t: string, i: number): number {
  const c = t.charCodeAt(i);
  let code = -1;
  let end = -1;
  if (c === /* backslash */ 92) {
    // `\u00XX` after any number of backslashes (JSON escaped again).
    let j = i + 1;
    while (t.charCodeAt(j) === /* backslash */ 92 && j - i < 16) j++;
    const u = t.charCodeAt(j);
    if ((u === /* u */ 117 || u === /* U */ 85) && t.charCodeAt(j + 1) === 48 && t.charCodeAt(j + 2) === 48) {
      const hi = hexValue(t.charCodeAt(j + 3));
      const lo = hexValue(t.charCodeAt(j + 4));
      if (hi >= 0 && lo >= 0) {
        code = hi * 16 + lo;
        end = j + 5;
      }
    }
  } else if (c === /* % */ 37) {
    // `%XX`, or `%25XX` (percent-encoded twice).
    let j = i + 1;
    if (t.charCodeAt(j) === /* 2 */ 50 && t.charCodeAt(j + 1) === /* 5 */ 53) {
      const hi = hexValue(t.charCodeAt(j + 2));
      const lo = hexValue(t.charCodeAt(j + 3));
      if (hi >= 0 && lo >= 0) j += 2;
    }
    const hi = hexValue(t.charCodeAt(j));
    const lo = hexValue(t.charCodeAt(j + 1));
    if (hi >= 0 && lo >= 0) {
      code = hi * 16 + lo;
      end = j + 2;
    }
  } else if (c === /* & */ 38) {
    const ref = numericReference(t, i);
    if (ref >= 0) {
      code = ref >> 8;
      end = i + (ref & 0xff);
    }
  }
  return end > i && isKeyCode(code) ? (code << 8) | (end - i) : -1;
}

/**
 * The HTML numeric character reference at `i` (`&#97;`, `&#x61;`, leading zeros allowed, the `;`
 * optional as browsers read it: the digits run as far as they go) as `code << 8 | length`, or -1.
 */
export function numericReference(t: string, i: number): number {
  if (t.charCodeAt(i) !== /* & */ 38 || t.charCodeAt(i + 1) !== /* # */ 35) return -1;
  const x = t.charCodeAt(i + 2);
  const hex = x === /* x */ 120 || x === /* X */ 88;
  let j = hex ? i + 3 : i + 2;
  let value = 0;
  const start = j;
  for (; j - start < 8; j++) {
    const d = hex ? hexValue(t.charCodeAt(j)) : t.charCodeAt(j) - 48;
    if (d < 0 || d > (hex ? 15 : 9)) break;
    value = value * (hex ? 16 : 10) + d;
  }
  if (j === start || value > 0x10ffff) return -1;
  if (t.charCodeAt(j) === /* ; */ 59) j++;
  return (value << 8) | (j - i);
}

/**
 * A superset of the escapes of key characters, ending at the escape's first character: a backslash
 * before `u00` and a hex digit, `%` before a hex pair (once or twice encoded), `&#` before a digit.
 */
const ESCAPE_HINT = /[\\%&](?=[uU]00[0-9a-fA-F]|(?:25)?[2-7][0-9a-fA-F]|#[xX]?[0-9])/g;

/**
 * The maps of the last decoding, in memory reused from call to call (grown to the next power of
 * two, kept up to 1 Mi characters): fresh typed arrays of a long line's size on every call are
 * external memory, whose pressure alone sets off full collections. A decoding's maps live until the
 * next call, which the one synchronous `redact` that asked for them never makes.
 */
let maps = { from: new Int32Array(1024), to: new Int32Array(1024) };

function mapsFor(n: number): typeof maps {
  if (n <= maps.from.length) return maps;
  const size = 2 ** Math.ceil(Math.log2(n));
  const grown = { from: new Int32Array(size), to: new Int32Array(size) };
  if (size <= 1 << 20) maps = grown;
  return grown;
}

/** Whether `c` may start an escape. */
const opensEscape = (c: number): boolean => c === /* backslash */ 92 || c === /* % */ 37 || c === /* & */ 38;

/**
 * `shadow` with every escaped key character read as itself, its map composed so it still leads to
 * the original text; null when there is none. One pass over the characters, no allocation per
 * escape: a line of 10 000 escapes costs what any 32 KiB line does.
 */
export function decodeKeyEscapes(shadow: Shadow): Shadow | null {
  const t = shadow.text;
  const n = t.length;
  // Where the first escape may be, found natively (the trigger words are looser).
  ESCAPE_HINT.lastIndex = 0;
  if (!ESCAPE_HINT.test(t)) return null;
  let first = ESCAPE_HINT.lastIndex - 1;
  while (t.charCodeAt(first) === /* backslash */ 92 && t.charCodeAt(first - 1) === 92) first--;
  while (first < n && !(opensEscape(t.charCodeAt(first)) && escapeAt(t, first) >= 0)) first++;
  if (first >= n) return null;
  const units = scratchUnits(n);
  const { from, to } = mapsFor(n);
  let o = 0;
  for (let i = 0; i < first; i++, o++) {
    units[o] = t.charCodeAt(i);
    from[o] = i;
    to[o] = i + 1;
  }
  for (let i = first; i < n; o++) {
    const c = t.charCodeAt(i);
    const e = opensEscape(c) ? escapeAt(t, i) : -1;
    from[o] = i;
    if (e >= 0) {
      units[o] = e >> 8;
      i += e & 0xff;
    } else {
      units[o] = c;
      i++;
    }
    to[o] = i;
  }
  const { start, end } = shadow;
  if (start !== null && end !== null) {
    for (let k = 0; k < o; k++) {
      from[k] = start[from[k]!]!;
      to[k] = end[to[k]! - 1]!;
    }
  }
  return {
    text: utf16Text(units.subarray(0, o)),
    start: from.subarray(0, o),
    end: to.subarray(0, o),
    invisible: shadow.invisible,
  };
}
