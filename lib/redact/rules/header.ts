/** `header`: values of credential-carrying HTTP headers, to the end of the line or closing quote. */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { closingQuote, isAlnum, isOneMark, isSpace, optionalQuote, skipBlanks, splice } from "../scan.ts";

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
    j = skipBlanks(s, j + 1);
    const [v, quote] = optionalQuote(s, j);
    let end: number;
    if (quote !== "") {
      const close = closingQuote(s, v, quote);
      end = close < 0 ? s.length : close;
    } else {
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
