/**
 * Timing in rounds: every way handles every shape once per round, the ways of one shape back to
 * back (so their samples share the machine's moments), the first way rotating from round to round.
 */
import { describe, expect, it } from "vitest";
import { timeInRounds, timeWaysInRounds } from "../../../bench/support/rounds.ts";

const shapes = [
  { name: "a", line: "first" },
  { name: "b", line: "second" },
];

describe("timeWaysInRounds", () => {
  it("times each way on each shape once per round, back to back, the first way rotating", () => {
    const calls: string[] = [];
    const way = (tag: string) => (line: string) => {
      calls.push(`${tag}:${line}`);
    };
    const results = timeWaysInRounds(shapes, [way("x"), way("y"), way("z")], 4);
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r.perShape).toHaveLength(2);
      expect(r.perShape.every((ms) => ms >= 0)).toBe(true);
      expect(["a", "b"]).toContain(r.worstCase);
    }
    // Round 0: x y z on each shape; round 1: y z x; round 2: z x y; round 3: x y z.
    const expected = ["xyz", "yzx", "zxy", "xyz"].flatMap((order) =>
      ["first", "second"].flatMap((line) => [...order].map((tag) => `${tag}:${line}`)),
    );
    expect(calls).toEqual(expected);
  });

  it("with one way is timeInRounds: each shape once per round, in order", () => {
    const calls: string[] = [];
    const result = timeInRounds(shapes, (line) => calls.push(line), 3);
    expect(calls).toEqual(["first", "second", "first", "second", "first", "second"]);
    expect(result.perShape).toHaveLength(2);
    expect(result.worst).toBe(Math.max(...result.perShape));
  });
});
