/** `header`: values of credential-carrying HTTP headers, to the end of the line or closing quote. */

import { closingQuote, optionalQuote, pastQuote, wordGoesOn } from "../grammar.ts";
import { M } from "../marks.ts";
import { laterLinesValue, mayOpenLaterLines } from "../next-lines.ts";
import type { Rule } from "../rule.ts";
import { isAlnum, isOneMark, isSpace, skipBlanks, splice } from "../scan.ts";

const HEADER_NAMES = /(?:proxy-)?authorization|(?:set-)?cookie|x-api-key/gi;

function headerRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  HEADER_NAMES.lastIndex = 0;
  for (let m = HEADER_NAMES.exec(s); m !== null; m = HEADER_NAMES.exec(s)) {
    const a = m.index;
    if (a > 0) {
      const p = s.charCodeAt(a - 1);
      if (isAlnum(p) || p === /* _ */ 95) continue;
    }
    let j = HEADER_NAMES.lastIndex;
    const [afterKeyQuote] = optionalQuote(s, j);
    j = skipBlanks(s, afterKeyQuote);
    const sep = s.charCodeAt(j);
    if (sep !== /* : */ 58 && sep !== /* = */ 61) continue;
    // `=>` (Ruby's and PHP's arrays) separates as `=` does.
    j = skipBlanks(s, sep === /* = */ 61 && s.charCodeAt(j + 1) === /* > */ 62 ? j + 2 : j + 1);
    // A value on the lines after the name (`Authorization:\n  Bearer v`, `cookie: |`, `cookie = <<EOT`).
    const colon = sep === /* : */ 58;
    const lines = mayOpenLaterLines(s, j, colon) ? laterLinesValue(s, a, j, colon) : null;
    if (lines !== null) {
      const { properties } = lines;
      if (properties !== undefined && !isOneMark(s, properties.start, properties.end)) {
        spans.push(properties.start, properties.end);
        reps.push(M.header);
      }
      if (!isOneMark(s, lines.start, lines.end)) {
        spans.push(lines.start, lines.end);
        reps.push(M.header);
      }
      HEADER_NAMES.lastIndex = lines.end;
      continue;
    }
    let [v, quote, depth] = optionalQuote(s, j);
    const close = quote === 0 ? -1 : closingQuote(s, v, quote, depth);
    let end: number;
    // Quoted, to the closing quote, unless the word goes on past it (`'ab'cd`): then as unquoted,
    // its opening quote too.
    if (quote !== 0 && (close < 0 || !wordGoesOn(s, pastQuote(s, close)))) {
      end = close < 0 ? s.length : close;
    } else {
      v = j;
      const nl = s.indexOf("\n", v);
      end = nl < 0 ? s.length : nl;
    }
    while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
    if (end <= v || isOneMark(s, v, end)) continue;
    spans.push(v, end);
    reps.push(M.header);
    HEADER_NAMES.lastIndex = end;
  }
  return splice(s, spans, reps);
}

export const header: Rule = {
  name: "header",
  words: ["authorization", "cookie", "x-api-key"],
  apply: headerRule,
};
