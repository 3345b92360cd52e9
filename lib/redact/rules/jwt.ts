/** `jwt`: `eyJ…` three dot-separated base64url segments, found by a linear scan. */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { ALPHABET, codesOf, OTHER_CODE, splice, textCodes } from "../scan.ts";

/** Per code (`codesOf`): 1 for the base64url alphabet `[A-Za-z0-9_-]`. */
const B64URL = new Uint8Array(256);
for (let c = 0; c < 128; c++) B64URL[c] = (ALPHABET[c]! >> 1) & 1;

/**
 * Linear equivalent of `/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g`: every segment is a
 * maximal run, so a failed attempt at one start also fails for every start inside the same runs.
 * `codes`: the codes of `s` (any non-ASCII code serves: none is base64url).
 */
export function findJwts(s: string, codes = codesOf(s, false, OTHER_CODE, OTHER_CODE)): number[] {
  const out: number[] = [];
  const n = s.length;
  let i = s.indexOf("eyJ");
  while (i >= 0) {
    let j = i + 3;
    while (j < n && B64URL[codes[j]!] === 1) j++;
    let resume: number;
    if (j === i + 3 || codes[j] !== /* . */ 46) {
      resume = j;
    } else {
      let k = j + 1;
      while (k < n && B64URL[codes[k]!] === 1) k++;
      if (k === j + 1 || codes[k] !== /* . */ 46) {
        resume = k === j + 1 ? j + 1 : k;
      } else {
        let e = k + 1;
        while (e < n && B64URL[codes[e]!] === 1) e++;
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
  const spans = findJwts(s, textCodes(s));
  return splice(
    s,
    spans,
    spans.filter((_, k) => k % 2 === 0).map(() => M.jwt),
  );
}

export const jwt: Rule = { name: "jwt", words: ["eyj"], apply: jwtRule };
