/** `pem`: a `-----BEGIN …-----` marker through its `-----END …-----` (or the end of the text). */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { splice } from "../scan.ts";

function pemRule(s: string): string {
  let i = s.indexOf("-----BEGIN ");
  if (i < 0) return s;
  const spans: number[] = [];
  const reps: string[] = [];
  while (i >= 0) {
    const end = s.indexOf("-----END ", i + 11);
    let stop = s.length;
    if (end >= 0) {
      const close = s.indexOf("-----", end + 9);
      stop = close < 0 ? s.length : close + 5;
    }
    spans.push(i, stop);
    reps.push(M.pem);
    i = s.indexOf("-----BEGIN ", stop);
  }
  return splice(s, spans, reps);
}

export const pem: Rule = { name: "pem", words: ["-----begin "], apply: pemRule };
