/**
 * Escaped key characters in the shadow (lib/redact/escapes.ts): over random text of escape-shaped
 * pieces, the decoded shadow maps back onto the original in order, and every decoded escape is
 * checked against the platform's own decoders (JSON.parse, decodeURIComponent) as the oracle.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeKeyEscapes } from "../../../lib/redact/escapes.ts";
import { redactText } from "../../../lib/redact/index.ts";
import { escapeKeyChar } from "./shapes.ts";

/** What another layer makes of one escape: JSON at any depth, URL once or twice, HTML references. */
function oracle(piece: string): string {
  if (piece.startsWith("\\")) return JSON.parse(`"${piece.replace(/^\\+/, "\\")}"`) as string;
  if (piece.startsWith("%")) return decodeURIComponent(decodeURIComponent(piece));
  // A numeric reference's `;` may be missing (browsers decode `&#61` too).
  const ref = /^&#(x?)([0-9a-f]+);?$/i.exec(piece);
  if (ref) return String.fromCharCode(Number.parseInt(ref[2]!, ref[1] ? 16 : 10));
  throw new Error(`not an escape: ${piece}`);
}

/** Text made of pieces an escape is made of, so escapes, near-escapes and broken ones all occur. */
const escapeish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "\\",
        "\\\\",
        "u",
        "0",
        "00",
        "%",
        "25",
        "&",
        "#",
        "x",
        ";",
        "a",
        "Z",
        "4",
        "6",
        "7",
        "F",
        "=",
        '"',
      ),
      fc.tuple(fc.constantFrom(..."aZ09_.-=:\"'"), fc.nat()).map(([c, how]) => escapeKeyChar(c, how)),
    ),
    { maxLength: 30 },
  )
  .map((pieces) => pieces.join(""));

const isKeyChar = (c: string): boolean => /^[A-Za-z0-9_.-]$/.test(c);

/** The decoded text maps back onto `text` in order, each escape to what the platform decodes. */
function expectFaithful(text: string): void {
  const d = decodeKeyEscapes({ text, start: null, end: null, invisible: false });
  if (d === null) return;
  const { start, end } = d as { start: Int32Array; end: Int32Array };
  expect(start.length).toBe(d.text.length);
  let at = 0;
  for (let i = 0; i < d.text.length; i++) {
    expect(start[i]).toBe(at);
    const piece = text.slice(start[i], end[i]);
    if (piece.length > 1) {
      expect(isKeyChar(d.text[i]!)).toBe(true);
      expect(oracle(piece)).toBe(d.text[i]);
    } else expect(piece).toBe(d.text[i]);
    at = end[i]!;
  }
  expect(at).toBe(text.length);
}

describe("decodeKeyEscapes", () => {
  it("maps the decoded text back onto the original, in order, each escape to what the platform decodes", () => {
    fc.assert(fc.property(escapeish, expectFaithful), { numRuns: 3000 });
  });

  it("stays faithful from long text to short and back (its memory is reused from call to call)", () => {
    fc.assert(
      fc.property(escapeish, fc.integer({ min: 20, max: 200 }), escapeish, (long, times, short) => {
        expectFaithful(long.repeat(times));
        expectFaithful(short);
        expectFaithful(long.repeat(times));
      }),
      { numRuns: 20 },
    );
  });

  it("leaves escaped quotes and separators as written (the grammar reads them)", () => {
    for (const how of [0, 1, 2, 3, 4])
      for (const c of ['"', "'", "=", ":", "/", " "]) {
        const text = `a${escapeKeyChar(c, how)}b`;
        expect(decodeKeyEscapes({ text, start: null, end: null, invisible: false })).toBeNull();
      }
  });

  it("composes with the shadow of invisible and fullwidth characters", () => {
    const out = redactText("ｐ\u200b\\u0061ssword=Zq9xK2mPw7 done");
    expect(out).toBe("ｐ\\u{200B}\\u0061ssword=[redacted:key-value] done");
  });
});
