/**
 * LimiterStore: the limiter's items in the State table, each changed by one conditional
 * single-item write (no transactions). Holds no policy; the Limiter decides what to write.
 * Four of a poll's five DynamoDB calls are these, so they go through the low-level client (its
 * middleware resolved once per command type, lib/state/dynamo.ts) with attribute values written
 * here: a number, a string set and a key are all the items hold.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from "@aws-sdk/client-dynamodb";
import { EPSILON_MS, gcAt, type LimitState } from "./gcra.ts";

/**
 * A take decided by the item's condition alone, with no read first (docs/capacity.md § Limiter):
 * add one holder while the item holds fewer than `cap` (a size condition) and, for a rate bucket,
 * move `tat` along the GCRA branch the caller expects:
 * - `idle`: the bucket is full (`tat ≤ now`): `tat = now + interval`;
 * - `queued`: `tat > now`, and the take still fits the burst: `tat = tat + interval`, admitted
 *   while `tat + interval - now ≤ window`.
 * Either is `max(tat, now) + interval` restricted to its half, so no interleaving admits more than
 * GCRA allows. A failed condition (wrong branch, empty bucket, full item, expired holders still in
 * it, no item yet) returns false and the caller reads.
 */
export interface BlindTake {
  leaseId: string;
  leaseExpiresAt: number;
  /** Holders the item may carry, this one included. */
  cap: number;
  now: number;
  rate?: { branch: "idle" | "queued"; interval: number; window: number };
}

/** One in-flight read on an item: its lease and when it lapses. */
export interface Holder {
  leaseId: string;
  expiresAt: number;
}

export interface LimiterStore {
  /** Strongly consistent read; null when the item does not exist. */
  read(key: string): Promise<LimitState | null>;
  /** Strongly consistent reads of several items in one call; absent items map to null. */
  readMany(keys: readonly string[]): Promise<Map<string, LimitState | null>>;
  /** The conditional take of `BlindTake`; the item after it, or false on a failed condition. */
  take(key: string, take: BlindTake): Promise<LimitState | false>;
  /**
   * Writes `next` if the item still has `expectedVersion` (or does not exist, for null).
   * Returns false when that condition failed (someone else wrote first).
   */
  write(key: string, next: LimitState, expectedVersion: number | null, now: number): Promise<boolean>;
  /** Removes one holder and bumps the version; returns the item after, or null if it is gone. */
  release(key: string, holder: Holder): Promise<LimitState | null>;
  /**
   * Undoes a take if nothing else wrote since: removes the holder, sets `tat` back and bumps the
   * version, conditioned on `expectedVersion`. Returns the item after, or false on a failed condition.
   */
  restore(key: string, holder: Holder, tat: number, expectedVersion: number): Promise<LimitState | false>;
}

export const principalLimitKey = (principalId: string, namespaceId: string, agentId: string) =>
  `LIMIT#pa#${principalId}#${namespaceId}#${agentId}`;
/** One shard of the Agent's in-flight item (docs/capacity.md: no single item nears the write ceiling). */
export const agentLimitKey = (namespaceId: string, agentId: string, shard: number) =>
  `LIMIT#a#${namespaceId}#${agentId}#${shard}`;

/**
 * The TTL of a blind take, which does not know the other holders: past this take's `tat` (at most
 * a burst window ahead) and its holder by an hour, as `gcAt` does; every holder lives seconds.
 */
function blindGcAt(take: BlindTake): number {
  const tat = take.rate ? take.now + take.rate.window : take.now;
  return Math.ceil(Math.max(tat, take.leaseExpiresAt, take.now) / 1000) + 3600;
}

/** A stored item that is not ours: surfaces as a store failure (the limiter fails closed). */
export class LimitItemError extends Error {
  override name = "LimitItemError";
}

/**
 * Holders are stored as a string set of `<expiresAt>#<leaseId>`: `ADD` creates a set that does not
 * exist yet and `size()` counts it, so a take needs neither a read nor an existing item, and a
 * release removes exactly its own entry.
 */
export const holderEntry = (leaseId: string, expiresAt: number): string => `${expiresAt}#${leaseId}`;

type Item = Record<string, AttributeValue>;

const num = (n: number): AttributeValue => ({ N: String(n) });
const str = (s: string): AttributeValue => ({ S: s });
const strings = (values: string[]): AttributeValue => ({ SS: values });
const keyOf = (key: string): Item => ({ pk: str(key) });

function numberOf(value: AttributeValue | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = value.N === undefined ? Number.NaN : Number(value.N);
  if (!Number.isFinite(n)) throw new LimitItemError(`bad ${what}`);
  return n;
}

function parseHolders(holders: AttributeValue | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (holders === undefined) return out;
  if (!Array.isArray(holders.SS)) throw new LimitItemError("bad holders");
  for (const entry of holders.SS) {
    const hash = typeof entry === "string" ? entry.indexOf("#") : -1;
    const expiresAt = hash > 0 ? Number(entry.slice(0, hash)) : Number.NaN;
    if (!Number.isFinite(expiresAt) || hash === entry.length - 1) {
      throw new LimitItemError("bad holder");
    }
    out.set(entry.slice(hash + 1), expiresAt);
  }
  return out;
}

function fromItem(item: Item): LimitState {
  const version = numberOf(item.version, "version");
  if (version === undefined) throw new LimitItemError("bad version");
  const tat = numberOf(item.tat, "tat");
  const out = parseHolders(item.holders);
  return tat === undefined ? { version, holders: out } : { version, tat, holders: out };
}

/** The item for a state written whole (DynamoDB has no empty sets: no holders, no attribute). */
function toItem(key: string, state: LimitState, now: number): Item {
  const entries = Array.from(state.holders, ([id, at]) => holderEntry(id, at));
  return {
    pk: str(key),
    version: num(state.version),
    ...(state.tat !== undefined ? { tat: num(state.tat) } : {}),
    ...(entries.length > 0 ? { holders: strings(entries) } : {}),
    expiresAt: num(gcAt(state, now)),
  };
}

const isConditionFailure = (e: unknown) =>
  (e as { name?: string }).name === "ConditionalCheckFailedException";

export class DynamoLimiterStore implements LimiterStore {
  readonly #client: DynamoDBClient;
  readonly #table: string;

  constructor(options: { client: DynamoDBClient; tableName: string }) {
    this.#client = options.client;
    this.#table = options.tableName;
  }

  async read(key: string): Promise<LimitState | null> {
    const out = await this.#client.send(
      new GetItemCommand({ TableName: this.#table, Key: keyOf(key), ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : null;
  }

  async readMany(keys: readonly string[]): Promise<Map<string, LimitState | null>> {
    const out = new Map<string, LimitState | null>(keys.map((k) => [k, null]));
    let pending: Item[] = keys.map(keyOf);
    // Unprocessed keys are retried a few times; the limiter fails closed past that.
    for (let round = 0; pending.length > 0; round++) {
      if (round === 3) throw new LimitItemError("batch read left keys unprocessed");
      const res = await this.#client.send(
        new BatchGetItemCommand({
          RequestItems: { [this.#table]: { Keys: pending, ConsistentRead: true } },
        }),
      );
      for (const item of res.Responses?.[this.#table] ?? []) {
        const pk = item.pk?.S;
        if (pk === undefined) throw new LimitItemError("bad key");
        out.set(pk, fromItem(item));
      }
      pending = res.UnprocessedKeys?.[this.#table]?.Keys ?? [];
    }
    return out;
  }

  async take(key: string, take: BlindTake): Promise<LimitState | false> {
    const values: Item = {
      ":one": num(1),
      ":h": strings([holderEntry(take.leaseId, take.leaseExpiresAt)]),
      ":cap": num(take.cap),
      ":gc": num(blindGcAt(take)),
    };
    const conditions = ["(attribute_not_exists(holders) OR size(holders) < :cap)"];
    const sets = ["expiresAt = :gc"];
    const rate = take.rate;
    if (rate?.branch === "idle") {
      values[":now"] = num(take.now);
      values[":tat"] = num(take.now + rate.interval);
      conditions.push("(attribute_not_exists(tat) OR tat <= :now)");
      sets.push("tat = :tat");
    } else if (rate?.branch === "queued") {
      values[":now"] = num(take.now);
      values[":interval"] = num(rate.interval);
      // tat + interval - now ≤ window  ⇔  tat ≤ now + window - interval
      values[":limit"] = num(take.now + rate.window - rate.interval + EPSILON_MS);
      conditions.push("tat > :now", "tat <= :limit");
      sets.push("tat = tat + :interval");
    }
    try {
      return await this.#update({
        TableName: this.#table,
        Key: keyOf(key),
        UpdateExpression: `SET ${sets.join(", ")} ADD holders :h, #v :one`,
        ConditionExpression: conditions.join(" AND "),
        ExpressionAttributeNames: { "#v": "version" },
        ExpressionAttributeValues: values,
        ReturnValues: "ALL_NEW",
      });
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async write(key: string, next: LimitState, expectedVersion: number | null, now: number): Promise<boolean> {
    try {
      await this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: toItem(key, next, now),
          ...(expectedVersion === null
            ? { ConditionExpression: "attribute_not_exists(pk)" }
            : {
                ConditionExpression: "#v = :expected",
                ExpressionAttributeNames: { "#v": "version" },
                ExpressionAttributeValues: { ":expected": num(expectedVersion) },
              }),
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async release(key: string, holder: Holder): Promise<LimitState | null> {
    try {
      return await this.#update({
        TableName: this.#table,
        Key: keyOf(key),
        UpdateExpression: "DELETE holders :h ADD #v :one",
        // A garbage-collected item stays gone instead of coming back without its TTL.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: { "#v": "version" },
        ExpressionAttributeValues: {
          ":one": num(1),
          ":h": strings([holderEntry(holder.leaseId, holder.expiresAt)]),
        },
        ReturnValues: "ALL_NEW",
      });
    } catch (e) {
      if (isConditionFailure(e)) return null;
      throw e;
    }
  }

  async restore(
    key: string,
    holder: Holder,
    tat: number,
    expectedVersion: number,
  ): Promise<LimitState | false> {
    try {
      return await this.#update({
        TableName: this.#table,
        Key: keyOf(key),
        UpdateExpression: "SET tat = :tat DELETE holders :h ADD #v :one",
        ConditionExpression: "#v = :expected",
        ExpressionAttributeNames: { "#v": "version" },
        ExpressionAttributeValues: {
          ":one": num(1),
          ":tat": num(tat),
          ":expected": num(expectedVersion),
          ":h": strings([holderEntry(holder.leaseId, holder.expiresAt)]),
        },
        ReturnValues: "ALL_NEW",
      });
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async #update(input: UpdateItemCommandInput): Promise<LimitState> {
    const out = await this.#client.send(new UpdateItemCommand(input));
    if (!out.Attributes) throw new LimitItemError("update returned no item");
    return fromItem(out.Attributes);
  }
}
