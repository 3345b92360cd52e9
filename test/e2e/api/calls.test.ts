/**
 * P9 (docs/quality.md) counted, not timed: a warm cursor poll makes exactly three cluster calls — the
 * Pod list the view is decided on, the log read of that very Pod, and the re-read of the Pod — as
 * the simulator's own request counters see them.
 */
import { describe, expect, it } from "vitest";
import { apiSuite, CLUSTER, GW_POD, HIGH_LIMITS, K8S_NS, LOGS, scenario } from "./support.ts";

const suite = apiSuite(() => scenario(["INFO hello"], { limits: HIGH_LIMITS }));
const { get } = suite;

function counted<T>(work: () => Promise<T>) {
  return async () => {
    const before = suite.stack.sim.stats().total;
    const result = await work();
    const after = suite.stack.sim.stats().total;
    return {
      result,
      requests: after.requests - before.requests,
      podLists: after.podLists - before.podLists,
      logReads: after.logReads - before.logReads,
      podGets: after.podGets - before.podGets,
      eventLists: after.eventLists - before.eventLists,
    };
  };
}

describe("cluster calls per request (P9)", () => {
  it("a new view and every warm cursor poll: list, read, re-read — nothing else", async () => {
    const first = await counted(() => get(`${LOGS}?source=gateway`))();
    expect(first.result.status).toBe(200);
    expect(first).toMatchObject({ requests: 3, podLists: 1, logReads: 1, podGets: 1, eventLists: 0 });

    let cursor: string = first.result.json.data.cursor;
    for (let i = 0; i < 5; i++) {
      suite.stack.sim.append({
        cluster: CLUSTER,
        namespace: K8S_NS,
        pod: GW_POD,
        container: "gateway",
        lines: [[new Date(suite.stack.sim.now().getTime() + 1).toISOString(), `INFO poll ${i}`]],
      });
      suite.stack.sim.advanceClock(1000);
      const poll = await counted(() => get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(cursor)}`))();
      expect(poll.result.status).toBe(200);
      expect(
        poll.result.json.data.records.some((r: { message?: string }) => r.message === `INFO poll ${i}`),
      ).toBe(true);
      expect(poll).toMatchObject({ requests: 3, podLists: 1, logReads: 1, podGets: 1, eventLists: 0 });
      cursor = poll.result.json.data.cursor;
    }
  });

  it("a denied request makes no cluster call; an unlisted Pod costs the list only", async () => {
    const denied = await counted(() => get(`${LOGS}?source=gateway`, "bob"))();
    expect(denied.result.status).toBe(403);
    expect(denied.requests).toBe(0);
    const badPod = await counted(() => get(`${LOGS}?source=gateway&pod=gw-9`))();
    expect(badPod.result.json.error.code).toBe("RUNTIME_LOGS_POD_INVALID");
    expect(badPod).toMatchObject({ requests: 1, podLists: 1, logReads: 0 });
  });
});
