/** `query`: every value in the query string and fragment of absolute URLs and request paths. */

import {
  AMPERSAND,
  APOSTROPHE,
  BACKTICK,
  COLON,
  EQUALS,
  GREATER_THAN,
  HASH,
  LEFT_BRACE,
  LEFT_BRACKET,
  LEFT_PAREN,
  LESS_THAN,
  QUESTION_MARK,
  QUOTE,
  RIGHT_BRACE,
  RIGHT_BRACKET,
  RIGHT_PAREN,
  SEMICOLON,
  SLASH,
} from "../chars.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isOneMark, isSpace, splice } from "../scan.ts";

function isUrlEnd(c: number): boolean {
  return (
    isSpace(c) || c === QUOTE || c === APOSTROPHE || c === LESS_THAN || c === GREATER_THAN || c === BACKTICK
  );
}

function queryRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  const n = s.length;
  let lastDelim = -1;
  let lastSlash = -1;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (
      isUrlEnd(c) ||
      c === LEFT_PAREN ||
      c === RIGHT_PAREN ||
      c === LEFT_BRACKET ||
      c === RIGHT_BRACKET ||
      c === LEFT_BRACE ||
      c === RIGHT_BRACE
    ) {
      lastDelim = i;
    } else if (c === SLASH) {
      lastSlash = i;
    } else if ((c === QUESTION_MARK || c === HASH) && lastSlash > lastDelim) {
      i = maskQuery(s, i, spans, reps);
      lastDelim = i;
      continue;
    }
    i++;
  }
  return splice(s, spans, reps);
}

const isQuote = (c: number): boolean => c === QUOTE || c === APOSTROPHE || c === BACKTICK;

/** Mask every value of the query/fragment starting at `q` (`?` or `#`); returns its end. */
function maskQuery(s: string, q: number, spans: number[], reps: string[]): number {
  const n = s.length;
  let fragment = s.charCodeAt(q) === HASH;
  let i = q + 1;
  while (i < n) {
    const start = i;
    let eq = -1;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (isUrlEnd(c) || c === AMPERSAND || c === SEMICOLON || (c === HASH && !fragment)) break;
      if (c === EQUALS && eq < 0) eq = i;
      i++;
    }
    const valueStart = eq >= 0 ? eq + 1 : fragment ? start : -1;
    // A quote right after `=` or `:` opens a quoted value (`?q=password="a b"`): it runs to its close,
    // or the masked `password=` would hide the key the key-value rule needs.
    if (valueStart >= 0 && i < n && isQuote(s.charCodeAt(i))) {
      const p = s.charCodeAt(i - 1);
      if (i === valueStart || p === EQUALS || p === COLON) {
        const close = s.indexOf(s[i]!, i + 1);
        i = close < 0 ? n : close + 1;
      }
    }
    if (valueStart >= 0 && i > valueStart && !isOneMark(s, valueStart, i)) {
      spans.push(valueStart, i);
      reps.push(M.query);
    }
    if (i >= n) break;
    const c = s.charCodeAt(i);
    if (c === HASH) fragment = true;
    else if (c !== AMPERSAND && c !== SEMICOLON) break;
    i++;
  }
  return i;
}

export const query: Rule = { name: "query", words: ["?", "#"], apply: queryRule };
