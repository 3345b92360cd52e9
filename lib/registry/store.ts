/**
 * RegistryStore: who runs what, where, and who may look (docs/state.md § Registry table).
 * Agents, deployments and clusters are cached per container for at most 30 s; grants never are,
 * and are read strongly consistent, so a revoked grant stops the very next poll.
 * Every failure (unreachable, throttled, malformed item) is 503 DEPENDENCY_UNAVAILABLE.
 */
import { type AttributeValue, BatchGetItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { ServiceError } from "../api/errors.ts";
import type {
  AgentRecord,
  ClusterRecord,
  DeploymentRecord,
  GrantRecord,
  OpenShellGatewayRecord,
} from "../domain.ts";
import { TtlCache } from "./cache.ts";
import {
  ALL_AGENTS,
  agentFromItem,
  agentKey,
  agentPk,
  clusterFromItem,
  clusterKey,
  DEPLOYMENT_PREFIX,
  deploymentFromItem,
  deploymentKey,
  grantFromItem,
  grantKey,
  namespaceGrantPrefix,
  openshellFromItem,
  openshellKey,
  principalPk,
  RegistryItemError,
  RUNNING_INDEX,
  RUNNING_KEY,
} from "./items.ts";

export interface RegistryStore {
  getAgent(namespaceId: string, agentId: string): Promise<AgentRecord | null>;
  /** Only a deployment of that Agent: the key is the Agent's. */
  getDeployment(namespaceId: string, agentId: string, deploymentId: string): Promise<DeploymentRecord | null>;
  /** Highest revision first. */
  listDeployments(namespaceId: string, agentId: string): Promise<DeploymentRecord[]>;
  /** Every Agent whose state is running (sparse `running` index, no scan). */
  listRunningAgents(): Promise<AgentRecord[]>;
  /** The principal's Agent-specific grant and its namespace-wide `*` grant, whichever exist. Never cached. */
  grantsFor(principalId: string, namespaceId: string, agentId: string): Promise<GrantRecord[]>;
  /** Whether the principal holds any grant in the namespace (404 versus 403). Never cached. */
  hasGrantInNamespace(principalId: string, namespaceId: string): Promise<boolean>;
  getCluster(clusterId: string): Promise<ClusterRecord | null>;
  /** An OpenShell gateway (`OPENSHELL#{gatewayId}`), cached like clusters. */
  getOpenShellGateway(gatewayId: string): Promise<OpenShellGatewayRecord | null>;
}

export const MAX_CACHE_TTL_MS = 30_000;

export interface DynamoRegistryStoreOptions {
  doc: DynamoDBDocumentClient;
  /** The low-level client of lib/state/dynamo.ts: the grant lookup, made on every request, uses it. */
  client: DynamoDBClient;
  tableName: string;
  /** Cache lifetime, capped at 30 s; 0 disables caching. */
  cacheTtlMs?: number;
  maxCacheEntries?: number;
  now?: () => number;
}

/** Wraps a store failure; the cause stays internal (structured log only). */
function unavailable(cause: unknown): ServiceError {
  if (cause instanceof ServiceError) return cause;
  const internal =
    cause instanceof RegistryItemError ? `registry: ${cause.message}` : "registry: DynamoDB call failed";
  return new ServiceError("DEPENDENCY_UNAVAILABLE", { cause, internal });
}

const MAX_BATCH_ROUNDS = 5;

type RawItem = Record<string, AttributeValue>;

/** A grant item as grantFromItem reads it: its keys and actions (a string set, or a list of strings). */
function plainGrant(item: RawItem): Record<string, unknown> {
  const actions = item.actions;
  return {
    pk: item.pk?.S,
    sk: item.sk?.S,
    actions: actions?.SS ?? actions?.L?.map((v) => v.S) ?? [],
  };
}

export class DynamoRegistryStore implements RegistryStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #cache: TtlCache<unknown> | null;

  constructor(options: DynamoRegistryStoreOptions) {
    this.#doc = options.doc;
    this.#client = options.client;
    this.#table = options.tableName;
    const ttlMs = Math.min(options.cacheTtlMs ?? MAX_CACHE_TTL_MS, MAX_CACHE_TTL_MS);
    this.#cache =
      ttlMs > 0
        ? new TtlCache({ ttlMs, maxEntries: options.maxCacheEntries ?? 5_000, now: options.now ?? Date.now })
        : null;
  }

  async #cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.#cache?.get(key);
    if (hit) return hit.value as T;
    let value: T;
    try {
      value = await load();
    } catch (e) {
      throw unavailable(e);
    }
    this.#cache?.set(key, value);
    return value;
  }

  async #getItem(key: { pk: string; sk: string }, consistent = false) {
    const out = await this.#doc.send(
      new GetCommand({ TableName: this.#table, Key: key, ConsistentRead: consistent }),
    );
    return out.Item ?? null;
  }

  getAgent(namespaceId: string, agentId: string): Promise<AgentRecord | null> {
    return this.#cached(`a|${namespaceId}|${agentId}`, async () => {
      const item = await this.#getItem(agentKey(namespaceId, agentId));
      return item ? agentFromItem(item) : null;
    });
  }

  getDeployment(
    namespaceId: string,
    agentId: string,
    deploymentId: string,
  ): Promise<DeploymentRecord | null> {
    return this.#cached(`d|${namespaceId}|${agentId}|${deploymentId}`, async () => {
      const item = await this.#getItem(deploymentKey(namespaceId, agentId, deploymentId));
      return item ? deploymentFromItem(item) : null;
    });
  }

  listDeployments(namespaceId: string, agentId: string): Promise<DeploymentRecord[]> {
    return this.#cached(`l|${namespaceId}|${agentId}`, async () => {
      const out: DeploymentRecord[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await this.#doc.send(
          new QueryCommand({
            TableName: this.#table,
            KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues: { ":pk": agentPk(namespaceId, agentId), ":prefix": DEPLOYMENT_PREFIX },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) out.push(deploymentFromItem(item));
        start = page.LastEvaluatedKey;
      } while (start);
      // "Newest" always means highest revision; ties broken by ID so the order is stable.
      return out.sort((a, b) => b.revision - a.revision || (a.deploymentId < b.deploymentId ? -1 : 1));
    });
  }

  async listRunningAgents(): Promise<AgentRecord[]> {
    try {
      const out: AgentRecord[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await this.#doc.send(
          new QueryCommand({
            TableName: this.#table,
            IndexName: RUNNING_INDEX,
            KeyConditionExpression: "runningKey = :running",
            ExpressionAttributeValues: { ":running": RUNNING_KEY },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) {
          const agent = agentFromItem(item);
          // The index is eventually consistent; the item's own state has the last word.
          if (agent.state === "running") out.push(agent);
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return out;
    } catch (e) {
      throw unavailable(e);
    }
  }

  async grantsFor(principalId: string, namespaceId: string, agentId: string): Promise<GrantRecord[]> {
    const raw = (k: { pk: string; sk: string }): RawItem => ({ pk: { S: k.pk }, sk: { S: k.sk } });
    const keys = [raw(grantKey(principalId, namespaceId, agentId))];
    if (agentId !== ALL_AGENTS) keys.push(raw(grantKey(principalId, namespaceId, ALL_AGENTS)));
    try {
      const items: RawItem[] = [];
      let pending: RawItem[] = keys;
      for (let round = 0; pending.length > 0; round++) {
        if (round === MAX_BATCH_ROUNDS) throw new Error("grant lookup left unprocessed keys");
        const out = await this.#client.send(
          new BatchGetItemCommand({
            RequestItems: { [this.#table]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        items.push(...(out.Responses?.[this.#table] ?? []));
        pending = out.UnprocessedKeys?.[this.#table]?.Keys ?? [];
      }
      // Agent-specific first: it is the grant a decision names when both qualify.
      return items
        .map((item) => grantFromItem(plainGrant(item)))
        .sort((a, b) => Number(a.agentId === ALL_AGENTS) - Number(b.agentId === ALL_AGENTS));
    } catch (e) {
      throw unavailable(e);
    }
  }

  async hasGrantInNamespace(principalId: string, namespaceId: string): Promise<boolean> {
    try {
      const out = await this.#doc.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
          ExpressionAttributeValues: {
            ":pk": principalPk(principalId),
            ":prefix": namespaceGrantPrefix(namespaceId),
          },
          ConsistentRead: true,
          Limit: 1,
          ProjectionExpression: "pk",
        }),
      );
      return (out.Items?.length ?? 0) > 0;
    } catch (e) {
      throw unavailable(e);
    }
  }

  getCluster(clusterId: string): Promise<ClusterRecord | null> {
    return this.#cached(`c|${clusterId}`, async () => {
      const item = await this.#getItem(clusterKey(clusterId));
      return item ? clusterFromItem(item) : null;
    });
  }

  getOpenShellGateway(gatewayId: string): Promise<OpenShellGatewayRecord | null> {
    return this.#cached(`o|${gatewayId}`, async () => {
      const item = await this.#getItem(openshellKey(gatewayId));
      return item ? openshellFromItem(item) : null;
    });
  }
}
