/**
 * The trigger scan only ever skips rules that could not have matched: running the chain with the
 * rules the triggers found gives the same text as running every rule, over the attacker shapes and
 * over text built from every rule's own trigger words, cut and glued at random. A rule's flag says
 * exactly whether one of its words (or a long run) occurs, also in text crowded with places where
 * a word starts but does not follow, more of them than the scan records before its words, or
 * spread out, each tested on its own.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RULES, redactChain, TRIGGERS } from "../../../lib/redact/index.ts";
import { startLedger } from "../../../lib/redact/scan.ts";
import { RECORDED, STICKY_TESTS } from "../../../lib/redact/triggers.ts";
import { anyShape, catalogShape } from "./shapes.ts";

const ALL = (1 << RULES.length) - 1;

/** Whether a trigger word occurs in `s`: ASCII case-insensitively, `.` standing for any character. */
const occurs = (word: string, s: string): boolean =>
  new RegExp(word.replace(/[*+?^${}()|[\]\\/-]/g, "\\$&").replaceAll(".", "[^]"), "i").test(s);
const longRun = (s: string): boolean => /[A-Za-z0-9+/]{40}|[A-Za-z0-9_-]{40}/.test(s);

function chain(s: string, flags: number): string {
  startLedger();
  return redactChain(s, flags);
}

function sameAsEveryRule(s: string): void {
  const found = TRIGGERS.of(s);
  expect(chain(s, found & ALL)).toBe(chain(s, ALL));
}

/** Pieces that start or complete trigger words, separators and alphabet runs. */
const WORDS = [...new Set(RULES.flatMap((r) => r.words))];
const piece = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.constantFrom(...WORDS).map((w) => w.toUpperCase()),
  fc.constantFrom(...WORDS).map((w) => w.slice(0, Math.max(1, w.length - 1))),
  fc.constantFrom(" ", "=", ":", '"', "'", "@", "/", "?", "&", "#", "-", "_", ".", "\\", "\u00e9", "\u212a"),
  fc.stringMatching(/^[A-Za-z0-9+/_-]{1,60}$/),
);

/** Words the pass can be fooled by: their first three characters are not the whole word. */
const LONG_WORDS = WORDS.filter((w) => w.length > 3);
/** A word's first three characters without the rest, in any case: flagged by the pass, refuted after. */
const decoy = fc
  .tuple(fc.constantFrom(...LONG_WORDS), fc.boolean(), fc.constantFrom(" ", "=", "x", "\u00e9"))
  .map(([w, upper, after]) => `${upper ? w.slice(0, 3).toUpperCase() : w.slice(0, 3)}${after}`);
/** Many decoys, some pieces (whole words among them), more decoys. */
const crowded = fc
  .tuple(
    fc.array(decoy, { minLength: 10, maxLength: 60 }),
    fc.array(piece, { maxLength: 4 }),
    fc.array(decoy, { maxLength: 8 }),
  )
  .map(([a, b, c]) => [...a, ...b, ...c].join(""));
/**
 * One decoy repeated about as many times as the pass tests places sticky, or records places (a
 * few fewer to a few more), then maybe a piece and the decoy again: a word right where either ends.
 */
const overflowing = fc
  .tuple(
    decoy,
    fc.constantFrom(STICKY_TESTS, RECORDED),
    fc.integer({ min: -3, max: 3 }),
    fc.option(piece),
    fc.nat(3),
  )
  .map(([d, limit, delta, p, tail]) => `${d.repeat(limit + delta)}${p ?? ""}${d.repeat(tail)}`);

/**
 * One word's decoy spread out, more times than the pass tests at first, with filler between (few
 * enough places per character that each is tested on its own, or not), then maybe the word itself
 * or another piece, and more decoys.
 */
const sparse = fc
  .tuple(
    fc.constantFrom(...LONG_WORDS),
    fc.array(fc.tuple(fc.boolean(), fc.nat(40)), {
      minLength: STICKY_TESTS - 2,
      maxLength: 3 * STICKY_TESTS,
    }),
    fc.oneof(fc.constant("word"), fc.constant(""), piece),
    fc.nat(3),
  )
  .map(([w, spread, last, tail]) => {
    const decoyOf = (upper: boolean): string => `${upper ? w.slice(0, 3).toUpperCase() : w.slice(0, 3)}~`;
    const spreadOut = spread.map(([upper, gap]) => decoyOf(upper) + "~".repeat(gap)).join("");
    return `${spreadOut}${last === "word" ? w : last}${decoyOf(false).repeat(tail)}`;
  });

/** The scan flags a rule exactly when one of its words or a long run occurs (prefixes: at least then). */
function flagsExactly(s: string): void {
  const found = TRIGGERS.of(s);
  RULES.forEach((rule, k) => {
    const expected = rule.words.some((w) => occurs(w, s)) || (rule.longRun === true && longRun(s));
    // Provider prefixes only ever flag more (the rule compares them itself).
    if (rule.prefixes === undefined) expect((found >> k) & 1, rule.name).toBe(Number(expected));
    else if (expected) expect((found >> k) & 1, rule.name).toBe(1);
  });
  if (/^[\x00-\x7f]*$/.test(s)) expect(TRIGGERS.of(s, true)).toBe(found);
}

describe("trigger scan", () => {
  it("skips only rules that would not change the text (attacker shapes)", () => {
    fc.assert(
      fc.property(fc.oneof(anyShape, catalogShape), (shape) => sameAsEveryRule(shape.text)),
      { numRuns: 400 },
    );
  });

  it("skips only rules that would not change the text (trigger words glued at random)", () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 24 }), (pieces) =>
        sameAsEveryRule(pieces.join("")),
      ),
      { numRuns: 1500 },
    );
  });

  it("finds a long run of either alphabet, and not a shorter one", () => {
    const longToken = 1 << RULES.findIndex((r) => r.name === "long-token");
    expect(TRIGGERS.of(`x ${"a".repeat(40)}`) & longToken).toBe(longToken);
    expect(TRIGGERS.of("a-".repeat(20)) & longToken).toBe(longToken);
    expect(TRIGGERS.of("a+".repeat(20)) & longToken).toBe(longToken);
    expect(TRIGGERS.of(`${"a".repeat(39)} ${"a".repeat(39)}`) & longToken).toBe(0);
    expect(TRIGGERS.of(`${"a".repeat(39)}\u00e9${"a".repeat(39)}`) & longToken).toBe(0);
  });

  it("flags a rule exactly when one of its words or a long run occurs, however crowded the text", () => {
    fc.assert(
      fc.property(crowded, (s) => {
        flagsExactly(s);
        sameAsEveryRule(s);
      }),
      { numRuns: 600 },
    );
  });

  it("flags a rule exactly also where its places are tested one by one past the first few", () => {
    fc.assert(fc.property(sparse, flagsExactly), { numRuns: 400 });
  });

  it("flags a rule exactly also where the places the pass records run out", () => {
    fc.assert(fc.property(overflowing, flagsExactly), { numRuns: 300 });
  });
});
