/**
 * The chain's bookkeeping: the ledger leads every placeholder to its index after any number of
 * splices, and the code copy the rules scan says what each character is, whether the text was
 * copied natively as ASCII (placeholders then set from the ledger) or character by character.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RULES, redactChain, redactText } from "../../../lib/redact/index.ts";
import { M } from "../../../lib/redact/marks.ts";
import {
  currentLedger,
  firstMatch,
  flatText,
  isPlaceholder,
  MARK_CODE,
  OTHER_CODE,
  spaceFrom,
  splice,
  startLedger,
  textCodes,
} from "../../../lib/redact/scan.ts";
import { anyShape, catalogShape } from "./shapes.ts";

const ALL = (1 << RULES.length) - 1;

/** What `textCodes` must say of one UTF-16 unit. */
const expectedCode = (c: number): number => (c < 128 ? c : isPlaceholder(c) ? MARK_CODE : OTHER_CODE);

/** A span: how far past the previous one it starts, and how long it is. */
const span = (gap: number): fc.Arbitrary<[number, number]> => fc.tuple(fc.nat(gap), fc.nat(6));
/**
 * Rounds of random spans masked one after another, as the chain's rules do: a few spans, or about
 * as many as make `splice` copy the text through scratch memory instead of joining pieces.
 */
const rounds = fc.array(
  fc.oneof(fc.array(span(12), { maxLength: 8 }), fc.array(span(3), { minLength: 60, maxLength: 70 })),
  { maxLength: 4 },
);
/** Short texts, and texts long enough for about 64 spans. */
const text = (unit: "binary" | "binary-ascii"): fc.Arbitrary<string> =>
  fc.oneof(fc.string({ unit, maxLength: 80 }), fc.string({ unit, minLength: 400, maxLength: 900 }));
const MARKERS = Object.values(M);

/** `s` with the spans replaced, put together the plain way. */
function spliced(s: string, spans: number[], reps: string[]): string {
  let out = "";
  let from = 0;
  reps.forEach((rep, k) => {
    out += s.slice(from, spans[2 * k]) + rep;
    from = spans[2 * k + 1]!;
  });
  return out + s.slice(from);
}

/** Mask `rounds` over `text` with a fresh ledger, checking the text, the ledger and the codes after each. */
function spliceAndCheck(text: string, ascii: boolean, cuts: Array<Array<[number, number]>>): void {
  startLedger(ascii);
  let s = text;
  for (const round of cuts) {
    const spans: number[] = [];
    const reps: string[] = [];
    let from = 0;
    for (const [skip, len] of round) {
      const start = Math.min(s.length, from + skip);
      const end = Math.min(s.length, start + len);
      spans.push(start, end);
      reps.push(MARKERS[reps.length % MARKERS.length]!);
      from = end + 1;
      if (from > s.length) break;
    }
    const expected = spliced(s, spans, reps);
    s = splice(s, spans, reps);
    expect(s).toBe(expected);
    const { at } = currentLedger();
    const marks = Array.from({ length: s.length }, (_, i) => i).filter((i) => isPlaceholder(s.charCodeAt(i)));
    expect(at).toEqual(marks);
    const codes = textCodes(s);
    const expectedCodes = Array.from({ length: s.length + 2 }, (_, i) =>
      i < s.length ? expectedCode(s.charCodeAt(i)) : 0,
    );
    expect(Array.from(codes.subarray(0, s.length + 2))).toEqual(expectedCodes);
  }
}

describe("spaceFrom", () => {
  it("finds the first whitespace however far it is, before and past where it starts searching natively", () => {
    fc.assert(
      fc.property(
        fc.nat(40),
        fc.nat(40),
        fc.constantFrom(" ", "\t", "\n", "\x00", "\x20", ""),
        fc.string({ unit: fc.constantFrom("a", "=", "\u00e9", "\ue10c", "\x7f", "!"), maxLength: 3 }),
        (before, run, space, tail) => {
          const s = `${"x".repeat(before)}${"y".repeat(run)}${space}${tail}`;
          let expected = before;
          while (expected < s.length && s.charCodeAt(expected) > 0x20) expected++;
          expect(spaceFrom(s, before)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("firstMatch", () => {
  it("answers every search in any order as a fresh search would, over one text and over equal copies", () => {
    fc.assert(
      fc.property(
        // Pieces that make matches, near-matches and matches glued to each other.
        fc.array(fc.constantFrom("u003c", "U003C", "u003", "003c", "x", "\\", "u"), { maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(64), fc.boolean()), { minLength: 1, maxLength: 16 }),
        (pieces, queries) => {
          const text = pieces.join("");
          const search = firstMatch(/u003c/gi);
          for (const [i, copy] of queries) {
            // An equal text in another string object (a copy built from parts) answers the same.
            const s = copy ? [...text].join("") : text;
            const low = s.toLowerCase();
            expect(search(s, i)).toBe(low.indexOf("u003c", i));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("ledger and codes", () => {
  it("splices many spans the same either side of where it copies instead of joining", () => {
    for (const count of [62, 63, 64, 65]) {
      for (const length of [32 * count - 1, 32 * count, 32 * count + 1]) {
        const text = Array.from({ length }, (_, i) => String.fromCharCode(33 + ((i * 7) % 90))).join("");
        const spans = Array.from({ length: count }, (_, k) => [k * 30 + 3, k * 30 + 3 + (k % 5)]).flat();
        const reps = spans.filter((_, i) => i % 2 === 0).map((_, k) => MARKERS[k % MARKERS.length]!);
        startLedger(true);
        expect(splice(text, spans, reps)).toBe(spliced(text, spans, reps));
      }
    }
  });

  it("an ASCII text copied natively: placeholders set from the ledger after every splice", () => {
    fc.assert(
      fc.property(text("binary-ascii"), rounds, (text, cuts) => spliceAndCheck(text, true, cuts)),
      { numRuns: 500 },
    );
  });

  it("any text copied character by character", () => {
    fc.assert(
      fc.property(text("binary"), rounds, (text, cuts) =>
        spliceAndCheck(text.replace(/[\ue000-\uf8ff]/g, "\ufffd"), false, cuts),
      ),
      { numRuns: 500 },
    );
  });

  it("the chain masks an ASCII text the same whether or not it knows the text is ASCII", () => {
    fc.assert(
      fc.property(
        fc.oneof(anyShape, catalogShape).filter((shape) => /^[\x00-\x7f]*$/.test(shape.text)),
        (shape) => {
          startLedger(true);
          const known = redactChain(shape.text, ALL);
          startLedger(false);
          expect(known).toBe(redactChain(shape.text, ALL));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a long text reads the same as a flat copy, whether it came as a rope or a slice", () => {
    fc.assert(
      fc.property(fc.oneof(anyShape, catalogShape), fc.nat(300), (shape, padding) => {
        // Joined pieces make a rope, a cut of a longer text a slice; a Buffer's text is flat.
        const rope = `${"log: ".repeat(padding >> 2)}${shape.text}${" next".repeat(60)}`;
        const slice = `##${rope}`.slice(2);
        const ascii = /^[\x00-\x7f]*$/.test(rope);
        const flat = Buffer.from(rope, "utf16le").toString("utf16le");
        expect(flatText(rope, ascii)).toBe(rope);
        expect(flatText(slice, ascii)).toBe(rope);
        const expected = redactText(flat);
        expect(redactText(rope)).toBe(expected);
        expect(redactText(slice)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
