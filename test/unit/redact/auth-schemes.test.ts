/**
 * The auth-scheme rule masks from the scheme word itself: `Bearer <token>`, `Basic <user:pass in
 * base64>`, netrc's `login <user> password <secret>`, with the word in any case and any run of the
 * white space a regex's `\s` takes between (tabs, no-break and ideographic spaces, line breaks).
 * The rule finds the word with `test` and reads the match's start back from its end, so the mask's
 * start is checked here exactly, for several credentials on one line.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { M } from "../../../lib/redact/marks.ts";
import { authSchemes } from "../../../lib/redact/rules/auth-schemes.ts";
import { startLedger } from "../../../lib/redact/scan.ts";

/** A word in random case. */
const anyCase = (word: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((up) => [...word].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(""));

/** A run of what `\s` matches. */
const blanks = fc
  .array(
    fc.constantFrom(" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u2003", "\u3000", "\u2028", "\ufeff"),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((cs) => cs.join(""));
/** Spaces and tabs only: what separates netrc's words. */
const spaces = fc.array(fc.constantFrom(" ", "\t"), { minLength: 1, maxLength: 3 }).map((cs) => cs.join(""));
const alnum = (min: number, max: number): fc.Arbitrary<string> =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`));

/** One credential: its text, and what the rule must turn it into. */
const credential: fc.Arbitrary<[string, string]> = fc.oneof(
  fc
    .tuple(anyCase("bearer"), blanks, alnum(0, 12), fc.integer({ min: 0, max: 9 }), alnum(0, 12))
    .map(([w, b, x, d, y]): [string, string] => [`${w}${b}${x}${d}${y}`, M.bearer]),
  fc
    // At least five bytes: the rule takes eight base64 characters or more.
    .tuple(anyCase("basic"), blanks, alnum(2, 12), alnum(2, 12))
    .map(([w, b, user, pass]): [string, string] => [
      `${w}${b}${Buffer.from(`${user}:${pass}`).toString("base64")}`,
      M.basic,
    ]),
  fc
    .tuple(anyCase("login"), blanks, alnum(1, 10), spaces, spaces, alnum(1, 12))
    .map(([w, b, user, s1, s2, pw]): [string, string] => [`${w}${b}${user}${s1}password${s2}${pw}`, M.netrc]),
);
/**
 * Text between credentials: white space first (a netrc secret is a shell word, which runs to it),
 * never a word character next to the scheme word.
 */
const between = fc.constantFrom(" ", " ; ", " | ", "\n", " (", "\t) (", " -H ", " =");

describe("auth schemes", () => {
  it("masks each credential from its scheme word, whatever the case and the white space", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(between, credential), { minLength: 1, maxLength: 4 }),
        between,
        (parts, tail) => {
          const text = parts.map(([b, [c]]) => b + c).join("") + tail;
          const expected = parts.map(([b, [, marker]]) => b + marker).join("") + tail;
          startLedger(false);
          expect(authSchemes.apply(text)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
