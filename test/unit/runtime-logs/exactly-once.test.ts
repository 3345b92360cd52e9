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

/**
 * The model properties are CPU-bound and deterministic (about 20 s for the hostile-clock one on an
 * idle 2-core machine): the default timeout would fail them on a loaded machine, not a broken one.
 */
const MODEL_TIMEOUT_MS = 180_000;

/** A model log of `lines` (ns after T0, text), and the record the checker expects for each. */
function modelLines(lines: readonly (readonly [bigint, string])[]) {
  const log = new ModelLog("u", 0);
  const base = BigInt(T0) * 1_000_000n;
  for (const [ns, text] of lines) log.append(base + ns, text);
  const line = (e: Entry): LogRecord => ({
    type: "line",
    kind: "text",
    level: "unknown",
    ...log.expected(e),
  });
  const global = log.entries.map((entry) => ({ log, entry }));
  return { global, line, entries: log.entries };
}

describe("exactly once or a gap (R2)", { timeout: MODEL_TIMEOUT_MS }, () => {
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
    // The schedules' seeds are drawn by fast-check from one run seed, fixed here so that a run is
    // reproducible: sweeps (R11_SEED=random, or runSchedule over seed ranges; 180 000 schedules)
    // find none that breaks a promise; the ones earlier sweeps found are kept in clock-steps.test.ts.
    // A failure names the schedule's seed; runSchedule(seed, trace, { hostileClocks: true }) replays it.
    const runSeed =
      process.env.R11_SEED === "random" ? undefined : Number(process.env.R11_SEED ?? 20_261_201);
    let schedules = 0;
    const withEvent = { back: 0, forward: 0, future: 0 };
    let probes = 0;
    let lines = 0;
    const gaps: Record<string, number> = {};
    const unobservable = { lines: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (s) => {
        const o = runSchedule(s, undefined, { hostileClocks: true });
        schedules++;
        if (o.steps.back > 0) withEvent.back++;
        if (o.steps.forward > 0) withEvent.forward++;
        if (o.steps.future > 0) withEvent.future++;
        probes += o.probes;
        lines += o.global.length;
        for (const r of o.records) if (r.type === "gap") gaps[r.reason] = (gaps[r.reason] ?? 0) + 1;
        // No duplicate, and no loss outside a gap but for lines no read or probe ever returned.
        const problem = check(o, { unobservable: true, passed: unobservable });
        if (problem !== null) throw new Error(`schedule seed ${s}: ${problem}`);
        if (!o.followerSaw) throw new Error(`schedule seed ${s}: the follower went blind`);
      }),
      { numRuns: 1000, ...(runSeed === undefined ? {} : { seed: runSeed }) },
    );
    console.info(
      `R11: ${schedules} schedules; with a step back ${withEvent.back}, a step forward ${withEvent.forward}, ` +
        `a far-future line ${withEvent.future}; ${probes} probes; ${lines} lines; gaps ${JSON.stringify(gaps)}; ` +
        `0 duplicates, 0 lines lost outside a gap that a read returned, ${unobservable.lines} lines that no read ` +
        "returned passed without a gap (a step back and forward, or a step back and catch-up, between two polls)",
    );
    expect(schedules).toBeGreaterThanOrEqual(1000);
    // Most schedules meet each kind of hostile clock.
    expect(withEvent.back).toBeGreaterThan(550);
    expect(withEvent.forward).toBeGreaterThan(550);
    expect(withEvent.future).toBeGreaterThan(550);
    expect(probes).toBeGreaterThan(0);
    expect(gaps.clock_step ?? 0).toBeGreaterThan(0);
    // The pipeline's blind spot stays small: measured 0.15–0.3 % of lines (1.5 % before the probe
    // placed lines by log order on every idle poll).
    expect(unobservable.lines).toBeLessThan(lines * 0.006);
  });

  it("the hostile-clock checker passes over only lines no read returned by then", () => {
    const { global, line, entries } = modelLines([
      [5_000_000_000n, "one"],
      [0n, "stepped back"],
      [6_000_000_000n, "two"],
    ]);
    const [one, stepped, two] = entries as [Entry, Entry, Entry];
    const records = [line(one), line(two)];
    // "one" at poll 0, "two" at poll 1; no read returned "stepped back": passed over, counted.
    const unseen = {
      records,
      global,
      recordPolls: [0, 1],
      seenAt: new Map([
        [one, 0],
        [two, 1],
      ]),
    };
    const passed = { lines: 0 };
    expect(check(unseen, { unobservable: true, passed })).toBeNull();
    expect(passed.lines).toBe(1);
    // A read of poll 1 returned it: skipping it is a loss outside a gap.
    const seen = {
      ...unseen,
      seenAt: new Map([
        [one, 0],
        [stepped, 1],
        [two, 1],
      ]),
    };
    expect(check(seen, { unobservable: true })).not.toBeNull();
    // Returned only by a later poll: not seen when "two" was delivered, so it was not observable.
    const later = {
      ...unseen,
      seenAt: new Map([
        [one, 0],
        [stepped, 2],
        [two, 1],
      ]),
    };
    expect(check(later, { unobservable: true })).toBeNull();
    // Without the option, any skip is a loss; and a repeat is a duplicate either way.
    expect(check(unseen)).not.toBeNull();
    expect(
      check(
        { ...unseen, records: [line(one), line(two), line(two)], recordPolls: [0, 1, 1] },
        { unobservable: true },
      ),
    ).not.toBeNull();
  });

  it("the checker rejects a duplicated line and an unreported loss", () => {
    const { global, line, entries } = modelLines([
      [0n, "one"],
      [1n, "two"],
      [2n, "three"],
    ]);
    const [a, b, c] = entries as [Entry, Entry, Entry];
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
