/**
 * The grammars of docs/redaction.md as properties of `redactText`: generated secrets in every key
 * form, separator, quoting, escaping depth and disguise, URL authority, provider token, identity
 * quoting and marker trick are masked whole (no canary segment survives).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import {
  identityShape,
  keyValueShape,
  leaks,
  markerShape,
  providerShape,
  type Shape,
  urlShape,
} from "./shapes.ts";

const masksAll = (arb: fc.Arbitrary<Shape>, numRuns: number): void => {
  fc.assert(
    fc.property(arb, (shape) => {
      const out = redactText(shape.text);
      expect(
        leaks([shape], out),
        `${shape.family}: ${JSON.stringify(shape.text)} → ${JSON.stringify(out)}`,
      ).toEqual([]);
      expect(out).toMatch(/\[redacted:|\[withheld\]/);
    }),
    { numRuns },
  );
};

describe("§3a grammars (generated)", () => {
  it("key-value: every key form, separator, quoting, escaping depth 0–3 and disguise", () => {
    masksAll(keyValueShape, 1500);
  });
  it("URL authorities: empty user, bare token user, @ / ? : # inside the password", () => {
    masksAll(urlShape, 500);
  });
  it("provider tokens of the catalog, after any lead character", () => {
    masksAll(providerShape, 800);
  });
  it("identities in every quoting are never shown raw", () => {
    masksAll(identityShape, 300);
  });
  it("markers and pseudonyms shield nothing", () => {
    masksAll(markerShape, 200);
  });
});
