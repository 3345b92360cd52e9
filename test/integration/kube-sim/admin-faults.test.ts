/** Admin operations (in-process and over /__sim/), the clock, and fault injection. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClock } from "../../../local/kube-sim/clock.ts";
import { type KubeSim, startKubeSim } from "../../../local/kube-sim/index.ts";
import { isLoopback } from "../../../local/kube-sim/server.ts";
import { basicScenario, LOG, mainGet, request, startBasic } from "./helpers.ts";

let sim: KubeSim;
beforeEach(async () => {
  sim = await startBasic();
});
afterEach(async () => {
  await sim.close();
});

const at = { cluster: "main", namespace: "tenant-a" };
const admin = (path: string, body: unknown) => request(`${sim.url}/__sim${path}`, { body });

describe("admin operations", () => {
  it("append adds lines to the current instance; relative times resolve against the simulator's clock", async () => {
    const r = await admin("/append", {
      ...at,
      pod: "gw-0",
      container: "gateway",
      lines: [
        ["now-1.5s", "appended"],
        ["2026-11-29T12:00:00Z", "exact"],
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, appended: 2 });
    const log = await mainGet(sim, `${LOG}?tailLines=2&timestamps=true`);
    expect(log.text).toBe("2026-11-29T11:59:58.500000000Z appended\n2026-11-29T12:00:00.000000000Z exact\n");
    const bad = await admin("/append", { ...at, pod: "gw-0", container: "gateway", lines: [["later", "x"]] });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain("lines[0][0]");
    // A schema failure names its place in the scenario's own path form, like the resolve pass.
    const typed = await admin("/append", {
      ...at,
      pod: "gw-0",
      container: "gateway",
      lines: [[1, "x"]],
      extra: 1,
    });
    expect(typed.status).toBe(400);
    expect(typed.json.issues.map((i: { path: string }) => i.path).sort()).toEqual(["extra", "lines[0][0]"]);
    const missing = await admin("/append", { ...at, pod: "nope", container: "gateway", lines: [] });
    expect(missing.status).toBe(404);
  });

  it("restart moves current to previous, bumps restartCount and records lastState", async () => {
    sim.advanceClock(10_000);
    expect(
      sim.restart({
        ...at,
        pod: "gw-0",
        container: "gateway",
        exitCode: 137,
        reason: "OOMKilled",
        signal: 9,
      }),
    ).toEqual({
      restartCount: 2,
    });
    const pod = (await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-0")).json;
    const cs = pod.status.containerStatuses[0];
    expect(cs.restartCount).toBe(2);
    expect(cs.state).toEqual({ running: { startedAt: "2026-11-29T12:00:10Z" } });
    expect(cs.lastState.terminated).toMatchObject({
      exitCode: 137,
      signal: 9,
      reason: "OOMKilled",
      startedAt: "2026-11-29T11:00:00Z",
      finishedAt: "2026-11-29T12:00:10Z",
    });
    expect((await mainGet(sim, `${LOG}?previous=true&tailLines=1`)).text).toBe("line 5\n");
    expect((await mainGet(sim, LOG)).text).toBe("");
    sim.append({ ...at, pod: "gw-0", container: "gateway", lines: [["now", "fresh"]] });
    expect((await mainGet(sim, LOG)).text).toBe("fresh\n");
  });

  it("replace-pod removes the old Pod and creates a fresh one with the same labels and containers", async () => {
    const r = await admin("/replace-pod", { ...at, pod: "gw-0", newName: "gw-9", newUid: "uid-gw-9" });
    expect(r.json).toEqual({ ok: true, name: "gw-9", uid: "uid-gw-9" });
    expect((await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-0")).status).toBe(404);
    const pod = (await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-9")).json;
    expect(pod.metadata).toMatchObject({
      uid: "uid-gw-9",
      labels: { "openclaw.dev/workload-role": "gateway" },
    });
    expect(pod.metadata.creationTimestamp).toBe("2026-11-29T12:00:00Z");
    expect(pod.status.containerStatuses[0]).toMatchObject({
      name: "gateway",
      restartCount: 0,
      ready: true,
      lastState: {},
    });
    expect((await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-9/log")).text).toBe("");
    expect((await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-9/log?previous=true")).status).toBe(400);
    // Same name, new UID (a StatefulSet-style replacement).
    sim.replacePod({ ...at, pod: "gw-1", newUid: "uid-gw-1b" });
    expect((await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-1")).json.metadata.uid).toBe("uid-gw-1b");
  });

  it("event adds an Event (scenario form, relative times) that field selectors find", async () => {
    const r = await admin("/event", {
      ...at,
      event: {
        involvedObject: { kind: "Pod", name: "gw-1", uid: "uid-gw-1" },
        type: "Warning",
        reason: "BackOff",
        message: "Back-off",
        count: 4,
        lastTimestamp: "now-5s",
      },
    });
    expect(r.status).toBe(200);
    const list = await mainGet(
      sim,
      `/api/v1/namespaces/tenant-a/events?fieldSelector=${encodeURIComponent("involvedObject.uid=uid-gw-1,reason=BackOff")}`,
    );
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({
      count: 4,
      lastTimestamp: "2026-11-29T11:59:55Z",
      metadata: { name: r.json.name },
    });
    const bad = await admin("/event", {
      ...at,
      event: { involvedObject: { kind: "Pod", name: "x", uid: "y" }, typo: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain("event.typo: unknown field");
  });

  it("clock: {now} and {advanceMs} move the manual clock; malformed bodies are 400", async () => {
    expect((await admin("/clock", { advanceMs: 1500 })).json.now).toBe("2026-11-29T12:00:01.500000000Z");
    expect((await admin("/clock", { now: "2026-11-29T13:00:00Z" })).json.now).toBe(
      "2026-11-29T13:00:00.000000000Z",
    );
    expect(sim.now().toISOString()).toBe("2026-11-29T13:00:00.000Z");
    expect((await admin("/clock", { now: "now-1h" })).json.now).toBe("2026-11-29T12:00:00.000000000Z");
    expect((await admin("/clock", { now: "x" })).status).toBe(400);
    expect((await admin("/clock", { now: "now", advanceMs: 1 })).status).toBe(400);
    expect((await request(`${sim.url}/__sim/clock`)).json.now).toBe("2026-11-29T12:00:00.000000000Z");
  });

  it("scenario replaces everything, keeps generated tokens stable, and reports validation errors", async () => {
    const raw = basicScenario();
    const clusters = raw.clusters as Array<Record<string, unknown>>;
    delete clusters[0]?.token;
    await sim.close();
    sim = await startKubeSim({ scenario: raw });
    const generated = sim.token("main");
    expect(generated).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const again = await admin("/scenario", raw);
    expect(again.json).toEqual({ ok: true });
    expect(sim.token("main")).toBe(generated);
    expect((await mainGet(sim, LOG, generated)).status).toBe(200);
    const bad = await admin("/scenario", { ...raw, colck: "manual" });
    expect(bad.status).toBe(400);
    expect(bad.json.issues).toContainEqual({ path: "colck", message: "unknown field" });
    expect((await admin("/nothing", {})).status).toBe(404);
    expect((await request(`${sim.url}/__sim/append`, { method: "POST", body: "{not json" })).status).toBe(
      400,
    );
  });

  it("accepts only loopback peers on the admin API", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("10.0.0.5")).toBe(false);
    expect(isLoopback("::ffff:192.168.1.2")).toBe(false);
    expect(isLoopback(undefined)).toBe(false);
  });
});

describe("faults", () => {
  it("status forces a Status answer for every request of that cluster only", async () => {
    sim.setFault({ cluster: "main", status: 503 });
    const r = await mainGet(sim, LOG);
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ kind: "Status", code: 503, reason: "ServiceUnavailable" });
    expect((await request(`${sim.clusterUrl("other")}/version`, { token: "other-token" })).status).toBe(200);
    await admin("/fault", { cluster: "main", status: 403 });
    expect((await mainGet(sim, "/version")).json.reason).toBe("Forbidden");
    await admin("/fault", { cluster: "main", status: null });
    expect((await mainGet(sim, LOG)).status).toBe(200);
  });

  it("failRate fails a deterministic share of requests with 500 Status (seeded)", async () => {
    const run = async () => {
      sim.setFault({ cluster: "main", failRate: 0.5, seed: 42 });
      const codes: number[] = [];
      for (let i = 0; i < 40; i++) codes.push((await mainGet(sim, "/version")).status);
      return codes;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    const failures = a.filter((c) => c === 500).length;
    expect(failures).toBeGreaterThan(8);
    expect(failures).toBeLessThan(32);
    expect(new Set(a)).toEqual(new Set([200, 500]));
    sim.setFault({ cluster: "main", failRate: 1 });
    expect((await mainGet(sim, "/version")).json).toMatchObject({ kind: "Status", code: 500 });
  });

  it("unreachable destroys the connection", async () => {
    sim.setFault({ cluster: "main", unreachable: true });
    await expect(fetch(`${sim.clusterUrl("main")}/version`)).rejects.toThrow();
    sim.setFault({ cluster: "main", unreachable: false });
    expect((await mainGet(sim, "/version")).status).toBe(200);
  });

  it("latencyMs delays responses; the manual clock releases them early; close() cancels them", async () => {
    sim.setFault({ cluster: "main", latencyMs: 40 });
    const t0 = performance.now();
    expect((await mainGet(sim, "/version")).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(35);

    sim.setFault({ cluster: "main", latencyMs: 600_000 });
    const slow = mainGet(sim, "/version");
    await new Promise((r) => setTimeout(r, 20));
    sim.advanceClock(600_000);
    expect((await slow).status).toBe(200);

    const hanging = fetch(`${sim.clusterUrl("main")}/version`).then(
      () => "answered",
      () => "dropped",
    );
    await new Promise((r) => setTimeout(r, 20));
    const c0 = performance.now();
    await sim.close();
    expect(performance.now() - c0).toBeLessThan(2000);
    expect(await hanging).toBe("dropped");
  });
});

describe("clock kinds", () => {
  it("wall follows real time from the scenario's now; manual only moves when told", () => {
    let real = 1_000_000;
    const start = 1_800_000_000_000_000_000n;
    const wall = createClock("wall", start, () => real);
    const manual = createClock("manual", start, () => real);
    real += 2500;
    expect(wall.nowNs()).toBe(start + 2_500_000_000n);
    expect(manual.nowNs()).toBe(start);
    wall.advance(1000);
    manual.advance(1000);
    expect(wall.nowNs()).toBe(start + 3_500_000_000n);
    expect(manual.nowNs()).toBe(start + 1_000_000_000n);
    wall.set(start);
    real += 10;
    expect(wall.nowNs()).toBe(start + 10_000_000n);
  });

  it("a wall-clock scenario starts at its own now and ticks", async () => {
    const raw = { ...basicScenario(), clock: "wall", now: "2020-01-01T00:00:00Z" };
    const wall = await startKubeSim({ scenario: raw });
    try {
      const t = wall.now().getTime() - Date.parse("2020-01-01T00:00:00Z");
      expect(t).toBeGreaterThanOrEqual(0);
      expect(t).toBeLessThan(5000);
    } finally {
      await wall.close();
    }
  });
});
