/**
 * Shell words for the argv rule's generated tests: a secret as one word in every quoting, blanks,
 * the places a command sits on a line, and commands written in any case where the platform runs
 * them so (Windows).
 */
import fc from "fast-check";
import { expect } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import { leaks, type Shape, segment } from "./shapes.ts";

/** A shell word and the segments of a secret written in it. */
export interface Word {
  text: string;
  canaries: string[];
}

/** What joins a secret's segments in each quoting: characters that quoting keeps literal. */
const BARE_JOINS = [".", ":", "-", "_", "@", "%", "+", "=", "/", ",", "~", "^"];
// (Not `#`: the query rule reads `a/b#c` as a URL's fragment.)
const DOUBLE_JOINS = [...BARE_JOINS, " ", "|", ";", "&", "<", ">", "(", ")", "'", "!"];
const SINGLE_JOINS = [...DOUBLE_JOINS.filter((c) => c !== "'"), '"', "$", "`", "\\"];
/** Inside `$'…'` a backslash starts an escape: `\t` and `\n` are two of them. */
const ANSI_JOINS = [...DOUBLE_JOINS.filter((c) => c !== "'"), '"', "\\t", "\\n"];

const QUOTINGS: Array<[joins: string[], wrap: (body: string) => string]> = [
  [BARE_JOINS, (b) => b],
  [DOUBLE_JOINS, (b) => `"${b}"`],
  [SINGLE_JOINS, (b) => `'${b}'`],
  [ANSI_JOINS, (b) => `$'${b}'`],
];

/** One to three segments joined by `joins`, and the segments. */
const joined = (joins: string[]) =>
  fc.array(fc.tuple(segment, fc.nat()), { minLength: 1, maxLength: 3 }).map((parts) => ({
    body: parts.map(([seg, j], k) => (k === 0 ? seg : joins[j % joins.length]! + seg)).join(""),
    canaries: parts.map(([seg]) => seg),
  }));

/**
 * A secret of one to three segments as one shell word, bare or quoted any way (`"…"`, `'…'`, `$'…'`),
 * after one of `prefixes` inside the same word (`cert.pem:`, `session=`; one holding a blank or `;`
 * only where quoted).
 */
export const secretWordAfter = (prefixes: string[]): fc.Arbitrary<Word> =>
  fc.integer({ min: 0, max: QUOTINGS.length - 1 }).chain((how) => {
    const [joins, wrap] = QUOTINGS[how]!;
    const fit = prefixes.filter((p) => how !== 0 || !/[\s;]/.test(p));
    return fc
      .tuple(fc.constantFrom(...fit), joined(joins))
      .map(([prefix, { body, canaries }]) => ({ text: wrap(prefix + body), canaries }));
  });

/** A secret of one to three segments as one shell word, bare or quoted any way (`"…"`, `'…'`, `$'…'`). */
export const secretWord: fc.Arbitrary<Word> = secretWordAfter([""]);

/** Blanks between words: a space, several, a tab. */
export const blank = fc.constantFrom(" ", " ", "  ", "\t", " \t");

/** Where a line holds the command: alone, after `&&`, `;` or `|`, in a JSON string, among other text. */
export const CONTEXTS: Array<(cmd: string) => string> = [
  (c) => c,
  (c) => `+ ${c}`,
  (c) => `INFO exec: ${c} done`,
  (c) => `cd /srv/app && ${c}`,
  (c) => `set -e; ${c}; echo ok`,
  (c) => `true | ${c}`,
  (c) => `${c} && docker push registry.example/app:1`,
  (c) => `${c} 2>&1 || exit 1`,
  // JSON writes a tab as `\t`, which is no blank any more: spaces there.
  (c) => `{"cmd":${JSON.stringify(c.replaceAll("\t", " "))},"step":3}`,
  (c) => `level=info msg=${JSON.stringify(c.replaceAll("\t", " "))}`,
];

/** An index into `CONTEXTS`. */
export const context = fc.integer({ min: 0, max: CONTEXTS.length - 1 });

/**
 * An index into `CONTEXTS` where no word runs on after the command (an operator, a quote or the end
 * follows it): a word after a command whose credential is its optional last argument (`cargo login`,
 * `poetry config pypi-token.NAME`) is read as that credential.
 */
export const closedContext = context.filter((at) => !CONTEXTS[at]!("").endsWith(" done"));

/** Words joined by the blanks given (cycled), with `extra` inserted before word `at`. */
export function joinWords(words: string[], blanks: string[], at: number, extra: string): string {
  const all = [...words.slice(0, at), extra, ...words.slice(at)];
  return all.map((w, k) => (k === 0 ? w : `${blanks[k % blanks.length]}${w}`)).join("");
}

/** `word` with each letter's case picked by `upper` (cycled), as Windows takes a command's name. */
export const anyCase = (word: string, upper: boolean[]): string =>
  [...word].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c.toLowerCase())).join("");

/** Each generated shape is masked: none of its canaries in the output (and, `marked`, a marker there). */
export function masksEach(shapes: fc.Arbitrary<Shape>, numRuns: number, marked = true): void {
  fc.assert(
    fc.property(shapes, (shape) => {
      const out = redactText(shape.text);
      expect(leaks([shape], out), `${JSON.stringify(shape.text)} → ${JSON.stringify(out)}`).toEqual([]);
      if (marked) expect(out).toContain("[redacted:");
    }),
    { numRuns },
  );
}

/** Each generated line stays byte for byte. */
export function leavesEach(lines: fc.Arbitrary<string>, numRuns: number): void {
  fc.assert(
    fc.property(lines, (line) => {
      expect(redactText(line)).toBe(line);
    }),
    { numRuns },
  );
}
