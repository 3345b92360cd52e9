/** Shared helpers of the limiter tests: containers, requests and outcomes on one dynalite. */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { ServiceError } from "../../../lib/api/errors.ts";
import type { LimiterConfig } from "../../../lib/config.ts";
import { agentShardCaps } from "../../../lib/limiter/gcra.ts";
import { type AcquireRequest, GcraLeaseLimiter, type Lease } from "../../../lib/limiter/limiter.ts";
import { agentLimitKey, DynamoLimiterStore } from "../../../lib/limiter/store.ts";
import type { LocalDynamo } from "../../support/dynalite.ts";

export const DEFAULTS: LimiterConfig = {
  burst: 10,
  ratePerSecond: 2,
  downloadCost: 5,
  principalInFlight: 4,
  agentInFlight: 16,
};
export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

/** A deterministic [0, 1) sequence (jitter). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One Lambda container's limiter. Jitter yields to the event loop instead of sleeping on wall time. */
export function container(db: LocalDynamo, config: LimiterConfig = DEFAULTS, seed = 1): GcraLeaseLimiter {
  return new GcraLeaseLimiter({
    store: new DynamoLimiterStore({ client: db.client, tableName: db.tableNames.state }),
    config,
    random: seeded(seed),
    sleep: () => new Promise((resolve) => setImmediate(resolve)),
  });
}

let unique = 0;
export type Target = { principalId: string; namespaceId: string; agentId: string };
/** Fresh principal and Agent IDs per test, so tests never share buckets. */
export function target(): Target {
  unique++;
  return { principalId: `p${unique}`, namespaceId: "acme", agentId: `agent${unique}` };
}

export const request = (t: Target, now: number, cost = 1): AcquireRequest => ({
  ...t,
  cost,
  now,
  leaseExpiresAt: now + 15_000,
});

export async function outcome(p: Promise<{ lease: Lease }>): Promise<{ lease: Lease } | ServiceError> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
}

/** Acquires and releases at once; true when admitted, else the error. */
export async function poll(limiter: GcraLeaseLimiter, req: AcquireRequest): Promise<true | ServiceError> {
  const r = await outcome(limiter.acquire(req));
  if (r instanceof ServiceError) return r;
  await limiter.release(r.lease);
  return true;
}

export async function admittedInARow(
  limiter: GcraLeaseLimiter,
  req: AcquireRequest,
  max = 50,
): Promise<number> {
  for (let n = 0; n < max; n++) if ((await poll(limiter, req)) !== true) return n;
  return max;
}

export async function readItem(db: LocalDynamo, key: string): Promise<Record<string, unknown> | undefined> {
  const out = await db.doc.send(
    new GetCommand({ TableName: db.tableNames.state, Key: { pk: key }, ConsistentRead: true }),
  );
  return out.Item;
}

/** The live holders of an Agent, over all its shard items. */
export async function agentHolders(
  db: LocalDynamo,
  t: Pick<Target, "namespaceId" | "agentId">,
  config: LimiterConfig = DEFAULTS,
): Promise<string[]> {
  const holders: string[] = [];
  for (let shard = 0; shard < agentShardCaps(config).length; shard++) {
    const item = await readItem(db, agentLimitKey(t.namespaceId, t.agentId, shard));
    holders.push(...holderIds(item));
  }
  return holders;
}

/** The lease IDs of an item's holders (stored as a set of `<expiresAt>#<leaseId>`). */
export function holderIds(item: Record<string, unknown> | undefined): string[] {
  const set = item?.holders;
  if (set === undefined) return [];
  if (!(set instanceof Set)) throw new Error("holders is not a set");
  return [...set].map((entry: string) => entry.slice(entry.indexOf("#") + 1));
}
