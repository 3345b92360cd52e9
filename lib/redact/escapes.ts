/**
 * Escaped key characters (docs/redaction.md § Shadow): a letter, digit, `_`, `-` or `.` written as a
 * JSON/JS escape at any depth (`p\u0061ssword`, `p\\u0061ssword`), percent-encoded once or twice
 * (`p%61ssword`, `p%2561ssword`) or as an HTML character reference (`p&#97;ssword`, `p&#x61;ssword`)
 * reads as that character in the shadow, so the words and keys of the rules see through it. Other
 * escaped characters stay as written: the grammar reads escaped quotes and separators itself.
 */
import type { Shadow } from "./shadow.ts";

/** The escapes whose character may be a key character; the character is checked after the match. */
const ESCAPE_G =
  /\\+u00([2-7][0-9a-f])|%(?:25)?([2-7][0-9a-f])|&#(?:x0*([2-7][0-9a-f])|0*([4-9][0-9]|1[01][0-9]|12[0-2]));/gi;

/** The trigger words of an escape that may stand for a key character (rule.ts: `.` is any). */
export const ESCAPE_WORDS = ["\\u00", "%2", "%4", "%5", "%6", "%7", "&#"];

const isKeyCode = (c: number): boolean =>
  (c >= /* 0 */ 48 && c <= /* 9 */ 57) ||
  (c >= /* A */ 65 && c <= /* Z */ 90) ||
  (c >= /* a */ 97 && c <= /* z */ 122) ||
  c === /* _ */ 95 ||
  c === /* - */ 45 ||
  c === /* . */ 46;

/**
 * `shadow` with every escaped key character read as itself, its map composed so it still leads to
 * the original text; null when there is none.
 */
export function decodeKeyEscapes(shadow: Shadow): Shadow | null {
  const t = shadow.text;
  const pieces: string[] = [];
  /** For each character of the decoded text: the span of `t` it came from. */
  let from: Int32Array | null = null;
  let to: Int32Array | null = null;
  let n = 0;
  let pos = 0;
  const copy = (a: number, b: number): void => {
    for (let i = a; i < b; i++, n++) {
      from![n] = i;
      to![n] = i + 1;
    }
  };
  ESCAPE_G.lastIndex = 0;
  for (let m = ESCAPE_G.exec(t); m !== null; m = ESCAPE_G.exec(t)) {
    const hex = m[1] ?? m[2] ?? m[3];
    const code = hex !== undefined ? Number.parseInt(hex, 16) : Number(m[4]);
    if (!isKeyCode(code)) continue;
    if (from === null) {
      from = new Int32Array(t.length);
      to = new Int32Array(t.length);
    }
    copy(pos, m.index);
    pieces.push(t.slice(pos, m.index), String.fromCharCode(code));
    pos = m.index + m[0].length;
    from[n] = m.index;
    to![n] = pos;
    n++;
  }
  if (from === null || to === null) return null;
  copy(pos, t.length);
  pieces.push(t.slice(pos));
  const { start, end } = shadow;
  if (start !== null && end !== null) {
    for (let i = 0; i < n; i++) {
      from[i] = start[from[i]!]!;
      to[i] = end[to[i]! - 1]!;
    }
  }
  return { text: pieces.join(""), start: from, end: to, invisible: shadow.invisible };
}
