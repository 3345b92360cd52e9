/**
 * R11 over HTTP, through the kube API simulator: a line dated far in the future does not stop a
 * follower, a node clock step back (the simulator's clock moved back an hour) is found on an idle
 * poll with a clock_step gap, and a node clock stepped minutes ahead is followed line by line, also
 * once the service's clock catches up with its lines; no line is delivered twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiSuite, CLUSTER, GW_POD, HIGH_LIMITS, K8S_NS, LOGS, scenario } from "./support.ts";

// The service's clock is the process's Date.now, read through this skew so a test can move it on
// (the handlers capture Date.now when the stack starts). The simulator keeps its manual clock.
const realNow = Date.now;
let skewMs = 0;

// Before the stack starts, and put back after it has closed (after hooks run in reverse order).
beforeAll(() => {
  Date.now = () => realNow() + skewMs;
});
afterAll(() => {
  Date.now = realNow;
});
const suite = apiSuite(() => scenario(["INFO first line"], { limits: HIGH_LIMITS }));
const { get } = suite;

const append = (lines: Array<[string, string]>) =>
  suite.stack.sim.append({ cluster: CLUSTER, namespace: K8S_NS, pod: GW_POD, container: "gateway", lines });

interface Rec {
  type: string;
  reason?: string;
  message?: string;
}

/** Polls with the cursor, collecting every record. */
function follower() {
  let cursor: string | null = null;
  const seen: Rec[] = [];
  return {
    seen,
    async poll(): Promise<Rec[]> {
      const q = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const reply = await get(`${LOGS}?source=gateway&tailLines=50${q}`);
      expect(reply.status).toBe(200);
      cursor = reply.json.data.cursor;
      seen.push(...reply.json.data.records);
      return reply.json.data.records;
    },
  };
}

const messages = (rs: Rec[]) => rs.filter((r) => r.type === "line").map((r) => r.message);

describe("hostile clocks end to end", () => {
  it("a far-future line is shown once and later lines keep arriving", async () => {
    const f = follower();
    await f.poll();
    append([
      ["2099-01-01T00:00:00Z", "INFO a line from the future"],
      ["now", "INFO after the future 1"],
    ]);
    suite.stack.sim.advanceClock(1000);
    await f.poll();
    append([["now", "INFO after the future 2"]]);
    suite.stack.sim.advanceClock(1000);
    await f.poll();
    append([["now", "INFO after the future 3"]]);
    await f.poll();
    const shown = messages(f.seen);
    expect(shown.filter((m) => m === "INFO a line from the future")).toHaveLength(1);
    for (const i of [1, 2, 3])
      expect(shown.filter((m) => m === `INFO after the future ${i}`)).toHaveLength(1);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it("a node clock step back: an idle poll finds the hidden lines after a clock_step gap", async () => {
    const f = follower();
    await f.poll();
    append([["now", "INFO before the step"]]);
    suite.stack.sim.advanceClock(1000);
    await f.poll();
    // The node's clock moves back an hour; its new lines carry earlier times than the frontier.
    suite.stack.sim.setClock("now-1h");
    append([
      ["now", "INFO after the step 1"],
      ["now", "INFO after the step 2"],
    ]);
    // The service's clock moves on 40 s: the view is idle long enough to probe.
    skewMs += 40_000;
    const found = await f.poll();
    const gapIndex = found.findIndex((r) => r.type === "gap" && r.reason === "clock_step");
    expect(gapIndex).toBeGreaterThanOrEqual(0);
    expect(messages(found.slice(gapIndex))).toEqual(["INFO after the step 1", "INFO after the step 2"]);
    // From here lines on the node's new clock keep arriving, once each.
    suite.stack.sim.advanceClock(1000);
    append([["now", "INFO after the step 3"]]);
    skewMs += 1000;
    expect(messages(await f.poll())).toEqual(["INFO after the step 3"]);
    const shown = messages(f.seen);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it("a node clock step forward: lines minutes ahead are shown once, also when the service catches up", async () => {
    // Node and service agree, then the node's clock jumps three minutes ahead (beyond the 60 s a
    // line may lead the service's clock and still move the frontier).
    suite.stack.sim.setClock(new Date(Date.now()));
    const f = follower();
    await f.poll();
    append([["now", "INFO before the forward step"]]);
    suite.stack.sim.advanceClock(1000);
    skewMs += 1000;
    expect(messages(await f.poll())).toContain("INFO before the forward step");
    suite.stack.sim.setClock(new Date(Date.now() + 180_000));
    append([
      ["now", "INFO ahead 1"],
      ["now", "INFO ahead 2"],
    ]);
    suite.stack.sim.advanceClock(1000);
    skewMs += 1000;
    expect(messages(await f.poll())).toEqual(["INFO ahead 1", "INFO ahead 2"]);
    // The service's clock moves on 150 s: those lines are no longer far-future for it, and are not
    // shown again; the node, still three minutes ahead, keeps writing.
    skewMs += 150_000;
    suite.stack.sim.advanceClock(150_000);
    append([["now", "INFO ahead 3"]]);
    expect(messages(await f.poll())).toEqual(["INFO ahead 3"]);
    for (const i of [4, 5]) {
      skewMs += 5_000;
      suite.stack.sim.advanceClock(5_000);
      append([["now", `INFO ahead ${i}`]]);
      expect(messages(await f.poll())).toEqual([`INFO ahead ${i}`]);
    }
    expect(f.seen.filter((r) => r.type === "gap")).toEqual([]);
    const shown = messages(f.seen);
    expect(new Set(shown).size).toBe(shown.length);
  });
});
