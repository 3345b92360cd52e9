/**
 * R9 over HTTP: a node that ignores the log query and answers 1 MiB of newlines, of `{` lines, of
 * PEM markers or of one character (the simulator's `rawLog` fault) gets a page with its gaps and
 * withheld lines labeled, or 503 RUNTIME_LOGS_UNAVAILABLE when the body is unusable as a whole —
 * never 500 or 504, never a secret-shaped byte, for a new view and for a cursor poll alike.
 */
import { afterEach, describe, expect, it } from "vitest";
import { apiSuite, CLUSTER, GW_POD, HIGH_LIMITS, K8S_NS, LOGS, type Reply, scenario } from "./support.ts";

const suite = apiSuite(() => scenario(["INFO before the node went bad"], { limits: HIGH_LIMITS }));
const { get } = suite;
afterEach(() => {
  suite.stack.sim.setFault({ cluster: CLUSTER, rawLog: null });
});

const MIB = 1024 * 1024;
const BODIES: Array<[string, string]> = [
  ["newlines", "\n"],
  ["open braces", "{\n"],
  ["PEM markers", "-----BEGIN PRIVATE KEY-----\n"],
  ["one character", "x\n"],
  ["a single 1 MiB line", "A"],
  ["a JSON line cut at 1 MiB", '{"level":"info","message":"'],
];

function serve(unit: string): void {
  suite.stack.sim.setFault({
    cluster: CLUSTER,
    rawLog: {
      namespace: K8S_NS,
      pod: GW_POD,
      container: "gateway",
      body: unit,
      repeat: Math.floor(MIB / unit.length),
    },
  });
}

/** A page or the documented 503; nothing else. */
function expectPageOr503(reply: Reply): void {
  expect([200, 503]).toContain(reply.status);
  if (reply.status === 503) {
    expect(reply.json.error.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    return;
  }
  const page = reply.json.data;
  expect(Array.isArray(page.records)).toBe(true);
  expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(524_288);
  // Every record is one of the labeled kinds; lost or refused lines say why.
  for (const r of page.records) {
    expect(["line", "gap", "withheld"]).toContain(r.type);
    if (r.type === "gap") expect(typeof r.remedy).toBe("string");
    if (r.type === "withheld")
      expect(["unrecognised_structured", "oversized", "malformed"]).toContain(r.reason);
  }
  expect(reply.text).not.toContain("PRIVATE KEY");
}

describe("hostile log bodies (rawLog fault)", () => {
  for (const [name, unit] of BODIES) {
    it(`1 MiB of ${name}: a labeled page or 503, for a new view and its cursor poll`, async () => {
      serve(unit);
      const first = await get(`${LOGS}?source=gateway&tailLines=1000`);
      expectPageOr503(first);
      if (first.status === 200 && first.json.data.cursor) {
        const next = await get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(first.json.data.cursor)}`);
        expectPageOr503(next);
      }
    });
  }

  it("newlines and braces are accounted for, bounded by the tail", async () => {
    serve("{\n");
    const reply = await get(`${LOGS}?source=gateway&tailLines=50`);
    expect(reply.status).toBe(200);
    const page = reply.json.data;
    expect(page.withheld).toBeGreaterThan(0);
    expect(page.withheld).toBeLessThanOrEqual(50);
    expect(page.records.filter((r: { type: string }) => r.type === "withheld")).toEqual([
      { type: "withheld", time: null, count: page.withheld, reason: "malformed" },
    ]);
  });
});
