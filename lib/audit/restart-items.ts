/**
 * Table access for restart records (docs/restarts.md, docs/state.md § Audit table): their key, an idempotent
 * put (observing the same transition twice writes one item) and the newest-20 query. The record's
 * body is the restarts module's; this module only places it.
 */
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";

export const restartPk = (namespaceId: string, agentId: string, deploymentId: string) =>
  `RESTART#${namespaceId}#${agentId}#${deploymentId}`;
/** `at` is the transition's `finishedAt`, or `detectedAt` when unknown (RFC 3339 UTC). */
export const restartSk = (at: string, instanceKey: string) => `${at}#${instanceKey}`;

export interface RestartPlace {
  namespaceId: string;
  agentId: string;
  deploymentId: string;
  at: string;
  instanceKey: string;
}

const RESERVED = new Set(["pk", "sk", "purgeAt"]);
const isConditionFailure = (e: unknown) =>
  (e as { name?: string }).name === "ConditionalCheckFailedException";

export class RestartRecordTable {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #retentionSeconds: number;
  readonly #now: () => number;

  constructor(options: {
    doc: DynamoDBDocumentClient;
    tableName: string;
    retentionDays: number;
    now?: () => number;
  }) {
    this.#doc = options.doc;
    this.#table = options.tableName;
    this.#retentionSeconds = options.retentionDays * 86_400;
    this.#now = options.now ?? Date.now;
  }

  /** Writes the record unless one exists for this transition. Errors propagate (callers treat writes as best-effort). */
  async putIfAbsent(place: RestartPlace, body: Record<string, unknown>): Promise<"created" | "exists"> {
    const attributes = Object.fromEntries(Object.entries(body).filter(([k]) => !RESERVED.has(k)));
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.#table,
          Item: {
            ...attributes,
            pk: restartPk(place.namespaceId, place.agentId, place.deploymentId),
            sk: restartSk(place.at, place.instanceKey),
            purgeAt: Math.floor(this.#now() / 1000) + this.#retentionSeconds,
          },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      return "created";
    } catch (e) {
      if (isConditionFailure(e)) return "exists";
      throw e;
    }
  }

  /** The newest records of a deployment (one Query), newest first, without the table's own keys. */
  async newest(
    namespaceId: string,
    agentId: string,
    deploymentId: string,
    limit = 20,
  ): Promise<Record<string, unknown>[]> {
    const out = await this.#doc.send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": restartPk(namespaceId, agentId, deploymentId) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => {
      const { pk: _pk, sk: _sk, purgeAt: _purgeAt, ...body } = item;
      return body;
    });
  }
}
