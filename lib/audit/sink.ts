/**
 * AuditSink: append-only audit records in the Audit table (docs/state.md § Audit table).
 * pk `AGENT#{namespaceId}#{agentId}`, sk `{RFC 3339 UTC ms}#{ULID}`, written with
 * `attribute_not_exists(pk)` so nothing is ever overwritten; `purgeAt` (epoch s) for retention.
 * Denials are the one aggregate: one item per principal, Agent, route and minute
 * (sk `DENIED#{minute}#{route}#{principalId}`), counted with a single UpdateItem.
 *
 * Failures surface typed, per kind, as the caller must answer them (docs/api.md):
 * view/download → 503 RUNTIME_LOGS_AUDIT_UNAVAILABLE (nothing is read); denial → 503
 * DEPENDENCY_UNAVAILABLE instead of 403; `record` → AuditUnavailableError.
 */
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type ErrorCode, ServiceError } from "../api/errors.ts";
import {
  type AuditFields,
  type AuditRecord,
  type DenialAggregate,
  type DenialAudit,
  denialFields,
  denialMinute,
  denialSk,
  parseDenialSk,
  type ReadAudit,
  readFields,
  validateDenial,
  validateFields,
} from "./records.ts";
import { type RandomBytes, ulid } from "./ulid.ts";

export const PRINCIPAL_INDEX = "principal";
const DAY_SECONDS = 86_400;

export class AuditUnavailableError extends Error {
  override name = "AuditUnavailableError";
}

export interface AuditPage {
  records: AuditRecord[];
  /** Denial aggregates among the same items (they sort after the records of an Agent). */
  denials: DenialAggregate[];
  /** Pass back as `startKey` for the next page; absent on the last page. */
  next?: Record<string, unknown>;
}

export interface AuditQuery {
  limit?: number;
  startKey?: Record<string, unknown>;
}

export interface AuditSink {
  /** Writes one record; throws AuditUnavailableError when it could not be written. */
  record(fields: AuditFields): Promise<AuditRecord>;
  /** A new log view; throws ServiceError RUNTIME_LOGS_AUDIT_UNAVAILABLE. */
  recordView(view: ReadAudit): Promise<AuditRecord>;
  /** A download; throws ServiceError RUNTIME_LOGS_AUDIT_UNAVAILABLE. */
  recordDownload(download: ReadAudit): Promise<AuditRecord>;
  /**
   * Counts a denial in its minute's aggregate (one UpdateItem); throws ServiceError
   * DEPENDENCY_UNAVAILABLE (the answer becomes 503, not 403).
   */
  recordDenial(denial: DenialAudit): Promise<DenialAggregate>;
}

export interface AuditReader {
  /** One Agent's records, newest first. */
  listByAgent(namespaceId: string, agentId: string, query?: AuditQuery): Promise<AuditPage>;
  /** One principal's records across Agents, newest first (GSI `principal`). */
  listByPrincipal(principalId: string, query?: AuditQuery): Promise<AuditPage>;
}

export interface DynamoAuditSinkOptions {
  doc: DynamoDBDocumentClient;
  tableName: string;
  retentionDays: number;
  now?: () => number;
  randomBytes?: RandomBytes;
}

export const auditPk = (namespaceId: string, agentId: string) => `AGENT#${namespaceId}#${agentId}`;
export const auditSk = (timeMs: number, eventId: string) => `${new Date(timeMs).toISOString()}#${eventId}`;

const AUDIT_PK = /^AGENT#([^#]+)#([^#]+)$/;
const AUDIT_SK = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)#([0-9A-Z]{26})$/;
const STORED_FIELDS = [
  "event",
  "outcome",
  "principalId",
  "requestId",
  "action",
  "grant",
  "deploymentId",
  "viewId",
  "source",
  "pod",
  "container",
  "previous",
  "tailLines",
  "reasonCode",
] as const;

/** Only the documented fields are written, whatever else an object might carry at run time. */
function storedAttributes(fields: AuditFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const source = fields as unknown as Record<string, unknown>;
  for (const f of STORED_FIELDS) if (source[f] !== undefined) out[f] = source[f];
  return out;
}

function recordFromItem(item: Record<string, unknown>): AuditRecord | null {
  const pk = typeof item.pk === "string" ? AUDIT_PK.exec(item.pk) : null;
  const sk = typeof item.sk === "string" ? AUDIT_SK.exec(item.sk) : null;
  if (!pk || !sk) return null;
  const record: Record<string, unknown> = { namespaceId: pk[1], agentId: pk[2], time: sk[1], eventId: sk[2] };
  for (const f of STORED_FIELDS) if (item[f] !== undefined) record[f] = item[f];
  return record as unknown as AuditRecord;
}

/** A denial aggregate as stored, or null for any other item. */
function denialFromItem(item: Record<string, unknown>): DenialAggregate | null {
  const pk = typeof item.pk === "string" ? AUDIT_PK.exec(item.pk) : null;
  const sk = typeof item.sk === "string" ? parseDenialSk(item.sk) : null;
  if (!pk || !sk || typeof item.count !== "number") return null;
  const out: Record<string, unknown> = {
    namespaceId: pk[1],
    agentId: pk[2],
    principalId: sk.principalId,
    route: sk.route,
    minute: sk.minute,
    count: item.count,
    firstAt: item.firstAt,
    lastAt: item.lastAt,
  };
  for (const f of ["event", "outcome", "requestId", "action", "reasonCode", "deploymentId", "source"])
    if (item[f] !== undefined) out[f] = item[f];
  return out as unknown as DenialAggregate;
}

const isConditionFailure = (e: unknown) =>
  (e as { name?: string }).name === "ConditionalCheckFailedException";
const MAX_PAGE = 1000;

export class DynamoAuditSink implements AuditSink, AuditReader {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #retentionSeconds: number;
  readonly #now: () => number;
  readonly #randomBytes: RandomBytes | undefined;

  constructor(options: DynamoAuditSinkOptions) {
    this.#doc = options.doc;
    this.#table = options.tableName;
    this.#retentionSeconds = options.retentionDays * DAY_SECONDS;
    this.#now = options.now ?? Date.now;
    this.#randomBytes = options.randomBytes;
  }

  async record(fields: AuditFields): Promise<AuditRecord> {
    try {
      validateFields(fields);
    } catch (e) {
      throw new AuditUnavailableError("audit record refused", { cause: e });
    }
    // An sk collision is a ULID collision: astronomically rare, but retried once with a new ID.
    for (let attempt = 1; ; attempt++) {
      const now = Math.floor(this.#now());
      const eventId = ulid(now, this.#randomBytes);
      const sk = auditSk(now, eventId);
      try {
        await this.#doc.send(
          new PutCommand({
            TableName: this.#table,
            Item: {
              ...storedAttributes(fields),
              pk: auditPk(fields.namespaceId, fields.agentId),
              sk,
              purgeAt: Math.floor(now / 1000) + this.#retentionSeconds,
            },
            ConditionExpression: "attribute_not_exists(pk)",
          }),
        );
        return { ...fields, time: new Date(now).toISOString(), eventId };
      } catch (e) {
        if (isConditionFailure(e) && attempt < 2) continue;
        throw new AuditUnavailableError("audit write failed", { cause: e });
      }
    }
  }

  recordView(view: ReadAudit): Promise<AuditRecord> {
    return this.#as("RUNTIME_LOGS_AUDIT_UNAVAILABLE", () => this.record(readFields("view", view)));
  }

  recordDownload(download: ReadAudit): Promise<AuditRecord> {
    return this.#as("RUNTIME_LOGS_AUDIT_UNAVAILABLE", () => this.record(readFields("download", download)));
  }

  recordDenial(denial: DenialAudit): Promise<DenialAggregate> {
    return this.#as("DEPENDENCY_UNAVAILABLE", () => this.#countDenial(denial));
  }

  async #countDenial(denial: DenialAudit): Promise<DenialAggregate> {
    try {
      validateDenial(denial);
    } catch (e) {
      throw new AuditUnavailableError("audit record refused", { cause: e });
    }
    const now = Math.floor(this.#now());
    const at = new Date(now).toISOString();
    const minute = denialMinute(now);
    const fields = denialFields(denial);
    // The latest denial's context; `count` and `firstAt` accumulate. Optional context absent in
    // this denial is removed, so the item never mixes two denials' context.
    const set: Record<string, unknown> = {
      ...storedAttributes(fields),
      route: denial.route,
      minute,
      lastAt: at,
      purgeAt: Math.floor(now / 1000) + this.#retentionSeconds,
    };
    const names: Record<string, string> = { "#count": "count", "#firstAt": "firstAt" };
    const values: Record<string, unknown> = { ":one": 1, ":at": at };
    const assignments = ["#firstAt = if_not_exists(#firstAt, :at)"];
    for (const [i, [name, value]] of Object.entries(set).entries()) {
      names[`#f${i}`] = name;
      values[`:v${i}`] = value;
      assignments.push(`#f${i} = :v${i}`);
    }
    const removed = (["deploymentId", "source"] as const).filter((f) => fields[f] === undefined);
    for (const [i, name] of removed.entries()) names[`#r${i}`] = name;
    const remove = removed.length > 0 ? ` REMOVE ${removed.map((_, i) => `#r${i}`).join(", ")}` : "";
    let out: Record<string, unknown> | undefined;
    try {
      const result = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: {
            pk: auditPk(denial.namespaceId, denial.agentId),
            sk: denialSk(minute, denial.route, denial.principalId),
          },
          UpdateExpression: `SET ${assignments.join(", ")} ADD #count :one${remove}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
        }),
      );
      out = result.Attributes;
    } catch (e) {
      throw new AuditUnavailableError("audit write failed", { cause: e });
    }
    const aggregate = out ? denialFromItem(out) : null;
    if (!aggregate) throw new AuditUnavailableError("audit write returned no aggregate");
    return aggregate;
  }

  async #as<T>(code: ErrorCode, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      throw new ServiceError(code, { cause: e, internal: "audit: record not written" });
    }
  }

  listByAgent(namespaceId: string, agentId: string, query: AuditQuery = {}): Promise<AuditPage> {
    return this.#query(
      {
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": auditPk(namespaceId, agentId) },
      },
      query,
    );
  }

  listByPrincipal(principalId: string, query: AuditQuery = {}): Promise<AuditPage> {
    return this.#query(
      {
        IndexName: PRINCIPAL_INDEX,
        KeyConditionExpression: "principalId = :p",
        ExpressionAttributeValues: { ":p": principalId },
      },
      query,
    );
  }

  async #query(
    input: {
      IndexName?: string;
      KeyConditionExpression: string;
      ExpressionAttributeValues: Record<string, unknown>;
    },
    query: AuditQuery,
  ): Promise<AuditPage> {
    const limit = Math.max(1, Math.min(query.limit ?? 100, MAX_PAGE));
    const out = await this.#doc.send(
      new QueryCommand({
        TableName: this.#table,
        ...input,
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: query.startKey,
      }),
    );
    const records: AuditRecord[] = [];
    const denials: DenialAggregate[] = [];
    for (const item of out.Items ?? []) {
      const denial = denialFromItem(item);
      if (denial) {
        denials.push(denial);
        continue;
      }
      const record = recordFromItem(item);
      if (record) records.push(record);
    }
    return out.LastEvaluatedKey ? { records, denials, next: out.LastEvaluatedKey } : { records, denials };
  }
}
