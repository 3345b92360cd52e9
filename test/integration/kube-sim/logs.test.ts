/** Kubelet log semantics over real HTTP, parameter by parameter (docs/kube.md § The kube API simulator). */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KubeSim } from "../../../local/kube-sim/index.ts";
import { renderLog } from "../../../local/kube-sim/kubelet-log.ts";
import type { LogLine } from "../../../local/scenario/schema.ts";
import { formatKubeletTime } from "../../../local/scenario/time.ts";
import { LOG, mainGet, startBasic } from "./helpers.ts";

const ALL = ["line 1", "line 2 ünïcödé", "line 3", "line 4", "line 5"];
const body = (lines: string[]) => lines.map((l) => `${l}\n`).join("");

let sim: KubeSim;
beforeEach(async () => {
  sim = await startBasic();
});
afterEach(async () => {
  await sim.close();
});

describe("log reads", () => {
  it("serves the current instance as text/plain, one line per record", async () => {
    const r = await mainGet(sim, LOG);
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/plain/);
    expect(r.text).toBe(body(ALL));
  });

  it("timestamps=true prefixes kubelet's UTC time with nine fraction digits and one space", async () => {
    const r = await mainGet(sim, `${LOG}?timestamps=true`);
    const lines = r.text.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \S/);
    expect(lines[0]).toBe("2026-11-29T11:59:50.000000001Z line 1");
    expect(lines[2]).toBe("2026-11-29T11:59:54.500000000Z line 3");
    expect(lines[3]).toBe("2026-11-29T11:59:56.123456789Z line 4");
  });

  it("tailLines takes the last N lines (0 → nothing, more than all → all)", async () => {
    expect((await mainGet(sim, `${LOG}?tailLines=2`)).text).toBe(body(ALL.slice(-2)));
    expect((await mainGet(sim, `${LOG}?tailLines=0`)).text).toBe("");
    expect((await mainGet(sim, `${LOG}?tailLines=100`)).text).toBe(body(ALL));
  });

  it("sinceSeconds drops lines older than the simulator's now minus N seconds", async () => {
    expect((await mainGet(sim, `${LOG}?sinceSeconds=5`)).text).toBe(body(ALL.slice(3)));
    // now-10s is 11:59:50.000000000; line 1 is one nanosecond later and stays.
    expect((await mainGet(sim, `${LOG}?sinceSeconds=10`)).text).toBe(body(ALL));
    sim.advanceClock(60_000);
    expect((await mainGet(sim, `${LOG}?sinceSeconds=5`)).text).toBe("");
  });

  it("sinceTime keeps a line exactly at the instant and drops older ones (nanosecond precision)", async () => {
    const at = encodeURIComponent("2026-11-29T11:59:56.123456789Z");
    expect((await mainGet(sim, `${LOG}?sinceTime=${at}`)).text).toBe(body(ALL.slice(3)));
    const after = encodeURIComponent("2026-11-29T11:59:56.12345679Z");
    expect((await mainGet(sim, `${LOG}?sinceTime=${after}`)).text).toBe(body(ALL.slice(4)));
    const offset = encodeURIComponent("2026-11-29T13:59:54+02:00");
    expect((await mainGet(sim, `${LOG}?sinceTime=${offset}`)).text).toBe(body(ALL.slice(2)));
  });

  it("applies tailLines before sinceSeconds, and limitBytes last", async () => {
    // Tail first: the last 3 lines, then since drops line 3.
    expect((await mainGet(sim, `${LOG}?tailLines=3&sinceSeconds=5`)).text).toBe(body(["line 4", "line 5"]));
    // Since would keep all five, but the tail already limited it to two.
    expect((await mainGet(sim, `${LOG}?tailLines=2&sinceSeconds=100`)).text).toBe(body(["line 4", "line 5"]));
    expect((await mainGet(sim, `${LOG}?tailLines=2&limitBytes=10`)).text).toBe("line 4\nlin");
  });

  it("limitBytes cuts the body at that byte, mid-line and mid-character", async () => {
    const full = Buffer.from(body(ALL.slice(1)), "utf8");
    const r = await mainGet(sim, `${LOG}?tailLines=4&limitBytes=8`);
    expect(r.bytes.equals(full.subarray(0, 8))).toBe(true);
    expect(r.bytes[7]).toBe(0xc3); // first byte of "ü"
    const ts = await mainGet(sim, `${LOG}?timestamps=true&limitBytes=12`);
    expect(ts.text).toBe("2026-11-29T1");
    expect((await mainGet(sim, `${LOG}?limitBytes=100000`)).text).toBe(body(ALL));
  });

  it("previous=true serves the previous instance", async () => {
    const r = await mainGet(sim, `${LOG}?previous=true&timestamps=true`);
    expect(r.text).toBe(
      "2026-11-29T10:00:01.500000000Z previous one\n2026-11-29T10:59:59.999999999Z previous two\n",
    );
  });

  it("previous=true without a previous instance is kubelet's 400", async () => {
    const r = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-1/log?previous=true");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 400,
      reason: "BadRequest",
    });
    expect(r.json.message).toBe('previous terminated container "gateway" in pod "gw-1" not found');
  });

  it("a never-started waiting container is kubelet's 'waiting to start' 400", async () => {
    const r = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/pending-0/log?container=gateway");
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      'container "gateway" in pod "pending-0" is waiting to start: ContainerCreating',
    );
  });

  it("needs a container name when the Pod has several, like the API server", async () => {
    const r = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/agent-0/log");
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      "a container name must be specified for pod agent-0, choose one of: [harness sidecar] or one of the init containers: [init-workspace]",
    );
    const bad = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/agent-0/log?container=nope");
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe("container nope is not valid for pod agent-0");
    const init = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/agent-0/log?container=init-workspace");
    expect(init.text).toBe("init done\n");
  });

  it("answers 404 NotFound for an unknown Pod", async () => {
    const r = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/nope/log");
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({
      kind: "Status",
      reason: "NotFound",
      details: { name: "nope", kind: "pods" },
    });
  });

  it("rejects malformed values of the parameters it uses and ignores the others", async () => {
    for (const q of [
      "tailLines=abc",
      "sinceSeconds=1.5",
      "limitBytes=x",
      "timestamps=maybe",
      "previous=2",
      "sinceTime=yesterday",
    ]) {
      const r = await mainGet(sim, `${LOG}?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.kind).toBe("Status");
    }
    for (const q of [
      "tailLines=-1",
      "sinceSeconds=0",
      "limitBytes=0",
      "sinceSeconds=5&sinceTime=2026-11-29T11:00:00Z",
    ]) {
      const r = await mainGet(sim, `${LOG}?${q}`);
      expect(r.status, q).toBe(422);
      expect(r.json.reason).toBe("Invalid");
    }
    const ignored = await mainGet(
      sim,
      `${LOG}?pretty=true&follow=false&insecureSkipTLSVerifyBackend=true&whatever=1`,
    );
    expect(ignored.status).toBe(200);
    expect(ignored.text).toBe(body(ALL));
  });
});

describe("generated lines on the manual clock", () => {
  const HARNESS = "/api/v1/namespaces/tenant-a/pods/agent-0/log?container=harness&timestamps=true";

  it("materializes lines only as the clock moves, cycling templates with {n}", async () => {
    expect((await mainGet(sim, HARNESS)).text).toBe("2026-11-29T11:30:00.000000000Z harness up\n");
    sim.advanceClock(3500);
    expect((await mainGet(sim, HARNESS)).text).toBe(
      [
        "2026-11-29T11:30:00.000000000Z harness up",
        "2026-11-29T12:00:01.000000000Z INFO heartbeat 1",
        "2026-11-29T12:00:02.000000000Z DEBUG tick 2",
        "2026-11-29T12:00:03.000000000Z INFO heartbeat 3",
        "",
      ].join("\n"),
    );
    const since = await mainGet(sim, `${HARNESS}&sinceSeconds=2`);
    expect(since.text).toBe(
      "2026-11-29T12:00:02.000000000Z DEBUG tick 2\n2026-11-29T12:00:03.000000000Z INFO heartbeat 3\n",
    );
    expect(sim.now().toISOString()).toBe("2026-11-29T12:00:03.500Z");
  });
});

describe("renderLog (pure) properties", () => {
  const line = fc.tuple(
    fc.bigInt({ min: 1_700_000_000_000_000_000n, max: 1_900_000_000_000_000_000n }),
    fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replaceAll("\n", " ")),
  );
  const lines = fc
    .array(line, { maxLength: 30 })
    .map((ls) =>
      ls
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .map(([t, s]): LogLine => [formatKubeletTime(t), s]),
    );

  it("is tail, then since-filter, then a byte prefix", () => {
    fc.assert(
      fc.property(
        lines,
        fc.option(fc.nat(40)),
        fc.option(fc.bigInt({ min: 1_700_000_000_000_000_000n, max: 1_900_000_000_000_000_000n })),
        fc.option(fc.integer({ min: 1, max: 2000 })),
        fc.boolean(),
        (ls, tail, sinceNs, limit, timestamps) => {
          const since = sinceNs === null ? null : formatKubeletTime(sinceNs);
          const out = renderLog(ls, { tailLines: tail, since, limitBytes: limit, timestamps });
          const tailed = tail === null ? ls : tail === 0 ? [] : ls.slice(-tail);
          const kept = since === null ? tailed : tailed.filter(([t]) => t >= since);
          const full = Buffer.from(kept.map(([t, s]) => (timestamps ? `${t} ${s}\n` : `${s}\n`)).join(""));
          expect(out.equals(limit === null ? full : full.subarray(0, limit))).toBe(true);
        },
      ),
    );
  });
});
