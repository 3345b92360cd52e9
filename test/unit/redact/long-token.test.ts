/**
 * The long-token rule against its definition (docs/redaction.md), stated here with regexes: runs of
 * ≥ 40 characters of standard base64 (then `=` padding) or of base64url that look random (mixed case
 * and digits, or hex with digits) are masked, an earlier marker joining a run without changing its
 * look. Generated runs sit around 40 characters and switch alphabet and look at every position, so
 * the rule's fast stretch (characters of both alphabets) starts and stops everywhere.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { M } from "../../../lib/redact/marks.ts";
import { longToken } from "../../../lib/redact/rules/long-token.ts";
import { startLedger } from "../../../lib/redact/scan.ts";

const looksRandom = (run: string): boolean => {
  const look = run.replace(/[\ue000-\uf8ff]/g, "");
  const digit = /[0-9]/.test(look);
  return (
    run.length >= 40 &&
    ((digit && /[A-Z]/.test(look) && /[a-z]/.test(look)) || (digit && !/[G-Zg-z+/_-]/.test(look)))
  );
};

/** The text the definition gives: both alphabets' random runs, touching or overlapping ones merged. */
function expected(s: string): string {
  const spans: Array<[number, number]> = [];
  for (const m of s.matchAll(/[A-Za-z0-9+/\ue000-\uf8ff]+/g)) {
    let end = m.index + m[0].length;
    while (s[end] === "=") end++;
    if (looksRandom(m[0])) spans.push([m.index, end]);
  }
  for (const m of s.matchAll(/[A-Za-z0-9_\-\ue000-\uf8ff]+/g))
    if (looksRandom(m[0])) spans.push([m.index, m.index + m[0].length]);
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [a, b] of spans) {
    const last = merged.at(-1);
    if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  let out = "";
  let from = 0;
  for (const [a, b] of merged) {
    out += s.slice(from, a) + M["long-token"];
    from = b;
  }
  return out + s.slice(from);
}

const run = (alphabet: string): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: 45 });
const piece = fc.oneof(
  run("abcdefghijklmnopqrstuvwxyz"),
  run("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
  run("0123456789abcdef"),
  run("aB3+/"),
  run("aB3_-"),
  run("a1"),
  fc.constantFrom(" ", "=", "==", ".", "\u00e9", "\ue101", "+", "/", "_", "-"),
);

describe("long-token", () => {
  it("masks exactly the random-looking runs of ≥ 40 characters of either alphabet", () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const s = pieces.join("");
        startLedger();
        expect(longToken.apply(s)).toBe(expected(s));
      }),
      { numRuns: 2000 },
    );
  });
});
