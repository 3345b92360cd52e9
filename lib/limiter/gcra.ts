/**
 * The limiter's pure state transitions (docs/state.md § Limiter). Times are epoch milliseconds.
 *
 * GCRA: one "theoretical arrival time" `tat` per bucket. Taking `cost` sets
 * `tat = max(tat, now) + cost/rate` and is admitted while `tat - now ≤ burst/rate`. A clock that
 * steps back never moves `tat` back (no minted tokens); one that leaps forward refills at most to
 * the burst. In-flight reads are holders `leaseId → expiresAt`; an expired holder never counts.
 */
import type { LimiterConfig } from "../config.ts";

export interface LimitState {
  /** Bumped by every write, so each write is conditioned on the version it was computed from. */
  version: number;
  /** GCRA theoretical arrival time (principal items only). */
  tat?: number;
  /**
   * Lease ID → expiry. A Map, not an object: every take adds a key never seen before, which gave a
   * plain object a new hidden class (or a dictionary) each time, ~15 µs per plan or parsed item.
   */
  holders: ReadonlyMap<string, number>;
}

export type Plan =
  | { kind: "write"; next: LimitState; expectedVersion: number | null }
  | { kind: "rate_limited"; retryAfterSeconds: number }
  | { kind: "busy" };

export interface TakeInput {
  now: number;
  cost: number;
  leaseId: string;
  leaseExpiresAt: number;
}

/** Absorbs float error in sums of cost/rate (e.g. rate 3): far below a millisecond. */
export const EPSILON_MS = 1e-6;

const NO_HOLDERS: ReadonlyMap<string, number> = new Map();

export function liveHolders(holders: ReadonlyMap<string, number>, now: number): Map<string, number> {
  const live = new Map<string, number>();
  for (const [id, expiresAt] of holders) if (expiresAt > now) live.set(id, expiresAt);
  return live;
}

/** The principal-on-Agent item: one rate token (GCRA) and one principal holder, or a denial. */
export function planPrincipal(state: LimitState | null, input: TakeInput, config: LimiterConfig): Plan {
  const { now } = input;
  const { interval, window } = rateOf(input.cost, config);
  const tat = Math.max(state?.tat ?? 0, now) + interval;
  const excess = tat - now - window;
  if (excess > EPSILON_MS) {
    // Retry-After = max(1, ceil((tat - now - burst/rate) + cost/rate)), tat before this request.
    return { kind: "rate_limited", retryAfterSeconds: Math.max(1, Math.ceil(excess / 1000 - EPSILON_MS)) };
  }
  const holders = liveHolders(state?.holders ?? NO_HOLDERS, now);
  if (holders.size >= config.principalInFlight) return { kind: "busy" };
  holders.set(input.leaseId, input.leaseExpiresAt);
  return {
    kind: "write",
    next: { version: (state?.version ?? 0) + 1, tat, holders },
    expectedVersion: state ? state.version : null,
  };
}

/** An Agent shard item (its share `cap` of the Agent's in-flight cap): one holder among everyone's in-flight reads on the Agent, or busy. */
export function planAgent(state: LimitState | null, input: TakeInput, cap: number): Plan {
  const holders = liveHolders(state?.holders ?? NO_HOLDERS, input.now);
  if (holders.size >= cap) return { kind: "busy" };
  holders.set(input.leaseId, input.leaseExpiresAt);
  return {
    kind: "write",
    next: { version: (state?.version ?? 0) + 1, holders },
    expectedVersion: state ? state.version : null,
  };
}

/**
 * The TTL attribute (epoch seconds): garbage collection of idle items only. It lies past both the
 * bucket's refill (`tat`) and every holder, so deleting the item forgets nothing that matters.
 */
export function gcAt(state: LimitState, now: number): number {
  const latest = Math.max(now, state.tat ?? 0, ...state.holders.values());
  return Math.ceil(latest / 1000) + 3600;
}

/** Shards of an Agent's in-flight item when the configuration names none. */
export const DEFAULT_AGENT_SHARDS = 4;

/**
 * The Agent's in-flight cap split over its shard items: the caps sum to `agentInFlight` exactly,
 * so the shards together hold no more than the one item did. Never more shards than slots.
 */
export function agentShardCaps(config: LimiterConfig): number[] {
  const total = config.agentInFlight;
  const shards = Math.max(1, Math.min(total, config.agentShards ?? DEFAULT_AGENT_SHARDS));
  const base = Math.floor(total / shards);
  return Array.from({ length: shards }, (_, i) => base + (i < total % shards ? 1 : 0));
}

/** GCRA parameters of one take, in ms: the emission interval of `cost` and the burst window. */
export function rateOf(cost: number, config: LimiterConfig): { interval: number; window: number } {
  return {
    interval: (cost * 1000) / config.ratePerSecond,
    window: (config.burst * 1000) / config.ratePerSecond,
  };
}
