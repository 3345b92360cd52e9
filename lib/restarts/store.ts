/**
 * Restart records in the Audit table and the probe's last observation in the State table
 * (docs/state.md § Audit table, docs/restarts.md).
 *
 * Audit item: pk `RESTART#{namespaceId}#{agentId}#{deploymentId}`,
 *             sk `{transition time, RFC 3339 UTC with ms}#{podUid}:{container}:{restartCount}`
 *             (the next instance's key), put with `attribute_not_exists(pk)`: observing the same
 *             transition twice writes one item and the second put is not an error.
 * State item: pk `OBS#{namespaceId}#{agentId}#{deploymentId}` — the probe's last observation of the
 *             deployment (compact; see observe.ts), needed because a Pod replacement takes two
 *             observations. `expiresAt` lets DynamoDB TTL collect items of stopped deployments.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { RestartRecordTable } from "../audit/restart-items.ts";
import { isRfc3339Utc } from "../rfc3339.ts";
import type { Observation, RestartRecord } from "./types.ts";

export const RESTART_LIST_LIMIT = 20;
/** OBS items outlive a probe interval many times over; a stopped deployment's item then expires. */
const OBSERVATION_TTL_SECONDS = 7 * 86_400;

export const observationPk = (namespaceId: string, agentId: string, deploymentId: string): string =>
  `OBS#${namespaceId}#${agentId}#${deploymentId}`;

/** Normalizes an RFC 3339 UTC time to millisecond form so sort keys order by time. */
export function sortableTime(t: string): string | null {
  return isRfc3339Utc(t) ? new Date(Date.parse(t)).toISOString() : null;
}

/** The sort-key time and instance key of a record (the next instance's key). */
export function restartPlace(record: RestartRecord, at: string) {
  const n = record.next;
  return {
    namespaceId: record.namespaceId,
    agentId: record.agentId,
    deploymentId: record.deploymentId,
    at: sortableTime(at) ?? sortableTime(record.detectedAt) ?? record.detectedAt,
    instanceKey: `${n.podUid}:${n.container}:${n.restartCount}`,
  };
}

export type PutOutcome = "written" | "exists";

export interface RestartStore {
  /** Throws on a store failure; `exists` when the transition is already recorded. */
  put(record: RestartRecord, at: string): Promise<PutOutcome>;
  /** Newest first, at most 20. */
  list(namespaceId: string, agentId: string, deploymentId: string, limit?: number): Promise<RestartRecord[]>;
}

export interface ObservationStore {
  get(namespaceId: string, agentId: string, deploymentId: string): Promise<Observation | null>;
  put(namespaceId: string, agentId: string, deploymentId: string, observation: Observation): Promise<void>;
}

/** Restart records placed by the audit module's `RestartRecordTable` (one key scheme, one place). */
export class DynamoRestartStore implements RestartStore {
  readonly #table: RestartRecordTable;

  constructor(options: {
    doc: DynamoDBDocumentClient;
    tableName: string;
    retentionDays?: number;
    now?: () => number;
  }) {
    this.#table = new RestartRecordTable({
      doc: options.doc,
      tableName: options.tableName,
      retentionDays: options.retentionDays ?? 400,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  async put(record: RestartRecord, at: string): Promise<PutOutcome> {
    const out = await this.#table.putIfAbsent(restartPlace(record, at), { ...record });
    return out === "created" ? "written" : "exists";
  }

  async list(namespaceId: string, agentId: string, deploymentId: string, limit = RESTART_LIST_LIMIT) {
    const items = await this.#table.newest(
      namespaceId,
      agentId,
      deploymentId,
      Math.min(Math.max(1, limit), RESTART_LIST_LIMIT),
    );
    return items as unknown as RestartRecord[];
  }
}

export class DynamoObservationStore implements ObservationStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: { doc: DynamoDBDocumentClient; tableName: string }) {
    this.#doc = options.doc;
    this.#table = options.tableName;
  }

  async get(namespaceId: string, agentId: string, deploymentId: string): Promise<Observation | null> {
    const out = await this.#doc.send(
      new GetCommand({
        TableName: this.#table,
        Key: { pk: observationPk(namespaceId, agentId, deploymentId) },
        ConsistentRead: true,
      }),
    );
    const obs = out.Item?.observation as Observation | undefined;
    return obs && typeof obs.observedAt === "string" && Array.isArray(obs.pods) ? obs : null;
  }

  async put(
    namespaceId: string,
    agentId: string,
    deploymentId: string,
    observation: Observation,
  ): Promise<void> {
    const observedMs = Date.parse(observation.observedAt);
    await this.#doc.send(
      new PutCommand({
        TableName: this.#table,
        Item: {
          pk: observationPk(namespaceId, agentId, deploymentId),
          observation,
          expiresAt: Math.floor((Number.isNaN(observedMs) ? 0 : observedMs) / 1000) + OBSERVATION_TTL_SECONDS,
        },
      }),
    );
  }
}
