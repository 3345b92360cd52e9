/**
 * The vendored bench corpus stays the published one: its file bytes, and the SHA-256 of what it
 * generates for seed 1 (docs/quality.md § Bench corpus), so benchmark figures compare across runs
 * and projects. `hostile(1)` is hashed as its lines joined by `\n`, as the generator's own summary does.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hostile, realistic } from "../../../bench/corpus.mjs";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

describe("bench corpus", () => {
  it("is the published generator, byte for byte", () => {
    const file = readFileSync(new URL("../../../bench/corpus.mjs", import.meta.url));
    expect(sha256(file)).toBe("12af57d5ef28d9371f432c0ef52b944dacdb982f5eced436286421a839fab661");
  });

  it("realistic(1) and hostile(1) hash to the pinned prefixes", () => {
    expect(sha256(realistic(1)).slice(0, 16)).toBe("3c23d08451e02641");
    expect(
      sha256(
        hostile(1)
          .map((h) => h.line)
          .join("\n"),
      ).slice(0, 16),
    ).toBe("8d8309cf642ec027");
  });

  it("is seeded: another seed gives other bytes, the same seed the same", () => {
    expect(sha256(realistic(2))).not.toBe(sha256(realistic(1)));
    expect(realistic(1)).toBe(realistic(1));
  });
});
