import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../lib/api/errors.ts";
import type { Lease } from "../../../lib/limiter/limiter.ts";
import { principalLimitKey } from "../../../lib/limiter/store.ts";
import { dynaliteSuite } from "../../support/dynalite-suite.ts";
import {
  agentHolders,
  container,
  DEFAULTS,
  holderIds,
  outcome,
  poll,
  readItem,
  request,
  T0,
  target,
} from "./limiter-support.ts";

const db = dynaliteSuite();

describe("concurrency across containers", () => {
  it("50 concurrent admissions from 50 containers against a burst of 10 admit at most 10", async () => {
    // In-flight limits raised so the bucket is the only limit being raced.
    const config = { ...DEFAULTS, principalInFlight: 100, agentInFlight: 100 };
    const t = target();
    const containers = Array.from({ length: 50 }, (_, i) => container(db, config, 100 + i));
    db.calls.reset();
    const results = await Promise.all(containers.map((c) => poll(c, request(t, T0))));
    const admitted = results.filter((r) => r === true).length;
    const limited = results.filter(
      (r) => r instanceof ServiceError && r.code === "RUNTIME_LOGS_RATE_LIMITED",
    );
    const busy = results.filter((r) => r instanceof ServiceError && r.code === "RUNTIME_LOGS_BUSY");
    expect(admitted).toBeLessThanOrEqual(10);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted + limited.length + busy.length).toBe(50);
    for (const e of limited) expect((e as ServiceError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    for (const e of busy) expect((e as ServiceError).retryAfterSeconds).toBe(1);
    // The stored bucket agrees with what was admitted.
    const item = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    expect(item?.tat).toBe(T0 + admitted * 500);
    console.info(
      `race (bucket only): admitted=${admitted} 429=${limited.length} 503=${busy.length} calls=${JSON.stringify(db.calls.snapshot())}`,
    );
  });

  it("20 concurrent holders from 20 containers with default limits: at most 4 per principal", async () => {
    const t = target();
    const containers = Array.from({ length: 20 }, (_, i) => container(db, DEFAULTS, 200 + i));
    const results = await Promise.all(containers.map((c) => outcome(c.acquire(request(t, T0)))));
    const leases = results.filter((r): r is { lease: Lease } => !(r instanceof ServiceError));
    expect(leases.length).toBeGreaterThan(0);
    expect(leases.length).toBeLessThanOrEqual(4);
    for (const r of results) {
      if (r instanceof ServiceError)
        expect(["RUNTIME_LOGS_RATE_LIMITED", "RUNTIME_LOGS_BUSY"]).toContain(r.code);
    }
    const item = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    expect(holderIds(item)).toHaveLength(leases.length);
    // Denied requests spent nothing: the bucket holds exactly the admitted reads.
    expect(item?.tat).toBe(T0 + leases.length * 500);
    console.info(
      `race (leases held): admitted=${leases.length} 429=${results.filter((r) => r instanceof ServiceError && r.status === 429).length} 503=${results.filter((r) => r instanceof ServiceError && r.status === 503).length}`,
    );
  });

  it("one container serving 50 concurrent requests admits exactly the burst, without self-contention", async () => {
    const config = { ...DEFAULTS, principalInFlight: 100, agentInFlight: 100 };
    const limiter = container(db, config);
    const t = target();
    db.calls.reset();
    const results = await Promise.all(Array.from({ length: 50 }, () => poll(limiter, request(t, T0))));
    expect(results.filter((r) => r === true)).toHaveLength(10);
    const denied = results.filter((r): r is ServiceError => r instanceof ServiceError);
    expect(denied.map((e) => e.code)).toEqual(Array(40).fill("RUNTIME_LOGS_RATE_LIMITED"));
    // 10 × (2 blind takes + 2 releases), no read; the 40 denials come from the cached bucket.
    expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 40 });
  });

  it("30 principals racing for one Agent from 30 containers: at most 16 hold it at once", async () => {
    const agent = target();
    const containers = Array.from({ length: 30 }, (_, i) => container(db, DEFAULTS, 300 + i));
    const results = await Promise.all(
      containers.map((c, i) => outcome(c.acquire(request({ ...agent, principalId: `racer${i}` }, T0)))),
    );
    const leases = results.filter((r) => !(r instanceof ServiceError));
    expect(leases.length).toBeGreaterThan(0);
    expect(leases.length).toBeLessThanOrEqual(16);
    expect(await agentHolders(db, agent)).toHaveLength(leases.length);
    // Every refused principal got its token back (restored tat) and holds nothing.
    for (let i = 0; i < 30; i++) {
      const r = results[i];
      const pa = await readItem(db, principalLimitKey(`racer${i}`, agent.namespaceId, agent.agentId));
      if (r instanceof ServiceError) {
        expect(holderIds(pa)).toHaveLength(0);
        // Restored exactly, or (contended) forfeited: never more than this one request's cost.
        expect(pa?.tat ?? 0).toBeLessThanOrEqual(T0 + 500);
      }
    }
  });
});
