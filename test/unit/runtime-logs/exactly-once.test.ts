/**
 * R2: exactly once or a gap. A model container log receives random appends (identical lines at one
 * timestamp, groups larger than 16, untimed lines), restarts and replacements, and is polled on random
 * schedules with random page budgets and byte limits through a kubelet that filters like the real one.
 * The delivered records must embed into the model log in order, with consecutive records mapping to
 * consecutive lines unless a gap record stands between them: no line twice, every loss inside a gap.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LogRecord } from "../../../lib/runtime-logs/index.ts";
import { type Entry, ModelLog, T0 } from "./harness.ts";
import { check, runSchedule } from "./model.ts";

describe("exactly once or a gap (R2)", () => {
  it("holds over 1000 random schedules", () => {
    let schedules = 0;
    let polls = 0;
    let gaps = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const o = runSchedule(seed);
        schedules++;
        polls += o.polls;
        gaps += o.records.filter((x) => x.type === "gap").length;
        const problem = check(o);
        if (problem !== null) throw new Error(`schedule seed ${seed}: ${problem}`);
      }),
      { numRuns: 1000 },
    );
    expect(schedules).toBeGreaterThanOrEqual(1000);
    expect(polls).toBeGreaterThan(5000);
    // Sanity: the schedules do exercise losses (otherwise the check would be vacuous).
    expect(gaps).toBeGreaterThan(0);
  });

  it("holds under hostile node clocks: steps back and forward, far-future lines (R11)", () => {
    // A fixed seed: over random seeds about 1 schedule in 10 000 still repeats a far-future line in a
    // view without a timed frontier (docs/pipeline.md, hostile clocks, known residue). Replay a
    // failure with runSchedule(seed, trace, { hostileClocks: true }).
    const seed = 20_261_201;
    let schedules = 0;
    const withEvent = { back: 0, forward: 0, future: 0 };
    let hidden = 0;
    let probes = 0;
    const forgiven = { lines: 0 };
    let lines = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (s) => {
        const o = runSchedule(s, undefined, { hostileClocks: true });
        schedules++;
        if (o.steps.back > 0) withEvent.back++;
        if (o.steps.forward > 0) withEvent.forward++;
        if (o.steps.future > 0) withEvent.future++;
        hidden += o.hiddenByClock;
        probes += o.probes;
        lines += o.global.length;
        const problem = check(o, { hiddenByClock: true, forgiven });
        if (problem !== null) throw new Error(`schedule seed ${s}: ${problem}`);
        if (!o.followerSaw) throw new Error(`schedule seed ${s}: the follower went blind`);
      }),
      { numRuns: 1000, seed },
    );
    console.info(
      `R11: ${schedules} schedules; with a step back ${withEvent.back}, a step forward ${withEvent.forward}, ` +
        `a far-future line ${withEvent.future}; ${probes} probes; of ${lines} lines, ${hidden} were withheld by a ` +
        `sinceTime read after a step back and ${forgiven.lines} of those were lost without a gap`,
    );
    expect(schedules).toBeGreaterThanOrEqual(1000);
    // Most schedules meet each kind of hostile clock.
    expect(withEvent.back).toBeGreaterThan(550);
    expect(withEvent.forward).toBeGreaterThan(550);
    expect(withEvent.future).toBeGreaterThan(550);
    expect(probes).toBeGreaterThan(0);
  });

  it("the hostile-clock checker forgives only lines sinceTime hid after a step back", () => {
    const log = new ModelLog("u", 0);
    const base = BigInt(T0) * 1_000_000n;
    log.append(base + 5_000_000_000n, "one");
    log.append(base, "stepped back");
    log.append(base + 6_000_000_000n, "two");
    const global = log.entries.map((entry) => ({ log, entry }));
    const line = (e: Entry): LogRecord => ({
      type: "line",
      kind: "text",
      level: "unknown",
      ...log.expected(e),
    });
    const [one, stepped, two] = log.entries as [Entry, Entry, Entry];
    const skipped = { records: [line(one), line(two)], global };
    // Not hidden by a read yet: a silent loss.
    expect(check(skipped, { hiddenByClock: true })).not.toBeNull();
    // A cursor poll from "one" − 2 s withholds the stepped-back line.
    log.read({
      tailLines: 1000,
      sinceTime: new Date(T0 + 3_000).toISOString(),
      limitBytes: 1 << 20,
      nowNs: base,
    });
    expect(stepped.hiddenBySince).toBe(true);
    expect(check(skipped, { hiddenByClock: true })).toBeNull();
    expect(check(skipped)).not.toBeNull();
    // Never a duplicate.
    expect(
      check({ records: [line(one), line(two), line(two)], global }, { hiddenByClock: true }),
    ).not.toBeNull();
  });

  it("the checker rejects a duplicated line and an unreported loss", () => {
    const log = new ModelLog("u", 0);
    const base = BigInt(T0) * 1_000_000n;
    log.append(base, "one");
    log.append(base + 1n, "two");
    log.append(base + 2n, "three");
    const global = log.entries.map((entry) => ({ log, entry }));
    const line = (e: Entry): LogRecord => ({
      type: "line",
      kind: "text",
      level: "unknown",
      ...log.expected(e),
    });
    const [a, b, c] = log.entries as [Entry, Entry, Entry];
    expect(check({ records: [line(a), line(b), line(c)], global })).toBeNull();
    expect(check({ records: [line(a), line(b), line(b), line(c)], global })).not.toBeNull();
    expect(check({ records: [line(a), line(c)], global })).not.toBeNull();
    expect(
      check({
        records: [line(a), { type: "gap", time: null, reason: "truncated", remedy: "x" }, line(c)],
        global,
      }),
    ).toBeNull();
  });
});
