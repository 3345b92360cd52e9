/**
 * The benchmark scenario loads into the real kube API simulator, and the sequenced appender's lines
 * come back over HTTP, in order, with the times it remembers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SequencedAppender } from "../../../bench/support/appender.ts";
import { sequenceOf } from "../../../bench/support/delivery.ts";
import { benchScenario, principals, RAISED_LIMITS, TARGET } from "../../../bench/support/scenario.ts";
import { type KubeSim, startKubeSim } from "../../../local/kube-sim/index.ts";

describe("SequencedAppender on the simulator", () => {
  let sim: KubeSim;
  const loadTime = new Date("2026-11-29T12:00:00Z");

  beforeAll(async () => {
    const scenario = { ...benchScenario({ principals: principals(3), initialLines: 5 }), clock: "manual" };
    sim = await startKubeSim({ scenario, loadTime });
  });
  afterAll(async () => {
    await sim?.close();
  });

  const readLog = async () => {
    const url =
      `${sim.clusterUrl(TARGET.clusterId)}/api/v1/namespaces/${TARGET.namespace}/pods/${TARGET.pod}/log` +
      `?container=${TARGET.container}&timestamps=true`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${sim.token(TARGET.clusterId)}` } });
    expect(res.status).toBe(200);
    return (await res.text()).split("\n").filter((l) => l !== "");
  };

  it("loads the scenario with its grants and raised limits", () => {
    expect(sim.scenario.limits).toEqual(RAISED_LIMITS);
    expect(sim.scenario.registry.grants.map((g) => g.principalId)).toEqual([
      "bench-00",
      "bench-01",
      "bench-02",
    ]);
  });

  it("numbers lines 1, 2, 3… in batches sharing the simulator's time", async () => {
    const appender = new SequencedAppender(sim);
    expect(appender.append(2)).toBe(2);
    sim.advanceClock(1500);
    expect(appender.append(3)).toBe(5);
    expect(appender.last).toBe(5);
    expect(appender.timeOf(1)).toBe(loadTime.getTime());
    expect(appender.timeOf(2)).toBe(loadTime.getTime());
    expect(appender.timeOf(5)).toBe(loadTime.getTime() + 1500);
    expect(appender.timeOf(0)).toBeUndefined();
    expect(appender.timeOf(6)).toBeUndefined();

    const lines = await readLog();
    expect(lines).toHaveLength(5 + 5);
    const tagged = lines.slice(5);
    expect(tagged.map((l) => sequenceOf(l))).toEqual([1, 2, 3, 4, 5]);
    expect(tagged.map((l) => Date.parse(l.slice(0, l.indexOf(" "))))).toEqual(
      [1, 2, 3, 4, 5].map((s) => appender.timeOf(s)),
    );
    // The scenario's own lines are older and carry no sequence number.
    expect(lines.slice(0, 5).every((l) => sequenceOf(l) === null)).toBe(true);
  });
});
