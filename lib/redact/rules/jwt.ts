/** `jwt`: `eyJ…` three dot-separated base64url segments, found by a linear scan. */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isTokenChar, splice } from "../scan.ts";

const isB64Url = (c: number): boolean => isTokenChar(c);

/**
 * Linear equivalent of `/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g`: every segment is a
 * maximal run, so a failed attempt at one start also fails for every start inside the same runs.
 */
export function findJwts(s: string): number[] {
  const out: number[] = [];
  const n = s.length;
  let i = s.indexOf("eyJ");
  while (i >= 0) {
    let j = i + 3;
    while (j < n && isB64Url(s.charCodeAt(j))) j++;
    let resume: number;
    if (j === i + 3 || s.charCodeAt(j) !== /* . */ 46) {
      resume = j;
    } else {
      let k = j + 1;
      while (k < n && isB64Url(s.charCodeAt(k))) k++;
      if (k === j + 1 || s.charCodeAt(k) !== /* . */ 46) {
        resume = k === j + 1 ? j + 1 : k;
      } else {
        let e = k + 1;
        while (e < n && isB64Url(s.charCodeAt(e))) e++;
        if (e === k + 1) {
          resume = k + 1;
        } else {
          out.push(i, e);
          resume = e;
        }
      }
    }
    i = s.indexOf("eyJ", Math.max(resume, i + 1));
  }
  return out;
}

function jwtRule(s: string): string {
  if (!s.includes("eyJ")) return s;
  const spans = findJwts(s);
  return splice(
    s,
    spans,
    spans.filter((_, k) => k % 2 === 0).map(() => M.jwt),
  );
}

export const jwt: Rule = { name: "jwt", words: ["eyj"], apply: jwtRule };
