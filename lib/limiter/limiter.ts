/**
 * Admission for status and log reads (docs/state.md § Limiter), global across Lambda containers.
 *
 * acquire: (1) on `LIMIT#pa#…` take the rate token and a principal holder, (2) on one shard of the
 * Agent's in-flight item (`LIMIT#a#…#{shard}`) take an Agent holder: at the same time when this
 * container's last copy of the principal item says (1) will go through (a following poll), else
 * after (1), so a request its principal's limits refuse holds no Agent slot. Each is one conditional
 * update that needs no read first (store.ts § BlindTake): GCRA as two conditional branches (the
 * bucket is full, or it is queued and the take still fits the burst) and the in-flight cap as a
 * size condition. So a take costs one write on any container, a fresh one included; the branch is
 * chosen from this container's last copy of the item when it has one, else `idle` (a follower
 * polling every 2 s finds its bucket refilled). Only a failed condition leads to a read:
 * - principal item: the other branch blind, then a strongly consistent read and a write
 *   computed from it, conditioned on the version read (this also drops expired holders, and
 *   decides 429 with its exact Retry-After or 503);
 * - Agent shards: one batch read of every shard, then a version-conditioned write on a shard with
 *   a free live slot, or 503 when none has one. The shards' caps sum to the Agent's cap
 *   (gcra.ts § agentShardCaps), so the cap keeps its meaning while no single item takes every
 *   write (docs/capacity.md).
 * If (1) fails after all while (2) was taken alongside, (2) is released. If (2) fails, (1) is given
 * back: one update that sets `tat` back by this take and removes the holder, conditioned on the
 * version (1) wrote. If someone wrote the item in between, their `tat` was computed on top of ours
 * and cannot be corrected exactly, so only the holder is removed and the token stays spent: under
 * contention a denied request may cost one token, but no interleaving ever admits more than the
 * bucket allows.
 *
 * release: one update per item, awaited by the caller before it answers, retried once; it
 * refreshes the cached copy. Never throws: an unreleased holder expires (request deadline + 5 s)
 * and then never blocks.
 *
 * Within one container, operations on the same item run one after another (a per-item queue), so
 * concurrent requests of one process never collide with each other's conditional writes.
 *
 * The limiter fails closed: any store failure is 503 RUNTIME_LOGS_BUSY.
 */
import { randomUUID } from "node:crypto";
import { ServiceError } from "../api/errors.ts";
import type { LimiterConfig } from "../config.ts";
import {
  agentShardCaps,
  EPSILON_MS,
  type LimitState,
  type Plan,
  planAgent,
  planPrincipal,
  rateOf,
  type TakeInput,
} from "./gcra.ts";
import { agentLimitKey, type Holder, type LimiterStore, principalLimitKey } from "./store.ts";

export interface AcquireRequest {
  principalId: string;
  namespaceId: string;
  agentId: string;
  /** Tokens: 1 for a read, `downloadCost` for a download. */
  cost: number;
  /** Epoch ms: the request deadline + 5 s. */
  leaseExpiresAt: number;
  /** Epoch ms, this container's clock. */
  now: number;
}

export interface Lease {
  readonly leaseId: string;
  readonly principalKey: string;
  readonly agentKey: string;
  readonly expiresAt: number;
}

export interface Limiter {
  /** Admits or throws ServiceError RUNTIME_LOGS_RATE_LIMITED (429) / RUNTIME_LOGS_BUSY (503). */
  acquire(request: AcquireRequest): Promise<{ lease: Lease }>;
  /** Gives the holders back; call it in a `finally`. Never throws. */
  release(lease: Lease): Promise<void>;
}

export interface LimiterOptions {
  store: LimiterStore;
  config: LimiterConfig;
  /** Conditional-write attempts per item before answering busy. */
  maxAttempts?: number;
  /** [0, 1): jitter between attempts. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  newLeaseId?: () => string;
  maxCachedItems?: number;
}

const busy = (internal: string, cause?: unknown) =>
  new ServiceError("RUNTIME_LOGS_BUSY", {
    retryAfterSeconds: 1,
    internal: `limiter: ${internal}`,
    ...(cause === undefined ? {} : { cause }),
  });

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Taken {
  /** The `tat` a give-back restores: this take's `tat` minus its interval. */
  previousTat: number;
  written: LimitState;
}

/** GCRA admission and in-flight leases over any LimiterStore (DynamoDB in production: store.ts). */
export class GcraLeaseLimiter implements Limiter {
  readonly #store: LimiterStore;
  readonly #config: LimiterConfig;
  readonly #shardCaps: number[];
  readonly #maxAttempts: number;
  readonly #random: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #newLeaseId: () => string;
  readonly #maxCached: number;
  /** This container's copy of each item as last read or written (null: known not to exist). */
  readonly #cache = new Map<string, LimitState | null>();
  /** The tail of each item's queue of operations in this container. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: LimiterOptions) {
    this.#store = options.store;
    this.#config = options.config;
    this.#shardCaps = agentShardCaps(options.config);
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#newLeaseId = options.newLeaseId ?? randomUUID;
    this.#maxCached = options.maxCachedItems ?? 10_000;
  }

  async acquire(request: AcquireRequest): Promise<{ lease: Lease }> {
    if (!(request.cost > 0) || !Number.isFinite(request.cost) || !(request.leaseExpiresAt > request.now)) {
      throw busy("invalid acquire request");
    }
    const leaseId = this.#newLeaseId();
    const principalKey = principalLimitKey(request.principalId, request.namespaceId, request.agentId);
    const shardKeys = this.#shardCaps.map((_, i) => agentLimitKey(request.namespaceId, request.agentId, i));
    const input: TakeInput = {
      now: request.now,
      cost: request.cost,
      leaseId,
      leaseExpiresAt: request.leaseExpiresAt,
    };
    const holder = { leaseId, expiresAt: request.leaseExpiresAt };
    const takeAgent = () => this.#guard(() => this.#takeAgent(shardKeys, input));
    // Alongside the principal's take when this container's copy of the principal item says it will
    // go through (a follower's next poll): one round trip instead of two.
    const alongside = this.#expectsAdmission(principalKey, input) ? takeAgent() : null;
    alongside?.catch(() => {}); // settled below, whichever way the principal's take goes
    let first: Taken;
    try {
      first = await this.#guard(() =>
        this.#serial(principalKey, () => this.#takePrincipal(principalKey, input)),
      );
    } catch (e) {
      // Refused after all: the Agent holder taken alongside goes back.
      await alongside?.then(
        (key) => this.#releaseOne(key, holder),
        () => {},
      );
      throw e;
    }
    let agentKey: string;
    try {
      agentKey = await (alongside ?? takeAgent());
    } catch (e) {
      await this.#giveBack(principalKey, holder, first);
      throw e;
    }
    return { lease: { leaseId, principalKey, agentKey, expiresAt: request.leaseExpiresAt } };
  }

  async release(lease: Lease): Promise<void> {
    await Promise.all(
      [lease.principalKey, lease.agentKey].map((key) =>
        this.#releaseOne(key, { leaseId: lease.leaseId, expiresAt: lease.expiresAt }),
      ),
    );
  }

  async #releaseOne(key: string, holder: Holder): Promise<void> {
    // Inside the queue, so the next operation on the item starts from the refreshed copy.
    await this.#serial(key, async () => {
      for (let attempt = 1; attempt <= 2; attempt++) {
        try {
          this.#remember(key, await this.#store.release(key, holder));
          return;
        } catch {
          // Retried once; after that the holder expires on its own.
          this.#cache.delete(key);
        }
      }
    });
  }

  /** Whether this container's last copy of the principal item admits the take (none: unknown). */
  #expectsAdmission(key: string, input: TakeInput): boolean {
    const known = this.#cache.get(key);
    return known !== undefined && planPrincipal(known, input, this.#config).kind === "write";
  }

  /** Undoes step (1) after step (2) failed, so a denied request spends nothing. */
  async #giveBack(key: string, holder: Holder, taken: Taken): Promise<void> {
    const done = await this.#serial(key, async () => {
      try {
        const after = await this.#store.restore(key, holder, taken.previousTat, taken.written.version);
        if (after === false) return false;
        this.#remember(key, after);
      } catch {
        this.#cache.delete(key);
      }
      return true;
    });
    // Someone wrote on top of our take: free the holder, the token stays spent (see above).
    if (!done) await this.#releaseOne(key, holder);
  }

  /** The rate token and a principal holder: blind branches first, a read only when both missed. */
  async #takePrincipal(key: string, input: TakeInput): Promise<Taken> {
    const { interval, window } = rateOf(input.cost, this.#config);
    const known = this.#cache.get(key);
    if (known) {
      const p = planPrincipal(known, input, this.#config);
      // tat only grows between our reads, so a cached copy never under-states the wait.
      if (p.kind === "rate_limited") {
        throw new ServiceError("RUNTIME_LOGS_RATE_LIMITED", { retryAfterSeconds: p.retryAfterSeconds });
      }
    }
    // A take larger than the burst never fits (and the idle branch does not check the window).
    if (interval <= window + EPSILON_MS) {
      const expected: "idle" | "queued" = known && (known.tat ?? 0) > input.now ? "queued" : "idle";
      const branches = known ? [expected] : (["idle", "queued"] as const);
      for (const branch of branches) {
        const after = await this.#store.take(key, {
          leaseId: input.leaseId,
          leaseExpiresAt: input.leaseExpiresAt,
          cap: this.#config.principalInFlight,
          now: input.now,
          rate: { branch, interval, window },
        });
        if (after) {
          this.#remember(key, after);
          return { previousTat: (after.tat ?? 0) - interval, written: after };
        }
      }
    }
    return this.#readAndWrite(key, (s) => planPrincipal(s, input, this.#config), input.now);
  }

  /** An Agent holder on one shard: the shard picked at random blind, then every shard read at once. */
  async #takeAgent(keys: readonly string[], input: TakeInput): Promise<string> {
    const start = Math.min(keys.length - 1, Math.floor(this.#random() * keys.length));
    const first = keys[start] as string;
    const blind = await this.#serial(first, async () => {
      const after = await this.#store.take(first, {
        leaseId: input.leaseId,
        leaseExpiresAt: input.leaseExpiresAt,
        cap: this.#shardCaps[start] as number,
        now: input.now,
      });
      if (after) this.#remember(first, after);
      return after !== false;
    });
    if (blind) return first;
    const order = keys.map((_, k) => (start + k) % keys.length);
    for (let attempt = 1; ; attempt++) {
      const states = await this.#store.readMany(keys);
      for (const [key, state] of states) this.#remember(key, state);
      const free = order.find((i) => {
        const plan = planAgent(states.get(keys[i] as string) ?? null, input, this.#shardCaps[i] as number);
        return plan.kind === "write";
      });
      if (free === undefined) throw busy("no free holder slot");
      const key = keys[free] as string;
      const state = states.get(key) ?? null;
      const plan = planAgent(state, input, this.#shardCaps[free] as number);
      if (plan.kind !== "write") throw busy("no free holder slot");
      const written = await this.#serial(key, () =>
        this.#store.write(key, plan.next, plan.expectedVersion, input.now),
      );
      if (written) {
        this.#remember(key, plan.next);
        return key;
      }
      if (attempt >= this.#maxAttempts) throw busy("contention");
      await this.#sleep(this.#random() * Math.min(50, 4 * 2 ** attempt));
    }
  }

  /** Runs `op` after every earlier operation on `key` in this container has settled. */
  #serial<T>(key: string, op: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const result = previous.then(op, op);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, tail);
    void tail.then(() => {
      if (this.#queues.get(key) === tail) this.#queues.delete(key);
    });
    return result;
  }

  async #guard<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw busy("store failure", e);
    }
  }

  /**
   * The slow path: a strongly consistent read, the plan computed from it (which drops expired
   * holders and decides 429 or 503 exactly), and a write conditioned on the version read; bounded
   * retries with jitter when another writer got there first.
   */
  async #readAndWrite(key: string, plan: (state: LimitState | null) => Plan, now: number): Promise<Taken> {
    for (let attempt = 1; ; attempt++) {
      const state = await this.#store.read(key);
      this.#remember(key, state);
      const p = plan(state);
      if (p.kind === "rate_limited") {
        throw new ServiceError("RUNTIME_LOGS_RATE_LIMITED", { retryAfterSeconds: p.retryAfterSeconds });
      }
      if (p.kind === "busy") throw busy("no free holder slot");
      if (await this.#store.write(key, p.next, p.expectedVersion, now)) {
        this.#remember(key, p.next);
        return { previousTat: state?.tat ?? 0, written: p.next };
      }
      if (attempt >= this.#maxAttempts) throw busy("contention");
      await this.#sleep(this.#random() * Math.min(50, 4 * 2 ** attempt));
    }
  }

  #remember(key: string, state: LimitState | null): void {
    this.#cache.delete(key);
    if (this.#cache.size >= this.#maxCached) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.set(key, state);
  }
}
