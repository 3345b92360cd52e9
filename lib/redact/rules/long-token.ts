/**
 * `long-token`: runs of ≥ 40 characters of standard base64 (then `=` padding) or of base64url that
 * look random (all-hex with digits, or mixing case and digits); plain lowercase paths survive.
 */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { ALPHABET, isPlaceholder, splice } from "../scan.ts";

/** A maximal run of one token alphabet being scanned, and what kinds of characters it holds. */
class Run {
  start = -1;
  upper = false;
  lower = false;
  digit = false;
  hex = true;

  begin(i: number): void {
    this.start = i;
    this.upper = false;
    this.lower = false;
    this.digit = false;
    this.hex = true;
  }

  add(c: number): void {
    // An earlier marker inside a run joins it (markers shield nothing) but says nothing of its look.
    if (c >= 0xe000) return;
    if (c >= 48 && c <= 57) this.digit = true;
    else if (c >= 65 && c <= 90) {
      this.upper = true;
      if (c > 70) this.hex = false;
    } else if (c >= 97 && c <= 122) {
      this.lower = true;
      if (c > 102) this.hex = false;
    } else this.hex = false;
  }

  /** ≥ 40 characters that look random: mixed case and digits, or hex with digits. */
  random(end: number): boolean {
    return end - this.start >= 40 && ((this.upper && this.lower && this.digit) || (this.hex && this.digit));
  }
}

/**
 * Spans of ≥ 40-character runs of standard base64 (`[A-Za-z0-9+/]`, then `=` padding) and of
 * base64url (`[A-Za-z0-9_-]`) that look random, both alphabets in one pass; each list in order.
 */
function randomRuns(s: string, b64Out: number[], urlOut: number[]): void {
  const n = s.length;
  const b64 = new Run();
  const url = new Run();
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 0;
    const cls = c < 128 ? ALPHABET[c]! & 3 : isPlaceholder(c) ? 3 : 0;
    if (cls & 1) {
      if (b64.start < 0) b64.begin(i);
      b64.add(c);
    } else if (b64.start >= 0) {
      if (b64.random(i)) {
        let end = i;
        while (end < n && s.charCodeAt(end) === 61) end++;
        b64Out.push(b64.start, end);
      }
      b64.start = -1;
    }
    if (cls & 2) {
      if (url.start < 0) url.begin(i);
      url.add(c);
    } else if (url.start >= 0) {
      if (url.random(i)) urlOut.push(url.start, i);
      url.start = -1;
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
  words: ["[redacted:", "hmac-sha256:"],
  longRun: true,
  apply: longTokenRule,
};
