/** `userinfo`: `scheme://user:pass@` → `scheme://[redacted:userinfo]@`. */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isAlnum, isPlaceholder, isSpace, splice } from "../scan.ts";

function userinfoRule(s: string): string {
  let i = s.indexOf("://");
  if (i < 0 || !s.includes("@")) return s;
  const spans: number[] = [];
  const reps: string[] = [];
  while (i >= 0) {
    const start = i + 3;
    let j = start;
    let colon = -1;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (c === 47 || c === 63 || c === 35 || c === 64 || isSpace(c) || c === 34 || c === 39) break;
      if (c === 60 || c === 62 || isPlaceholder(c)) break;
      if (c === 58 && colon < 0) colon = j;
      j++;
    }
    if (s.charCodeAt(j) === 64 && colon > start && i > 0 && isAlnum(s.charCodeAt(i - 1))) {
      spans.push(start, j);
      reps.push(M.userinfo);
    }
    i = s.indexOf("://", j);
  }
  return splice(s, spans, reps);
}

export const userinfo: Rule = { name: "userinfo", words: ["://"], apply: userinfoRule };
