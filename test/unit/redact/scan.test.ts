/**
 * The chain's bookkeeping: the ledger leads every placeholder to its index after any number of
 * splices, and the code copy the rules scan says what each character is, whether the text was
 * copied natively as ASCII (placeholders then set from the ledger) or character by character.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RULES, redactChain } from "../../../lib/redact/index.ts";
import { M } from "../../../lib/redact/marks.ts";
import {
  currentLedger,
  isPlaceholder,
  MARK_CODE,
  OTHER_CODE,
  splice,
  startLedger,
  textCodes,
} from "../../../lib/redact/scan.ts";
import { anyShape, catalogShape } from "./shapes.ts";

const ALL = (1 << RULES.length) - 1;

/** What `textCodes` must say of one UTF-16 unit. */
const expectedCode = (c: number): number => (c < 128 ? c : isPlaceholder(c) ? MARK_CODE : OTHER_CODE);

/** Rounds of random spans masked one after another, as the chain's rules do. */
const rounds = fc.array(fc.array(fc.tuple(fc.nat(), fc.nat(6)), { maxLength: 8 }), { maxLength: 5 });

/** Mask `rounds` over `text` with a fresh ledger, checking the ledger and the codes after each. */
function spliceAndCheck(text: string, ascii: boolean, cuts: Array<Array<[number, number]>>): void {
  startLedger(ascii);
  let s = text;
  for (const round of cuts) {
    const spans: number[] = [];
    const reps: string[] = [];
    let from = 0;
    for (const [skip, len] of round) {
      const start = from + (s.length > from ? skip % (s.length - from + 1) : 0);
      const end = Math.min(s.length, start + len);
      if (start > s.length) break;
      spans.push(start, end);
      reps.push(M["key-value"]);
      from = end + 1;
      if (from > s.length) break;
    }
    s = splice(s, spans, reps);
    const { at } = currentLedger();
    const marks = Array.from({ length: s.length }, (_, i) => i).filter((i) => isPlaceholder(s.charCodeAt(i)));
    expect(at).toEqual(marks);
    const codes = textCodes(s);
    for (let i = 0; i < s.length; i++) expect(codes[i]).toBe(expectedCode(s.charCodeAt(i)));
    expect([codes[s.length], codes[s.length + 1]]).toEqual([0, 0]);
  }
}

describe("ledger and codes", () => {
  it("an ASCII text copied natively: placeholders set from the ledger after every splice", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 80 }), rounds, (text, cuts) =>
        spliceAndCheck(text, true, cuts),
      ),
      { numRuns: 500 },
    );
  });

  it("any text copied character by character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), rounds, (text, cuts) =>
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
});
