/**
 * The trigger scan only ever skips rules that could not have matched: running the chain with the
 * rules the triggers found gives the same text as running every rule, over the attacker shapes and
 * over text built from every rule's own trigger words, cut and glued at random.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RULES, redactChain, TRIGGERS } from "../../../lib/redact/index.ts";
import { startLedger } from "../../../lib/redact/scan.ts";
import { anyShape, catalogShape } from "./shapes.ts";

const ALL = (1 << RULES.length) - 1;

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
});
