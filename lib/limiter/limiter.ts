/**
 * Admission for status and log reads (state.md § Limiter), global across Lambda containers.
 *
 * acquire: (1) on `LIMIT#pa#…` take the rate token and a principal holder, (2) on `LIMIT#a#…` take
 * an Agent holder. Each is one conditional write computed from this container's cached copy of the
 * item, re-read only after a failed condition (or before denying a holder slot from a cached copy,
 * since other containers' releases are not in it). If (2) fails, (1) is given back: one update
 * that restores the previous `tat` and removes the holder, conditioned on the version (1) wrote.
 * If someone wrote the item in between, their `tat` was computed on top of ours and cannot be
 * corrected exactly, so only the holder is removed and the token stays spent: under contention a
 * denied request may cost one token, but no interleaving ever admits more than the bucket allows.
 *
 * release: one update per item in the caller's `finally`, refreshing the cached copy. Never throws:
 * an unreleased holder expires (request deadline + 5 s) and then never blocks.
 *
 * Within one container, operations on the same item run one after another (a per-item queue), so
 * concurrent requests of one process never collide with each other's conditional writes.
 *
 * The limiter fails closed: any store failure is 503 RUNTIME_LOGS_BUSY.
 */
import { randomUUID } from "node:crypto";
import { ServiceError } from "../api/errors.ts";
import type { LimiterConfig } from "../config.ts";
import { type LimitState, type Plan, planAgent, planPrincipal, type TakeInput } from "./gcra.ts";
import { agentLimitKey, type LimiterStore, principalLimitKey } from "./store.ts";

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
  previous: LimitState | null;
  written: LimitState;
}

export class DynamoLimiter implements Limiter {
  readonly #store: LimiterStore;
  readonly #config: LimiterConfig;
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
    const lease: Lease = {
      leaseId: this.#newLeaseId(),
      principalKey: principalLimitKey(request.principalId, request.namespaceId, request.agentId),
      agentKey: agentLimitKey(request.namespaceId, request.agentId),
      expiresAt: request.leaseExpiresAt,
    };
    const input: TakeInput = {
      now: request.now,
      cost: request.cost,
      leaseId: lease.leaseId,
      leaseExpiresAt: request.leaseExpiresAt,
    };
    const first = await this.#guard(() =>
      this.#serial(lease.principalKey, () =>
        this.#take(lease.principalKey, (s) => planPrincipal(s, input, this.#config), request.now),
      ),
    );
    try {
      await this.#guard(() =>
        this.#serial(lease.agentKey, () =>
          this.#take(lease.agentKey, (s) => planAgent(s, input, this.#config), request.now),
        ),
      );
    } catch (e) {
      await this.#giveBack(lease, first);
      throw e;
    }
    return { lease };
  }

  async release(lease: Lease): Promise<void> {
    await Promise.all(
      [lease.principalKey, lease.agentKey].map((key) => this.#releaseOne(key, lease.leaseId)),
    );
  }

  async #releaseOne(key: string, leaseId: string): Promise<void> {
    // Inside the queue, so the next operation on the item starts from the refreshed copy.
    await this.#serial(key, async () => {
      try {
        this.#remember(key, await this.#store.release(key, leaseId));
      } catch {
        // The holder expires on its own; the next acquire starts from a fresh read.
        this.#cache.delete(key);
      }
    });
  }

  /** Undoes step (1) after step (2) failed, so a denied request spends nothing. */
  async #giveBack(lease: Lease, taken: Taken): Promise<void> {
    const key = lease.principalKey;
    const done = await this.#serial(key, async () => {
      try {
        const after = await this.#store.restore(
          key,
          lease.leaseId,
          taken.previous?.tat ?? 0,
          taken.written.version,
        );
        if (after === false) return false;
        this.#remember(key, after);
      } catch {
        this.#cache.delete(key);
      }
      return true;
    });
    // Someone wrote on top of our take: free the holder, the token stays spent (see above).
    if (!done) await this.#releaseOne(key, lease.leaseId);
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

  async #read(key: string): Promise<LimitState | null> {
    const state = await this.#store.read(key);
    this.#remember(key, state);
    return state;
  }

  async #take(key: string, plan: (state: LimitState | null) => Plan, now: number): Promise<Taken> {
    const cached = this.#cache.get(key);
    let fresh = cached === undefined;
    let state = cached === undefined ? await this.#read(key) : cached;
    for (let attempt = 1; ; attempt++) {
      const p = plan(state);
      if (p.kind === "rate_limited") {
        // tat only grows between our reads, so a cached copy never under-states the wait.
        throw new ServiceError("RUNTIME_LOGS_RATE_LIMITED", { retryAfterSeconds: p.retryAfterSeconds });
      }
      if (p.kind === "busy") {
        // Other containers' releases are not in our copy: confirm before refusing.
        if (fresh) throw busy("no free holder slot");
        state = await this.#read(key);
        fresh = true;
        continue;
      }
      if (await this.#store.write(key, p.next, p.expectedVersion, now)) {
        this.#remember(key, p.next);
        return { previous: state, written: p.next };
      }
      if (attempt >= this.#maxAttempts) throw busy("contention");
      await this.#sleep(this.#random() * Math.min(50, 4 * 2 ** attempt));
      state = await this.#read(key);
      fresh = true;
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
