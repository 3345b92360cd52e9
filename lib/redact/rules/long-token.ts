/**
 * `long-token`: runs of ≥ 40 characters of standard base64 (then `=` padding) or of base64url that
 * look random (all-hex with digits, or mixing case and digits); plain lowercase paths survive.
 */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { ALPHABET, MARK_CODE, splice, textCodes } from "../scan.ts";

/**
 * Per code (`textCodes`): bit 16 standard base64, bit 32 base64url; what it says of a run's look:
 * bit 1 digit, bit 2 upper case, bit 4 lower case, bit 8 not a hex digit. A placeholder is in both
 * alphabets and says nothing of the look; other non-ASCII characters are in neither.
 */
const CLASS = new Uint8Array(256);
for (let c = 0; c < 128; c++) {
  let t = (ALPHABET[c]! & 1 ? 16 : 0) | (ALPHABET[c]! & 2 ? 32 : 0);
  if (c >= /* 0 */ 48 && c <= /* 9 */ 57) t |= 1;
  else if (c >= /* A */ 65 && c <= /* Z */ 90) t |= c > /* F */ 70 ? 2 | 8 : 2;
  else if (c >= /* a */ 97 && c <= /* z */ 122) t |= c > /* f */ 102 ? 4 | 8 : 4;
  else if (t !== 0) t |= 8;
  CLASS[c] = t;
}
CLASS[MARK_CODE] = 16 | 32;

/** ≥ 40 characters that look random: mixed case and digits, or hex with digits. */
const looksRandom = (length: number, kinds: number): boolean =>
  length >= 40 && ((kinds & 7) === 7 || ((kinds & 1) !== 0 && (kinds & 8) === 0));

/**
 * Spans of ≥ 40-character runs of standard base64 (`[A-Za-z0-9+/]`, then `=` padding) and of
 * base64url (`[A-Za-z0-9_-]`) that look random, both alphabets in one pass; each list in order.
 * An earlier marker inside a run joins it (markers shield nothing) but says nothing of its look.
 */
function randomRuns(s: string, b64Out: number[], urlOut: number[]): void {
  const n = s.length;
  const codes = textCodes(s);
  let b64Start = -1;
  let b64Kinds = 0;
  let urlStart = -1;
  let urlKinds = 0;
  for (let i = 0; i <= n; i++) {
    // Past the end: code 0, in neither alphabet.
    let t = CLASS[codes[i]!]!;
    if ((t & 48) === 48 && b64Start >= 0 && urlStart >= 0) {
      // Inside runs of both alphabets, characters of both only add to their look.
      let both = t;
      for (t = CLASS[codes[++i]!]!; (t & 48) === 48; t = CLASS[codes[++i]!]!) both |= t;
      b64Kinds |= both;
      urlKinds |= both;
    }
    if (t & 16) {
      if (b64Start < 0) {
        b64Start = i;
        b64Kinds = 0;
      }
      b64Kinds |= t;
    } else if (b64Start >= 0) {
      if (looksRandom(i - b64Start, b64Kinds)) {
        let end = i;
        while (codes[end] === /* = */ 61) end++;
        b64Out.push(b64Start, end);
      }
      b64Start = -1;
    }
    if (t & 32) {
      if (urlStart < 0) {
        urlStart = i;
        urlKinds = 0;
      }
      urlKinds |= t;
    } else if (urlStart >= 0) {
      if (looksRandom(i - urlStart, urlKinds)) urlOut.push(urlStart, i);
      urlStart = -1;
    }
  }
}

/** Called when `triggers` saw a run of ≥ 40 characters of either alphabet. */
function longTokenRule(s: string): string {
  const a: number[] = [];
  const b: number[] = [];
  randomRuns(s, a, b);
  if (a.length === 0 && b.length === 0) return s;
  // Union of both sorted span lists, touching or overlapping spans merged.
  const spans: number[] = [];
  const reps: string[] = [];
  let ia = 0;
  let ib = 0;
  while (ia < a.length || ib < b.length) {
    let start: number;
    let end: number;
    if (ib >= b.length || (ia < a.length && a[ia]! <= b[ib]!)) {
      start = a[ia]!;
      end = a[ia + 1]!;
      ia += 2;
    } else {
      start = b[ib]!;
      end = b[ib + 1]!;
      ib += 2;
    }
    const last = spans.length - 1;
    if (last > 0 && start <= spans[last]!) {
      spans[last] = Math.max(spans[last]!, end);
    } else {
      spans.push(start, end);
      reps.push(M["long-token"]);
    }
  }
  return splice(s, spans, reps);
}

export const longToken: Rule = {
  name: "long-token",
  // Markers join runs: those already in the text are found by their words, those earlier rules
  // put there by `joinsMarks`.
  words: ["[redacted:", "hmac-sha256:"],
  longRun: true,
  joinsMarks: true,
  apply: longTokenRule,
};
