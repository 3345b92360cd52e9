/**
 * The logs contract end to end over HTTP on the local stack: a follow session across appends, a
 * restart and a Pod replacement; the canary corpus through every response; cursor tampering and
 * replay; and a fuzz of paths and queries (R1, R2, R3, R6).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LOG_QUERY_PARAMETERS } from "../../../lib/api/schemas.ts";
import {
  apiSuite,
  CLUSTER,
  canaries,
  GW_POD,
  H_POD,
  HIGH_LIMITS,
  K8S_NS,
  LOGS,
  NS,
  type Reply,
  RUNTIME,
  scenario,
} from "./support.ts";

const corpus = canaries();

const suite = apiSuite(() =>
  scenario(corpus.lines, {
    limits: HIGH_LIMITS,
    eventMessage: `Liveness probe failed on node ${corpus.node} with token ${corpus.secrets.github}`,
  }),
);
const { get } = suite;

const logReads = () => suite.stack.sim.stats().total.logReads;

function expectNoCanary(reply: Reply) {
  const everything = `${reply.text}\n${[...reply.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n")}`;
  for (const value of corpus.values) expect(everything).not.toContain(value);
}

describe("follow session", () => {
  const at = (offsetMs: number) => new Date(suite.stack.sim.now().getTime() + offsetMs).toISOString();
  const append = (pod: string, seqs: number[]) =>
    suite.stack.sim.append({
      cluster: CLUSTER,
      namespace: K8S_NS,
      pod,
      container: "harness",
      lines: seqs.map((n, i) => [at(i + 1), `INFO step seq=${n}`]),
    });
  const seqsOf = (reply: Reply): number[] =>
    reply.json.data.records
      .filter((r: { type: string }) => r.type === "line")
      .map((r: { message: string }) => /seq=(\d+)/.exec(r.message)?.[1])
      .filter(Boolean)
      .map(Number);
  const gapsOf = (reply: Reply): string[] =>
    reply.json.data.records
      .filter((r: { type: string }) => r.type === "gap")
      .map((r: { reason: string }) => r.reason);

  it("delivers every line once across appends, a restart and a Pod replacement, with gaps where due", async () => {
    const delivered: number[] = [];
    const poll = async (cursor: string | null) => {
      const reply = await get(
        `${LOGS}?source=agent${cursor ? `&cursor=${encodeURIComponent(cursor)}` : "&tailLines=50"}`,
      );
      expect(reply.status).toBe(200);
      delivered.push(...seqsOf(reply));
      return reply;
    };

    append(H_POD, [1, 2]);
    suite.stack.sim.advanceClock(1000);
    let page = await poll(null);
    expect(page.json.data.stream).toMatchObject({ pod: H_POD, container: "harness", previous: false });
    expect(seqsOf(page)).toEqual([1, 2]);

    append(H_POD, [3, 4, 5]);
    suite.stack.sim.advanceClock(1000);
    page = await poll(page.json.data.cursor);
    expect(seqsOf(page)).toEqual([3, 4, 5]);

    suite.stack.sim.advanceClock(1000);
    page = await poll(page.json.data.cursor);
    expect(seqsOf(page)).toEqual([]);

    suite.stack.sim.restart({
      cluster: CLUSTER,
      namespace: K8S_NS,
      pod: H_POD,
      container: "harness",
      exitCode: 1,
      reason: "Error",
    });
    append(H_POD, [6, 7]);
    suite.stack.sim.advanceClock(1000);
    page = await poll(page.json.data.cursor);
    expect(gapsOf(page)).toContain("stream_replaced");
    expect(seqsOf(page)).toEqual([6, 7]);
    expect(page.json.data.stream.restartCount).toBe(1);

    const replacement = suite.stack.sim.replacePod({
      cluster: CLUSTER,
      namespace: K8S_NS,
      pod: H_POD,
      newName: "h-1",
      newUid: "6f1c0000-0000-4000-8000-0000000000aa",
    });
    append(replacement.name, [8]);
    suite.stack.sim.advanceClock(1000);
    page = await poll(page.json.data.cursor);
    expect(page.json.data.stream.pod).toBe("h-1");
    expect(gapsOf(page)).toContain("stream_replaced");
    expect(seqsOf(page)).toEqual([8]);

    expect(delivered).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe("no leak (R1)", () => {
  it("masks every canary in pages, minLevel pages, downloads and the runtime description", async () => {
    const page = await get(`${LOGS}?source=gateway&tailLines=1000`);
    expect(page.status).toBe(200);
    expectNoCanary(page);
    expect(page.text).toContain("[redacted:");
    for (const level of ["error", "warn", "info", "debug"])
      expectNoCanary(await get(`${LOGS}?source=gateway&minLevel=${level}`));
    const download = await get(`${LOGS}/download?source=gateway`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="support-d2-gateway-${GW_POD}.log"`,
    );
    expect(download.text.startsWith("# agent=support deployment=d2 source=gateway pod=gw-0")).toBe(true);
    expectNoCanary(download);
    const viaLogs = await get(`${LOGS}?source=gateway&download=true&tailLines=3`);
    expect(viaLogs.status).toBe(200);
    expect(viaLogs.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    // A download always takes the newest 1000 lines: tailLines is accepted and ignored.
    expect(viaLogs.text.split("\n").length).toBe(download.text.split("\n").length);
    expectNoCanary(viaLogs);
    const status = await get(RUNTIME);
    expect(status.status).toBe(200);
    expect(status.json.data.pods.length).toBeGreaterThan(0);
    expectNoCanary(status);
  });

  it("never echoes request text into error bodies", async () => {
    for (const value of corpus.values) {
      const reply = await get(
        `${LOGS}?source=gateway&${encodeURIComponent(value.slice(0, 60))}=1&pod=${encodeURIComponent(value)}`,
      );
      expect(reply.status).toBe(400);
      expectNoCanary(reply);
      const tampered = await get(
        `${LOGS}?source=gateway&cursor=v1.${value.replace(/[^A-Za-z0-9_-]/g, "")}.x`,
      );
      expect(tampered.status).toBe(400);
      expectNoCanary(tampered);
    }
  });
});

describe("cursor tampering (R3)", () => {
  it("rejects flipped bytes, foreign principals, other sources and other deployments with zero log reads", async () => {
    const page = await get(`${LOGS}?source=gateway`);
    const cursor: string = page.json.data.cursor;
    expect(cursor).toMatch(/^v1\./);
    const before = logReads();
    const flips = [1, 5, Math.floor(cursor.length / 2), cursor.length - 2].map((i) => {
      const c = cursor[i] === "A" ? "B" : "A";
      return cursor.slice(0, i) + c + cursor.slice(i + 1);
    });
    for (const bad of flips) {
      const reply = await get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(bad)}`);
      expect(reply.status).toBe(400);
      expect(reply.json.error.code).toBe("RUNTIME_LOGS_CURSOR_INVALID");
    }
    const replay = await get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(cursor)}`, "carol");
    expect(replay.json.error.code).toBe("RUNTIME_LOGS_CURSOR_INVALID");
    const otherSource = await get(`${LOGS}?source=agent&cursor=${encodeURIComponent(cursor)}`);
    expect(otherSource.json.error.code).toBe("RUNTIME_LOGS_CURSOR_INVALID");
    const otherDeployment = await get(
      `${LOGS.replace("/d2/", "/d1/")}?source=gateway&cursor=${encodeURIComponent(cursor)}`,
    );
    expect(otherDeployment.json.error.code).toBe("RUNTIME_LOGS_CURSOR_INVALID");
    expect(logReads()).toBe(before);
    // The genuine cursor still works.
    expect((await get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
  });
});

describe("bad input (R6)", () => {
  const STABLE = new Set([
    "INVALID_REQUEST",
    "RUNTIME_LOGS_CURSOR_INVALID",
    "RUNTIME_LOGS_POD_INVALID",
    "RUNTIME_LOGS_SOURCE_UNAVAILABLE",
    "NOT_FOUND",
    "FORBIDDEN",
  ]);

  it("answers fuzzed paths and queries with 4xx and stable codes only, never a 500", async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        "acme",
        "support",
        "d2",
        "runtime",
        "logs",
        "download",
        "deployments",
        "..",
        "%2e%2e",
        "%00",
      ),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 70 }).map(encodeURIComponent),
    );
    const param = fc.tuple(
      fc.constantFrom(...LOG_QUERY_PARAMETERS, "x"),
      fc.oneof(
        fc.constantFrom("gateway", "agent", "sandbox", "true", "0", "1000", "-1"),
        fc.string({ unit: "binary", maxLength: 80 }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 8 }),
        fc.array(param, { maxLength: 5 }),
        async (segments, params) => {
          const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
          const path = `/namespaces/acme/agents/support/deployments/d2/runtime/${segments.join("/")}`;
          const reply = await get(`${path}${query ? `?${query}` : ""}`);
          expect(reply.status).toBeLessThan(500);
          if (reply.json?.error) expect(STABLE.has(reply.json.error.code)).toBe(true);
          expect(reply.text).not.toMatch(/\bat [\w.]+ \(|Error:/);
        },
      ),
      { numRuns: 150 },
    );
    const logs = fc.array(param, { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(logs, async (params) => {
        const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
        const reply = await get(`${LOGS}?${query}`);
        expect([200, 400]).toContain(reply.status);
        if (reply.status === 400) expect(STABLE.has(reply.json.error.code)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("rejects sandbox with pod, and answers a missing source as unavailable", async () => {
    expect((await get(`${LOGS}?source=sandbox&pod=gw-0`)).json.error.code).toBe("RUNTIME_LOGS_POD_INVALID");
    expect((await get(`${LOGS}?source=sandbox`)).json.error.code).toBe("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
    expect((await get(`${LOGS}?source=gateway&pod=nope`)).json.error.code).toBe("RUNTIME_LOGS_POD_INVALID");
    const d1 = `/namespaces/${NS}/agents/support/deployments/d1/runtime/logs?source=agent`;
    expect((await get(d1)).json.error.code).toBe("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
  });
});
