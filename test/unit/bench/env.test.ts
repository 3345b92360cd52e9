/** Benchmark knobs: only plain positive integers override a default. */
import { describe, expect, it } from "vitest";
import { envInt } from "../../../bench/support/env.ts";

describe("envInt", () => {
  it("reads a positive integer and falls back on anything else", () => {
    expect(envInt("N", 60, { N: "5" })).toBe(5);
    for (const bad of [undefined, "", "0", "-3", "1e3", "2.5", " 7", "abc", "1234567890"]) {
      expect(envInt("N", 60, bad === undefined ? {} : { N: bad })).toBe(60);
    }
  });
});
