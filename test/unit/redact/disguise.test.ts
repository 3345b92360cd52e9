/**
 * Disguises everywhere, and redaction of redacted text. The grammar suite puts invisible and
 * compatibility characters into key-value keys; an attacker (or a coloured logger's escape
 * sequences) puts them anywhere: into a URL's
 * scheme and userinfo, a provider token's prefix and body, an identity's key, a value. A reader
 * drops invisible characters and folds compatibility forms without noticing, so the oracle does
 * too: the output, invisibles removed and NFKC-folded, holds no canary. And the chain is a
 * projection: redacting its own output (without invisible characters, which come out escaped for
 * display) changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import {
  anyShape,
  fullwidth,
  INVISIBLES,
  identityShape,
  keyValueShape,
  providerShape,
  type Shape,
  urlShape,
} from "./shapes.ts";

/** How a disguise is applied to a shape's whole text. */
const disguise = fc.record({
  mode: fc.constantFrom("invisibles", "fullwidth slice", "nbsp", "invisibles and fullwidth", "colour"),
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
  slice: fc.tuple(fc.nat(), fc.nat()),
});

type DisguiseSpec = typeof disguise extends fc.Arbitrary<infer T> ? T : never;

function disguised(shape: Shape, d: DisguiseSpec): Shape {
  let text = shape.text;
  if (d.mode === "fullwidth slice" || d.mode === "invisibles and fullwidth") {
    const a = d.slice[0] % (text.length + 1);
    const b = a + (d.slice[1] % (text.length - a + 1));
    text = text.slice(0, a) + fullwidth(text.slice(a, b)) + text.slice(b);
  }
  if (d.mode === "invisibles" || d.mode === "invisibles and fullwidth") {
    for (const p of d.picks) {
      const at = p % (text.length + 1);
      text = text.slice(0, at) + INVISIBLES[p % INVISIBLES.length] + text.slice(at);
    }
  }
  if (d.mode === "nbsp") text = text.replaceAll(" ", "\u00a0");
  if (d.mode === "colour") {
    // A coloured logger's SGR sequences (and line erasure) anywhere in the text, as ESC [ or C1's
    // CSI; placed from the right, so none lands inside another.
    const places = d.picks.map((p) => p % (text.length + 1)).sort((a, b) => b - a);
    places.forEach((at, k) => {
      text = text.slice(0, at) + COLOURS[(d.picks[k]! + k) % COLOURS.length] + text.slice(at);
    });
  }
  return { ...shape, text, family: `${shape.family}/${d.mode}` };
}

const COLOURS = [
  "\x1b[0m",
  "\x1b[31m",
  "\x1b[1;32m",
  "\x1b[38;5;208m",
  "\x1b[38:2::255:0:0m",
  "\x1b[m",
  "\x1b[K",
  "\x9b33m",
];

const INVISIBLE = new RegExp(`[${INVISIBLES.join("")}]`, "gu");
/** Colour and line erasure as a terminal reads them (an independent pattern, not the shadow's scanner). */
const SGR = /(?:\x1b\[|\x9b)[0-9;:]*[mK]/g;
/** What a reader makes of the output: colour and invisibles dropped, compatibility forms folded. */
const read = (out: string): string => out.replace(SGR, "").replace(INVISIBLE, "").normalize("NFKC");

const masksDisguised = (arb: fc.Arbitrary<Shape>, numRuns: number): void => {
  fc.assert(
    fc.property(arb, disguise, (shape, d) => {
      const s = disguised(shape, d);
      const seen = read(redactText(s.text));
      for (const canary of shape.canaries) {
        expect(
          seen.includes(canary),
          `${s.family}: ${JSON.stringify(s.text)} → ${JSON.stringify(seen)}`,
        ).toBe(false);
      }
    }),
    { numRuns },
  );
};

describe("disguises anywhere in the text", () => {
  it("URL authorities", () => masksDisguised(urlShape, 400));
  it("provider tokens, prefix and body", () => masksDisguised(providerShape, 600));
  it("identities", () => masksDisguised(identityShape, 300));
  it("key-value values as well as keys", () => masksDisguised(keyValueShape, 600));
});

describe("redaction of redacted text", () => {
  // Invisible characters come out escaped for display (`\u{AD}`): that text is not the input's.
  const plain = anyShape.filter((s) => !redactText(s.text).includes("\\u{"));
  it("changes nothing: on text without invisible characters the chain is a projection", () => {
    fc.assert(
      fc.property(fc.array(plain, { minLength: 1, maxLength: 4 }), (shapes) => {
        const once = redactText(shapes.map((s) => s.text).join(" | "));
        expect(redactText(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});
