/** `query`: every value in the query string and fragment of absolute URLs and request paths. */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isOneMark, isSpace, splice, textCodes } from "../scan.ts";

function isUrlEnd(c: number): boolean {
  return (
    isSpace(c) ||
    c === /* " */ 34 ||
    c === /* ' */ 39 ||
    c === /* < */ 60 ||
    c === /* > */ 62 ||
    c === /* backtick */ 96
  );
}

/** Per code (`textCodes`): 1 where a path ends (a URL end or a bracket), 2 for `/`, 3 for `?` and `#`. */
const PATH = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const bracket =
    c === /* ( */ 40 ||
    c === /* ) */ 41 ||
    c === /* [ */ 91 ||
    c === /* ] */ 93 ||
    c === /* { */ 123 ||
    c === /* } */ 125;
  if (isUrlEnd(c) || bracket) PATH[c] = 1;
  else if (c === /* slash */ 47) PATH[c] = 2;
  else if (c === /* ? */ 63 || c === /* # */ 35) PATH[c] = 3;
}
/** Per code: 1 for what a query parameter's scan stops at (its end: a URL end, `&`, `;`, `#`; `=`). */
const PARAM_STOPS = new Uint8Array(256);
for (let c = 0; c < 256; c++)
  PARAM_STOPS[c] = Number(
    isUrlEnd(c) || c === /* & */ 38 || c === /* ; */ 59 || c === /* # */ 35 || c === /* = */ 61,
  );

function queryRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  const n = s.length;
  const codes = textCodes(s);
  let lastDelim = -1;
  let lastSlash = -1;
  let i = 0;
  while (i < n) {
    // Past the end: code 0, a URL end.
    while (PATH[codes[i]!] === 0) i++;
    if (i >= n) break;
    const kind = PATH[codes[i]!];
    if (kind === 1) {
      lastDelim = i;
    } else if (kind === 2) {
      lastSlash = i;
    } else if (lastSlash > lastDelim) {
      i = maskQuery(s, codes, i, spans, reps);
      lastDelim = i;
      continue;
    }
    i++;
  }
  return splice(s, spans, reps);
}

const isQuote = (c: number): boolean => c === /* " */ 34 || c === /* ' */ 39 || c === /* backtick */ 96;

/** Mask every value of the query/fragment starting at `q` (`?` or `#`); returns its end. */
function maskQuery(s: string, codes: Uint8Array, q: number, spans: number[], reps: string[]): number {
  const n = s.length;
  let fragment = codes[q] === /* # */ 35;
  let i = q + 1;
  while (i < n) {
    const start = i;
    let eq = -1;
    for (; i < n; i++) {
      while (PARAM_STOPS[codes[i]!] === 0) i++;
      const c = codes[i]!;
      if (i >= n || isUrlEnd(c) || c === /* & */ 38 || c === /* ; */ 59 || (c === /* # */ 35 && !fragment))
        break;
      if (c === /* = */ 61 && eq < 0) eq = i;
    }
    const valueStart = eq >= 0 ? eq + 1 : fragment ? start : -1;
    // A quote right after `=` or `:` opens a quoted value (`?q=password="a b"`): it runs to its close,
    // or the masked `password=` would hide the key the key-value rule needs.
    if (valueStart >= 0 && i < n && isQuote(codes[i]!)) {
      const p = codes[i - 1]!;
      if (i === valueStart || p === /* = */ 61 || p === /* : */ 58) {
        const close = s.indexOf(s[i]!, i + 1);
        i = close < 0 ? n : close + 1;
      }
    }
    if (valueStart >= 0 && i > valueStart && !isOneMark(s, valueStart, i)) {
      spans.push(valueStart, i);
      reps.push(M.query);
    }
    if (i >= n) break;
    const c = codes[i]!;
    if (c === /* # */ 35) fragment = true;
    else if (c !== /* & */ 38 && c !== /* ; */ 59) break;
    i++;
  }
  return i;
}

export const query: Rule = { name: "query", words: ["?", "#"], apply: queryRule };
