/**
 * The secret cache (lib/secret-cache.ts) on an injected clock: last good value through an outage,
 * background refresh, exponential backoff with jitter, and first loads that fail their requests.
 */
import { describe, expect, it } from "vitest";
import { SECRET_BACKOFF_MAX_MS, SecretCache } from "../../../lib/secret-cache.ts";
import { outage, settle } from "../../support/outage.ts";

const TTL = 5 * 60_000;

/** A store whose answers the test switches, counting every call. */
function store() {
  const s = {
    calls: 0,
    value: "v1",
    down: false,
    load: async () => {
      s.calls++;
      if (s.down) throw new Error("store unavailable");
      return s.value;
    },
  };
  return s;
}

/** `requests` reads of key `k` spread evenly over `spanMs` from the clock's time, each awaited. */
const storeOutage = (
  cache: SecretCache<string>,
  s: ReturnType<typeof store>,
  clock: { now: number },
  requests: number,
  spanMs: number,
) =>
  outage({
    requests,
    spanMs,
    startMs: clock.now,
    setNow: (ms) => {
      clock.now = ms;
    },
    read: () => cache.get("k", s.load),
    calls: () => s.calls,
  });

describe("SecretCache", () => {
  it("serves a fresh value without calls, then refreshes in the background once it is stale", async () => {
    const clock = { now: 1_000_000 };
    const s = store();
    const cache = new SecretCache<string>({ ttlMs: TTL, now: () => clock.now, random: () => 0.5 });
    expect(await cache.get("k", s.load)).toBe("v1");
    clock.now += TTL - 1;
    expect(await cache.get("k", s.load)).toBe("v1");
    expect(s.calls).toBe(1);
    s.value = "v2"; // rotated
    clock.now += 1;
    // The stale value answers at once; the refresh runs beside it.
    expect(await cache.get("k", s.load)).toBe("v1");
    expect(s.calls).toBe(2);
    await settle();
    expect(await cache.get("k", s.load)).toBe("v2");
    expect(s.calls).toBe(2);
  });

  it("keeps the last good value through an outage, with O(log) store calls however many requests arrive", async () => {
    const counts: number[] = [];
    for (const requests of [1_000, 10_000, 100_000]) {
      const clock = { now: 0 };
      const s = store();
      // Jitter at its low end: the most calls the backoff ever allows.
      const cache = new SecretCache<string>({ ttlMs: TTL, now: () => clock.now, random: () => 0 });
      await cache.get("k", s.load);
      clock.now = TTL; // stale from here on
      s.down = true;
      const r = await storeOutage(cache, s, clock, requests, 120_000);
      expect(r.failed).toBe(0);
      expect(r.values).toHaveLength(requests);
      expect([...new Set(r.values)]).toEqual(["v1"]);
      counts.push(r.calls);
    }
    // Waits 0.5, 1, 2, 4, … s (half of base·2^n): log2 of the outage over the base, not the requests.
    expect(counts[0]).toBeLessThanOrEqual(Math.ceil(Math.log2(120_000 / 500)) + 1);
    expect(new Set(counts).size).toBe(1);
  });

  it("recovers on the first retry after the store is back, and resets the backoff", async () => {
    const clock = { now: 0 };
    const s = store();
    const cache = new SecretCache<string>({ ttlMs: TTL, now: () => clock.now, random: () => 0.999 });
    await cache.get("k", s.load);
    clock.now = TTL;
    s.down = true;
    await storeOutage(cache, s, clock, 1_000, 60_000);
    expect(cache.refreshFailing()).toBe(true);
    s.down = false;
    s.value = "v2";
    const calls = s.calls;
    // The longest wait after the failures so far, with jitter at its high end.
    clock.now += SECRET_BACKOFF_MAX_MS;
    expect(await cache.get("k", s.load)).toBe("v1");
    expect(s.calls).toBe(calls + 1);
    await settle();
    expect(await cache.get("k", s.load)).toBe("v2");
    expect(cache.refreshFailing()).toBe(false);
  });

  it("jitter spreads the retries of containers that failed together", async () => {
    const firstRetry = async (random: number) => {
      const clock = { now: 0 };
      const s = store();
      s.down = true;
      const cache = new SecretCache<string>({ ttlMs: TTL, now: () => clock.now, random: () => random });
      await cache.get("k", s.load).catch(() => {});
      for (clock.now = 0; s.calls === 1; clock.now += 10) await cache.get("k", s.load).catch(() => {});
      return clock.now - 10;
    };
    expect(await firstRetry(0)).toBe(500);
    expect(await firstRetry(0.5)).toBe(750);
    expect(await firstRetry(0.99)).toBe(1000);
  });

  it("fails a first load, and the requests during its backoff with the same error and no calls", async () => {
    const clock = { now: 0 };
    const s = store();
    s.down = true;
    const cache = new SecretCache<string>({ ttlMs: TTL, now: () => clock.now, random: () => 0 });
    const first = await cache.get("k", s.load).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Error);
    clock.now = 499;
    expect(await cache.get("k", s.load).catch((e: unknown) => e)).toBe(first);
    expect(s.calls).toBe(1);
    const r = await storeOutage(cache, s, clock, 10_000, 60_000);
    expect(r.values).toEqual([]);
    expect(r.failed).toBe(10_000);
    expect(r.calls).toBeLessThanOrEqual(Math.ceil(Math.log2(60_000 / 500)) + 1);
    s.down = false;
    clock.now += SECRET_BACKOFF_MAX_MS;
    expect(await cache.get("k", s.load)).toBe("v1");
  });

  it("shares one load among concurrent first requests", async () => {
    const s = store();
    const cache = new SecretCache<string>({ ttlMs: TTL, now: () => 0 });
    const values = await Promise.all(Array.from({ length: 50 }, () => cache.get("k", s.load)));
    expect(new Set(values)).toEqual(new Set(["v1"]));
    expect(s.calls).toBe(1);
  });

  it("a clock that steps back neither keeps a value past its TTL nor stretches a backoff", async () => {
    const clock = { now: 10_000_000 };
    const s = store();
    const cache = new SecretCache<string>({ ttlMs: TTL, now: () => clock.now, random: () => 0 });
    await cache.get("k", s.load);
    clock.now -= 1; // before the load: stale
    await cache.get("k", s.load);
    expect(s.calls).toBe(2);
    s.down = true;
    clock.now += TTL + 1;
    await cache.get("k", s.load);
    await settle();
    const calls = s.calls;
    clock.now -= 24 * 3_600_000; // a day back: the retry is not a day away
    await cache.get("k", s.load);
    expect(s.calls).toBe(calls + 1);
  });

  it("keeps keys apart", async () => {
    const s = store();
    const cache = new SecretCache<string>({ ttlMs: TTL, now: () => 0 });
    await cache.get("a", s.load);
    await cache.get("b", s.load);
    await cache.get("a", s.load);
    expect(s.calls).toBe(2);
  });
});
