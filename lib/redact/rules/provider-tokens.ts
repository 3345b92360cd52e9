/** `token`, `aws-key`, `google-key`: provider tokens recognized by their documented prefixes. */
import { M, type RedactionKind } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isAlnum, isTokenChar, splice } from "../scan.ts";

export const PREFIXES =
  /sk-|sk_live_|sk_test_|rk_live_|rk_test_|gh[pousr]_|github_pat_|xox[abpr]-|xapp-|glpat-|npm_|hf_|AKIA|ASIA|AIza/g;

function prefixRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  PREFIXES.lastIndex = 0;
  for (let m = PREFIXES.exec(s); m !== null; m = PREFIXES.exec(s)) {
    const a = m.index;
    const prefix = m[0];
    let r = a + prefix.length;
    while (r < s.length && isTokenChar(s.charCodeAt(r))) r++;
    PREFIXES.lastIndex = r;
    if (a > 0 && isAlnum(s.charCodeAt(a - 1))) continue;
    const after = r - a - prefix.length;
    let kind: RedactionKind | null = null;
    if (prefix === "AKIA" || prefix === "ASIA") {
      let u = a + 4;
      while (u < r) {
        const c = s.charCodeAt(u);
        if ((c >= 65 && c <= 90) || (c >= 48 && c <= 57)) u++;
        else break;
      }
      if (u - a - 4 >= 16) kind = "aws-key";
    } else if (prefix === "AIza") {
      if (after >= 30) kind = "google-key";
    } else if (prefix === "hf_") {
      if (after >= 30) kind = "token";
    } else if (after >= 8) {
      kind = "token";
    }
    if (kind !== null) {
      spans.push(a, r);
      reps.push(M[kind]);
    }
  }
  return splice(s, spans, reps);
}

export const providerTokens: Rule = {
  name: "provider-tokens",
  words: [
    "sk-",
    "sk_",
    "rk_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xox",
    "xapp-",
    "glpat-",
    "npm_",
    "hf_",
    "akia",
    "asia",
    "aiza",
  ],
  apply: prefixRule,
};
