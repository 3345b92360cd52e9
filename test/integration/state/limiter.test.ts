import { PutCommand } from "@aws-sdk/lib-dynamodb";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../lib/api/errors.ts";
import { agentShardCaps, type LimitState, planPrincipal } from "../../../lib/limiter/gcra.ts";
import { GcraLeaseLimiter, type Lease } from "../../../lib/limiter/limiter.ts";
import {
  agentLimitKey,
  DynamoLimiterStore,
  type LimiterStore,
  principalLimitKey,
} from "../../../lib/limiter/store.ts";
import { createDynamo } from "../../../lib/state/dynamo.ts";
import { closedEndpoint } from "../../support/dynalite.ts";
import { dynaliteSuite } from "../../support/dynalite-suite.ts";
import {
  admittedInARow,
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

describe("rate (GCRA) on dynalite with a manual clock", () => {
  it("admits exactly 10 sequential reads, then 429 with Retry-After 1", async () => {
    const limiter = container(db);
    const t = target();
    for (let i = 0; i < 10; i++) expect(await poll(limiter, request(t, T0))).toBe(true);
    const denied = await poll(limiter, request(t, T0));
    expect(denied).toBeInstanceOf(ServiceError);
    expect((denied as ServiceError).code).toBe("RUNTIME_LOGS_RATE_LIMITED");
    expect((denied as ServiceError).status).toBe(429);
    expect((denied as ServiceError).retryAfterSeconds).toBe(1);
  });

  it("computes Retry-After as the wait until the request fits, and denials spend nothing", async () => {
    const limiter = container(db);
    const t = target();
    expect(await admittedInARow(limiter, request(t, T0))).toBe(10);
    // A download (cost 5) on an empty bucket waits cost/rate = 2.5 s → 3.
    const download = (await poll(limiter, request(t, T0, 5))) as ServiceError;
    expect(download.code).toBe("RUNTIME_LOGS_RATE_LIMITED");
    expect(download.retryAfterSeconds).toBe(3);
    // Hammering while empty changes nothing: half a second later exactly one read fits.
    for (let i = 0; i < 20; i++)
      expect(await poll(limiter, request(t, T0 + 100))).toBeInstanceOf(ServiceError);
    expect(await admittedInARow(limiter, request(t, T0 + 500))).toBe(1);
    // Retry-After is honest: waiting that long admits the download.
    expect(await poll(limiter, request(t, T0 + 500 + 3_000, 5))).toBe(true);
  });

  it("refills at the configured rate and never above the burst", async () => {
    const limiter = container(db);
    const t = target();
    expect(await admittedInARow(limiter, request(t, T0))).toBe(10);
    expect(await admittedInARow(limiter, request(t, T0 + 2_500))).toBe(5);
    // A leap forward (an hour) refills to the burst and no further.
    expect(await admittedInARow(limiter, request(t, T0 + 3_600_000))).toBe(10);
  });

  it("mints no tokens when the clock steps back, and leaping forward refills only to the burst", async () => {
    const limiter = container(db);
    const t = target();
    expect(await admittedInARow(limiter, request(t, T0))).toBe(10);
    const back = (await poll(limiter, request(t, T0 - 3_600_000))) as ServiceError;
    expect(back.code).toBe("RUNTIME_LOGS_RATE_LIMITED");
    // tat did not move back: the wait counts from the stored tat, not the stepped-back clock.
    expect(back.retryAfterSeconds).toBeGreaterThan(3_600);
    const item = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    expect(item?.tat).toBe(T0 + 5_000);
    expect(await admittedInARow(limiter, request(t, T0 + 499))).toBe(0);
    expect(await admittedInARow(limiter, request(t, T0 + 500))).toBe(1);
  });

  it("admits no more than burst + rate × elapsed under any clock schedule (another container's clock included)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ step: fc.integer({ min: -5_000, max: 3_000 }), other: fc.boolean() }), {
          minLength: 5,
          maxLength: 25,
        }),
        async (steps) => {
          const a = container(db, DEFAULTS, 3);
          const b = container(db, DEFAULTS, 4);
          const t = target();
          let now = T0;
          let latest = T0;
          let admitted = 0;
          for (const { step, other } of steps) {
            now += step;
            latest = Math.max(latest, now);
            if ((await poll(other ? b : a, request(t, now))) === true) admitted++;
          }
          expect(admitted).toBeLessThanOrEqual(10 + Math.floor(((latest - T0) * 2) / 1000));
        },
      ),
      { numRuns: 5, seed: 7 },
    );
  });

  it("the pure step never moves tat back and never admits past the burst", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -10_000, max: 10_000 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        (steps, cost) => {
          let state: LimitState | null = null;
          let now = T0;
          for (const step of steps) {
            now += step;
            const plan = planPrincipal(state, { now, cost, leaseId: "l", leaseExpiresAt: now + 1 }, DEFAULTS);
            if (plan.kind === "write") {
              expect(plan.next.tat ?? 0).toBeGreaterThanOrEqual(state?.tat ?? 0);
              expect((plan.next.tat ?? 0) - now).toBeLessThanOrEqual(5_000 + 1e-6);
              state = { ...plan.next, holders: new Map() };
            } else if (plan.kind === "rate_limited") {
              expect(plan.retryAfterSeconds).toBeGreaterThanOrEqual(1);
              const fitsAt = now + plan.retryAfterSeconds * 1000;
              const later = planPrincipal(
                state,
                { now: fitsAt, cost, leaseId: "l", leaseExpiresAt: fitsAt + 1 },
                DEFAULTS,
              );
              expect(later.kind).toBe("write");
            }
          }
        },
      ),
    );
  });
});

describe("leases", () => {
  it("allows 4 in-flight reads per principal on an Agent; the 5th is 503 BUSY and spends no token", async () => {
    const limiter = container(db);
    const t = target();
    const held: Lease[] = [];
    for (let i = 0; i < 4; i++) held.push((await limiter.acquire(request(t, T0))).lease);
    const fifth = (await outcome(limiter.acquire(request(t, T0)))) as ServiceError;
    expect(fifth.code).toBe("RUNTIME_LOGS_BUSY");
    expect(fifth.retryAfterSeconds).toBe(1);
    await limiter.release(held.pop() as Lease);
    expect(await outcome(limiter.acquire(request(t, T0)))).not.toBeInstanceOf(ServiceError);
    const item = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    expect(item?.tat).toBe(T0 + 5 * 500);
  });

  it("allows 16 in-flight reads per Agent from everyone; the 17th is BUSY and its principal keeps its token", async () => {
    const limiter = container(db);
    const agent = target();
    for (let i = 0; i < 16; i++) await limiter.acquire(request({ ...agent, principalId: `holder${i}` }, T0));
    const late = { ...agent, principalId: "late" };
    const denied = (await outcome(limiter.acquire(request(late, T0)))) as ServiceError;
    expect(denied.code).toBe("RUNTIME_LOGS_BUSY");
    const pa = await readItem(db, principalLimitKey("late", agent.namespaceId, agent.agentId));
    // Given back: the bucket is exactly as full as before (tat ≤ now means full).
    expect(pa?.tat).toBe(T0);
    expect(holderIds(pa)).toEqual([]);
  });

  it("never lets an expired holder block: a crashed container's leases lapse at their deadline", async () => {
    const crashed = container(db);
    const other = container(db, DEFAULTS, 9);
    const t = target();
    for (let i = 0; i < 4; i++) await crashed.acquire({ ...request(t, T0), leaseExpiresAt: T0 + 10_000 });
    expect(((await outcome(other.acquire(request(t, T0 + 9_999)))) as ServiceError).code).toBe(
      "RUNTIME_LOGS_BUSY",
    );
    const later = await outcome(other.acquire(request(t, T0 + 10_000)));
    expect(later).not.toBeInstanceOf(ServiceError);
    const item = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    // Expired holders were dropped by the write, not merely ignored.
    expect(holderIds(item)).toEqual([(later as { lease: Lease }).lease.leaseId]);
  });

  it("re-reads before refusing a slot: releases made by another container count at once", async () => {
    const a = container(db);
    const b = container(db, DEFAULTS, 5);
    const t = target();
    const held: Lease[] = [];
    for (let i = 0; i < 4; i++) held.push((await a.acquire(request(t, T0))).lease);
    for (const lease of held) await b.release(lease);
    expect(await outcome(a.acquire(request(t, T0)))).not.toBeInstanceOf(ServiceError);
  });
});

/** A store that logs when each take starts and ends, by item kind (`pa` principal, `a` Agent). */
function loggingStore(log: string[]): LimiterStore {
  const store = new DynamoLimiterStore({ client: db.client, tableName: db.tableNames.state });
  const kind = (key: string) => key.split("#")[1];
  return {
    read: (key) => store.read(key),
    readMany: (keys) => store.readMany(keys),
    write: (key, next, expected, now) => store.write(key, next, expected, now),
    release: (key, holder) => store.release(key, holder),
    restore: (key, holder, tat, expected) => store.restore(key, holder, tat, expected),
    async take(key, take) {
      log.push(`start ${kind(key)}`);
      try {
        return await store.take(key, take);
      } finally {
        log.push(`end ${kind(key)}`);
      }
    },
  };
}

describe("the Agent holder alongside the principal's take", () => {
  it("is taken at the same time when the container's copy of the principal item admits, else after it", async () => {
    const log: string[] = [];
    const limiter = new GcraLeaseLimiter({ store: loggingStore(log), config: DEFAULTS });
    const t = target();
    expect(await poll(limiter, request(t, T0))).toBe(true);
    expect(log).toEqual(["start pa", "end pa", "start a", "end a"]);
    log.length = 0;
    expect(await poll(limiter, request(t, T0 + 2_000))).toBe(true);
    expect(log.slice(0, 2).sort()).toEqual(["start a", "start pa"]);
  });

  it("goes back when the principal refuses after all (another container emptied the bucket)", async () => {
    const warm = container(db);
    const t = target();
    expect(await poll(warm, request(t, T0))).toBe(true);
    expect(await admittedInARow(container(db, DEFAULTS, 3), request(t, T0 + 100))).toBe(9);
    db.calls.reset();
    const denied = (await poll(warm, request(t, T0 + 100))) as ServiceError;
    expect(denied.code).toBe("RUNTIME_LOGS_RATE_LIMITED");
    // The principal's blind take and read, the Agent's take and its release.
    expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 3, GetItemCommand: 1 });
    expect(await agentHolders(db, t)).toEqual([]);
  });
});

describe("failures", () => {
  it("fails closed: DynamoDB unreachable is 503 BUSY with Retry-After 1", async () => {
    const down = createDynamo({
      endpoint: await closedEndpoint(),
      region: "us-east-1",
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      maxAttempts: 1,
    });
    const limiter = new GcraLeaseLimiter({
      store: new DynamoLimiterStore({ client: down.client, tableName: "state" }),
      config: DEFAULTS,
    });
    const err = (await outcome(limiter.acquire(request(target(), T0)))) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("RUNTIME_LOGS_BUSY");
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    await expect(
      limiter.release({ leaseId: "x", principalKey: "a", agentKey: "b", expiresAt: T0 }),
    ).resolves.toBe(undefined);
    down.client.destroy();
  });

  it("a failing Agent item is BUSY and gives the principal's token and holder back", async () => {
    const limiter = container(db);
    const t = target();
    for (let shard = 0; shard < agentShardCaps(DEFAULTS).length; shard++) {
      await db.doc.send(
        new PutCommand({
          TableName: db.tableNames.state,
          Item: { pk: agentLimitKey(t.namespaceId, t.agentId, shard), version: "not-a-number" },
        }),
      );
    }
    const err = (await outcome(limiter.acquire(request(t, T0)))) as ServiceError;
    expect(err.code).toBe("RUNTIME_LOGS_BUSY");
    const pa = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    // Given back: the bucket is exactly as full as before (tat ≤ now means full).
    expect(pa?.tat).toBe(T0);
    expect(holderIds(pa)).toEqual([]);
  });
});

describe("DynamoDB calls per admitted read", () => {
  it("first read ever: the blind takes create the items, so 2 updates + 2 releases, no read", async () => {
    const limiter = container(db);
    const t = target();
    db.calls.reset();
    expect(await poll(limiter, request(t, T0))).toBe(true);
    expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 4 });
  });

  it("every poll on a fresh container: 2 conditional updates to acquire, 2 to release, no read", async () => {
    const t = target();
    expect(await poll(container(db), request(t, T0))).toBe(true);
    // A follower polling every 2 s, each poll served by a container that never saw the items.
    for (let i = 1; i <= 10; i++) {
      db.calls.reset();
      expect(await poll(container(db, DEFAULTS, 50 + i), request(t, T0 + i * 2_000))).toBe(true);
      expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 4 });
    }
    // Polls faster than the rate (queued bucket): the fresh container guesses idle first, so one
    // more update; still no read.
    const fast = target();
    expect(await poll(container(db), request(fast, T0))).toBe(true);
    db.calls.reset();
    expect(await poll(container(db, DEFAULTS, 99), request(fast, T0 + 100))).toBe(true);
    expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 5 });
  });

  it("a warm container picks the branch from its last copy: 4 calls; a cached empty bucket denies for free", async () => {
    const limiter = container(db);
    const t = target();
    expect(await poll(limiter, request(t, T0))).toBe(true);
    for (const now of [T0 + 100, T0 + 200, T0 + 2_000]) {
      db.calls.reset();
      expect(await poll(limiter, request(t, now))).toBe(true);
      expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 4 });
    }
    await admittedInARow(limiter, request(t, T0 + 2_000));
    db.calls.reset();
    expect(await poll(limiter, request(t, T0 + 2_000))).toBeInstanceOf(ServiceError);
    expect(db.calls.total).toBe(0);
  });

  it("a fresh container's 429 names the exact wait (read after the blind branches missed)", async () => {
    const t = target();
    expect(await admittedInARow(container(db), request(t, T0))).toBe(10);
    db.calls.reset();
    const denied = (await poll(container(db, DEFAULTS, 77), request(t, T0 + 100))) as ServiceError;
    expect(denied.code).toBe("RUNTIME_LOGS_RATE_LIMITED");
    expect(denied.retryAfterSeconds).toBe(1);
    expect(db.calls.snapshot()).toEqual({ UpdateItemCommand: 2, GetItemCommand: 1 });
  });
});

describe("Agent shards", () => {
  it("spread the Agent's holders over its shard items, each within its share of the cap", async () => {
    const agent = target();
    const caps = agentShardCaps(DEFAULTS);
    expect(caps.reduce((a, b) => a + b, 0)).toBe(DEFAULTS.agentInFlight);
    for (let i = 0; i < 16; i++) {
      await container(db, DEFAULTS, 400 + i).acquire(request({ ...agent, principalId: `s${i}` }, T0));
    }
    for (let shard = 0; shard < caps.length; shard++) {
      const item = await readItem(db, agentLimitKey(agent.namespaceId, agent.agentId, shard));
      expect(holderIds(item).length).toBeLessThanOrEqual(caps[shard]!);
    }
    expect(await agentHolders(db, agent)).toHaveLength(16);
    const late = await outcome(
      container(db, DEFAULTS, 499).acquire(request({ ...agent, principalId: "x" }, T0)),
    );
    expect((late as ServiceError).code).toBe("RUNTIME_LOGS_BUSY");
  });

  it("split any cap exactly, never into more shards than slots", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 64 }), (cap, shards) => {
        const caps = agentShardCaps({ ...DEFAULTS, agentInFlight: cap, agentShards: shards });
        expect(caps.reduce((a, b) => a + b, 0)).toBe(cap);
        expect(caps.length).toBe(Math.min(cap, shards));
        expect(Math.max(...caps) - Math.min(...caps)).toBeLessThanOrEqual(1);
        expect(Math.min(...caps)).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  it("an expired holder in a full shard never blocks: the batch read finds the slot", async () => {
    const agent = target();
    const config = { ...DEFAULTS, agentInFlight: 2, agentShards: 2 };
    const crashed = container(db, config, 600);
    await crashed.acquire({ ...request({ ...agent, principalId: "c1" }, T0), leaseExpiresAt: T0 + 1_000 });
    await crashed.acquire({ ...request({ ...agent, principalId: "c2" }, T0), leaseExpiresAt: T0 + 1_000 });
    const before = await outcome(
      container(db, config, 601).acquire(request({ ...agent, principalId: "n" }, T0 + 999)),
    );
    expect((before as ServiceError).code).toBe("RUNTIME_LOGS_BUSY");
    const after = await outcome(
      container(db, config, 602).acquire(request({ ...agent, principalId: "m" }, T0 + 1_000)),
    );
    expect(after).not.toBeInstanceOf(ServiceError);
    // The shard that took the new holder dropped the expired one it held.
    const lease = (after as { lease: Lease }).lease;
    expect(holderIds(await readItem(db, lease.agentKey))).toEqual([lease.leaseId]);
  });
});

describe("release", () => {
  it("is retried once when the store fails, and never throws", async () => {
    const store = new DynamoLimiterStore({ client: db.client, tableName: db.tableNames.state });
    // Each item's first release fails (a throttle at the SDK edge), the retry goes through.
    const failed = new Set<string>();
    const flaky: LimiterStore = {
      read: (key) => store.read(key),
      readMany: (keys) => store.readMany(keys),
      take: (key, take) => store.take(key, take),
      write: (key, next, expected, now) => store.write(key, next, expected, now),
      restore: (key, holder, tat, expected) => store.restore(key, holder, tat, expected),
      release: async (key, holder) => {
        if (!failed.has(key)) {
          failed.add(key);
          throw new Error("throttled");
        }
        return store.release(key, holder);
      },
    };
    const limiter = new GcraLeaseLimiter({ store: flaky, config: DEFAULTS });
    const t = target();
    const { lease } = await limiter.acquire(request(t, T0));
    await limiter.release(lease);
    const pa = await readItem(db, principalLimitKey(t.principalId, t.namespaceId, t.agentId));
    expect(holderIds(pa)).toEqual([]);
    expect(await agentHolders(db, t)).toEqual([]);
    expect(failed.size).toBe(2);
  });
});
