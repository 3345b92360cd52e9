/**
 * LimiterStore: the limiter's items in the State table, each changed by one conditional
 * single-item write (no transactions). Holds no policy; the Limiter decides what to write.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { gcAt, type LimitState } from "./gcra.ts";

export interface LimiterStore {
  /** Strongly consistent read; null when the item does not exist. */
  read(key: string): Promise<LimitState | null>;
  /**
   * Writes `next` if the item still has `expectedVersion` (or does not exist, for null).
   * Returns false when that condition failed (someone else wrote first).
   */
  write(key: string, next: LimitState, expectedVersion: number | null, now: number): Promise<boolean>;
  /** Removes one holder and bumps the version; returns the item after, or null if it is gone. */
  release(key: string, leaseId: string): Promise<LimitState | null>;
  /**
   * Undoes a take if nothing else wrote since: removes the holder, sets `tat` back and bumps the
   * version, conditioned on `expectedVersion`. Returns the item after, or false on a failed condition.
   */
  restore(key: string, leaseId: string, tat: number, expectedVersion: number): Promise<LimitState | false>;
}

export const principalLimitKey = (principalId: string, namespaceId: string, agentId: string) =>
  `LIMIT#pa#${principalId}#${namespaceId}#${agentId}`;
export const agentLimitKey = (namespaceId: string, agentId: string) => `LIMIT#a#${namespaceId}#${agentId}`;

/** A stored item that is not ours: surfaces as a store failure (the limiter fails closed). */
export class LimitItemError extends Error {
  override name = "LimitItemError";
}

function fromItem(item: Record<string, unknown>): LimitState {
  const { version, tat, holders } = item;
  if (typeof version !== "number" || !Number.isFinite(version)) throw new LimitItemError("bad version");
  if (tat !== undefined && (typeof tat !== "number" || !Number.isFinite(tat)))
    throw new LimitItemError("bad tat");
  const out: Record<string, number> = {};
  if (holders !== undefined) {
    if (typeof holders !== "object" || holders === null) throw new LimitItemError("bad holders");
    for (const [id, expiresAt] of Object.entries(holders)) {
      if (typeof expiresAt !== "number") throw new LimitItemError("bad holder");
      out[id] = expiresAt;
    }
  }
  return tat === undefined ? { version, holders: out } : { version, tat, holders: out };
}

const isConditionFailure = (e: unknown) =>
  (e as { name?: string }).name === "ConditionalCheckFailedException";

export class DynamoLimiterStore implements LimiterStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: { doc: DynamoDBDocumentClient; tableName: string }) {
    this.#doc = options.doc;
    this.#table = options.tableName;
  }

  async read(key: string): Promise<LimitState | null> {
    const out = await this.#doc.send(
      new GetCommand({ TableName: this.#table, Key: { pk: key }, ConsistentRead: true }),
    );
    return out.Item ? fromItem(out.Item) : null;
  }

  async write(key: string, next: LimitState, expectedVersion: number | null, now: number): Promise<boolean> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.#table,
          Item: { pk: key, ...next, expiresAt: gcAt(next, now) },
          ...(expectedVersion === null
            ? { ConditionExpression: "attribute_not_exists(pk)" }
            : {
                ConditionExpression: "#v = :expected",
                ExpressionAttributeNames: { "#v": "version" },
                ExpressionAttributeValues: { ":expected": expectedVersion },
              }),
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async release(key: string, leaseId: string): Promise<LimitState | null> {
    try {
      return await this.#update({
        TableName: this.#table,
        Key: { pk: key },
        UpdateExpression: "REMOVE holders.#id ADD #v :one",
        // A garbage-collected item stays gone instead of coming back without its TTL.
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeNames: { "#id": leaseId, "#v": "version" },
        ExpressionAttributeValues: { ":one": 1 },
        ReturnValues: "ALL_NEW",
      });
    } catch (e) {
      if (isConditionFailure(e)) return null;
      throw e;
    }
  }

  async restore(
    key: string,
    leaseId: string,
    tat: number,
    expectedVersion: number,
  ): Promise<LimitState | false> {
    try {
      return await this.#update({
        TableName: this.#table,
        Key: { pk: key },
        UpdateExpression: "SET tat = :tat REMOVE holders.#id ADD #v :one",
        ConditionExpression: "#v = :expected",
        ExpressionAttributeNames: { "#id": leaseId, "#v": "version" },
        ExpressionAttributeValues: { ":one": 1, ":tat": tat, ":expected": expectedVersion },
        ReturnValues: "ALL_NEW",
      });
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async #update(input: UpdateCommandInput): Promise<LimitState> {
    const out = await this.#doc.send(new UpdateCommand(input));
    if (!out.Attributes) throw new LimitItemError("update returned no item");
    return fromItem(out.Attributes);
  }
}
