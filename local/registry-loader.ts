/**
 * Writes a scenario's registry section (docs/kube.md § Scenario file, defaults already applied by the
 * scenario schema), the local clusters and the local OpenShell gateways into the Registry table,
 * through lib/registry/items.ts: the only writer of these shapes on the local stack.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import type {
  AgentRecord,
  ClusterRecord,
  DeploymentRecord,
  GrantRecord,
  OpenShellGatewayRecord,
} from "../lib/domain.ts";
import {
  agentToItem,
  clusterToItem,
  deploymentToItem,
  grantToItem,
  openshellToItem,
  type RegistryItem,
} from "../lib/registry/items.ts";

export type ScenarioDeployment = Omit<DeploymentRecord, "namespaceId" | "agentId">;

export interface ScenarioAgent extends Omit<AgentRecord, "stateVersion"> {
  /** Defaults to 1. */
  stateVersion?: number;
  deployments: ScenarioDeployment[];
}

export interface RegistrySection {
  agents: ScenarioAgent[];
  grants: GrantRecord[];
}

export interface LoadOptions {
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** Delete every item first, so a reloaded scenario leaves nothing of the previous one. */
  replace?: boolean;
}

/** The items a registry section, clusters and gateways become (pure; exported for tests). */
export function registryItems(
  registry: RegistrySection,
  clusters: ClusterRecord[],
  gateways: OpenShellGatewayRecord[] = [],
): RegistryItem[] {
  const items: RegistryItem[] = [];
  for (const agent of registry.agents) {
    const { deployments, stateVersion, ...rest } = agent;
    items.push(agentToItem({ ...rest, stateVersion: stateVersion ?? 1 }));
    for (const d of deployments) {
      items.push(deploymentToItem({ ...d, namespaceId: agent.namespaceId, agentId: agent.agentId }));
    }
  }
  for (const grant of registry.grants) items.push(grantToItem(grant));
  for (const cluster of clusters) items.push(clusterToItem(cluster));
  for (const gateway of gateways) items.push(openshellToItem(gateway));
  const seen = new Set<string>();
  for (const item of items) {
    const id = `${item.pk}\u0000${item.sk}`;
    if (seen.has(id)) throw new Error(`duplicate registry entry: ${item.pk} ${item.sk}`);
    seen.add(id);
  }
  return items;
}

const BATCH = 25;
const MAX_ROUNDS = 10;

async function batchWrite(
  doc: DynamoDBDocumentClient,
  tableName: string,
  requests: Record<string, unknown>[],
): Promise<void> {
  for (let i = 0; i < requests.length; i += BATCH) {
    let pending = requests.slice(i, i + BATCH);
    for (let round = 0; pending.length > 0; round++) {
      if (round === MAX_ROUNDS) throw new Error("registry load: DynamoDB left items unprocessed");
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
    }
  }
}

async function deleteAll(doc: DynamoDBDocumentClient, tableName: string): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({ TableName: tableName, ProjectionExpression: "pk, sk", ExclusiveStartKey: start }),
    );
    const keys = (page.Items ?? []).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    await batchWrite(doc, tableName, keys);
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Loads the section; returns the number of items written. */
export async function loadRegistry(
  options: LoadOptions,
  registry: RegistrySection,
  clusters: ClusterRecord[] = [],
  gateways: OpenShellGatewayRecord[] = [],
): Promise<number> {
  const items = registryItems(registry, clusters, gateways);
  if (options.replace) await deleteAll(options.doc, options.tableName);
  await batchWrite(
    options.doc,
    options.tableName,
    items.map((Item) => ({ PutRequest: { Item } })),
  );
  return items.length;
}

/**
 * A local cluster item: `file:` kubeconfig reference (docs/state.md § Registry table). The kube
 * simulator authenticates with bearer tokens, so local clusters allow static credentials.
 */
export const localCluster = (
  clusterId: string,
  kubeconfigPath: string,
  displayName = clusterId,
): ClusterRecord => ({
  clusterId,
  kubeconfigRef: `file:${kubeconfigPath}`,
  displayName,
  allowStaticCredentials: true,
});

/** A local OpenShell gateway item: `file:` reference to its connection document (docs/sandbox.md). */
export const localGateway = (
  gatewayId: string,
  connectionPath: string,
  displayName = gatewayId,
): OpenShellGatewayRecord => ({ gatewayId, connectionRef: `file:${connectionPath}`, displayName });
