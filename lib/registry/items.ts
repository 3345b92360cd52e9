/**
 * The Registry table's item shapes (docs/state.md § Registry table): the only module that knows them.
 * Keys are built here and parsed back here; attributes are exactly those of docs/state.md. Stored items
 * are validated on the way in, since the registry is written by another system.
 */
import { z } from "zod";
import type {
  Action,
  AgentRecord,
  ClusterRecord,
  DeploymentRecord,
  GrantRecord,
  OpenShellGatewayRecord,
  Placement,
  SandboxRef,
} from "../domain.ts";

export const META = "META";
export const RUNNING_KEY = "RUNNING";
export const RUNNING_INDEX = "running";
export const DEPLOYMENT_PREFIX = "DEPLOYMENT#";
export const ALL_AGENTS = "*";

export type RegistryItem = Record<string, unknown> & { pk: string; sk: string };

/** An item that does not have the documented shape. Never carries item contents. */
export class RegistryItemError extends Error {
  override name = "RegistryItemError";
}

export const agentPk = (namespaceId: string, agentId: string) => `AGENT#${namespaceId}#${agentId}`;
export const deploymentSk = (deploymentId: string) => `${DEPLOYMENT_PREFIX}${deploymentId}`;
export const clusterPk = (clusterId: string) => `CLUSTER#${clusterId}`;
export const openshellPk = (gatewayId: string) => `OPENSHELL#${gatewayId}`;
export const principalPk = (principalId: string) => `PRINCIPAL#${principalId}`;
export const namespaceGrantPrefix = (namespaceId: string) => `NS#${namespaceId}#AGENT#`;
export const grantSk = (namespaceId: string, agentId: string) =>
  `${namespaceGrantPrefix(namespaceId)}${agentId}`;

export const agentKey = (namespaceId: string, agentId: string) => ({
  pk: agentPk(namespaceId, agentId),
  sk: META,
});
export const deploymentKey = (namespaceId: string, agentId: string, deploymentId: string) => ({
  pk: agentPk(namespaceId, agentId),
  sk: deploymentSk(deploymentId),
});
export const clusterKey = (clusterId: string) => ({ pk: clusterPk(clusterId), sk: META });
export const openshellKey = (gatewayId: string) => ({ pk: openshellPk(gatewayId), sk: META });
export const grantKey = (principalId: string, namespaceId: string, agentId: string) => ({
  pk: principalPk(principalId),
  sk: grantSk(namespaceId, agentId),
});

const AGENT_PK = /^AGENT#([^#]+)#([^#]+)$/;
const CLUSTER_PK = /^CLUSTER#([^#]+)$/;
const OPENSHELL_PK = /^OPENSHELL#([^#]+)$/;
const GRANT_SK = /^NS#([^#]+)#AGENT#([^#]+)$/;
const ACTIONS: readonly Action[] = ["read", "operate", "read_logs", "administer"];

function match(pattern: RegExp, value: unknown, what: string): string[] {
  const m = typeof value === "string" ? pattern.exec(value) : null;
  if (!m) throw new RegistryItemError(`malformed ${what} key`);
  return m.slice(1);
}

function parse<T>(schema: z.ZodType<T>, item: unknown, what: string): T {
  const r = schema.safeParse(item);
  if (!r.success) throw new RegistryItemError(`malformed ${what} item`);
  return r.data;
}

const rolePlacement = z.object({
  clusterId: z.string().min(1),
  namespace: z.string().min(1),
  plane: z.enum(["control", "execution"]),
});
const placementSchema = z.object({ gateway: rolePlacement.optional(), agent: rolePlacement.optional() });
/** A deployment's sandbox reference (SandboxRef): the fields the items and the scenario file both check. */
export const SANDBOX_REF_FIELDS = {
  driver: z.literal("openshell"),
  endpointRef: z.string().min(1),
  sandboxName: z.string().min(1),
  workspace: z.string().min(1),
};
const sandboxSchema = z.object(SANDBOX_REF_FIELDS);

const agentItem = z.object({
  tier: z.enum(["standard", "sensitive"]),
  state: z.enum(["running", "stopped", "deleted"]),
  activeDeploymentId: z.string().min(1),
  stateVersion: z.number().int().nonnegative(),
});

const deploymentItem = z.object({
  revision: z.number().int(),
  createdAt: z.string().min(1),
  computeDriver: z.string().min(1),
  runtimeLogging: z.enum(["service", "driver"]),
  placement: placementSchema,
  sandbox: sandboxSchema.optional(),
});

const clusterItem = z.object({
  kubeconfigRef: z.string().min(1),
  displayName: z.string(),
  allowStaticCredentials: z.boolean().optional(),
});
const openshellItem = z.object({ connectionRef: z.string().min(1), displayName: z.string() });

export function agentToItem(agent: AgentRecord): RegistryItem {
  return {
    ...agentKey(agent.namespaceId, agent.agentId),
    tier: agent.tier,
    state: agent.state,
    activeDeploymentId: agent.activeDeploymentId,
    stateVersion: agent.stateVersion,
    // Sparse index: present only while running.
    ...(agent.state === "running" ? { runningKey: RUNNING_KEY } : {}),
  };
}

export function agentFromItem(item: Record<string, unknown>): AgentRecord {
  const [namespaceId, agentId] = match(AGENT_PK, item.pk, "agent") as [string, string];
  if (item.sk !== META) throw new RegistryItemError("malformed agent key");
  const a = parse(agentItem, item, "agent");
  return { namespaceId, agentId, ...a };
}

function placementOf(p: z.infer<typeof placementSchema>): Placement {
  const out: Placement = {};
  if (p.gateway) out.gateway = p.gateway;
  if (p.agent) out.agent = p.agent;
  return out;
}

export function deploymentToItem(d: DeploymentRecord): RegistryItem {
  return {
    ...deploymentKey(d.namespaceId, d.agentId, d.deploymentId),
    revision: d.revision,
    createdAt: d.createdAt,
    computeDriver: d.computeDriver,
    runtimeLogging: d.runtimeLogging,
    placement: placementOf(d.placement),
    ...(d.sandbox ? { sandbox: { ...d.sandbox } } : {}),
  };
}

export function deploymentFromItem(item: Record<string, unknown>): DeploymentRecord {
  const [namespaceId, agentId] = match(AGENT_PK, item.pk, "deployment") as [string, string];
  const sk = typeof item.sk === "string" ? item.sk : "";
  const deploymentId = sk.startsWith(DEPLOYMENT_PREFIX) ? sk.slice(DEPLOYMENT_PREFIX.length) : "";
  if (deploymentId === "" || deploymentId.includes("#"))
    throw new RegistryItemError("malformed deployment key");
  const d = parse(deploymentItem, item, "deployment");
  const record: DeploymentRecord = {
    namespaceId,
    agentId,
    deploymentId,
    revision: d.revision,
    createdAt: d.createdAt,
    computeDriver: d.computeDriver,
    runtimeLogging: d.runtimeLogging,
    placement: placementOf(d.placement),
  };
  if (d.sandbox) record.sandbox = d.sandbox satisfies SandboxRef;
  return record;
}

export function clusterToItem(c: ClusterRecord): RegistryItem {
  return {
    ...clusterKey(c.clusterId),
    kubeconfigRef: c.kubeconfigRef,
    displayName: c.displayName,
    // Absent means refused: only an explicit allowance is stored.
    ...(c.allowStaticCredentials === true ? { allowStaticCredentials: true } : {}),
  };
}

export function clusterFromItem(item: Record<string, unknown>): ClusterRecord {
  const [clusterId] = match(CLUSTER_PK, item.pk, "cluster") as [string];
  if (item.sk !== META) throw new RegistryItemError("malformed cluster key");
  const { allowStaticCredentials, ...c } = parse(clusterItem, item, "cluster");
  return { clusterId, ...c, ...(allowStaticCredentials === true ? { allowStaticCredentials } : {}) };
}

export function openshellToItem(g: OpenShellGatewayRecord): RegistryItem {
  return { ...openshellKey(g.gatewayId), connectionRef: g.connectionRef, displayName: g.displayName };
}

export function openshellFromItem(item: Record<string, unknown>): OpenShellGatewayRecord {
  const [gatewayId] = match(OPENSHELL_PK, item.pk, "openshell gateway") as [string];
  if (item.sk !== META) throw new RegistryItemError("malformed openshell gateway key");
  const g = parse(openshellItem, item, "openshell gateway");
  return { gatewayId, ...g };
}

export function grantToItem(g: GrantRecord): RegistryItem {
  const actions = ACTIONS.filter((a) => g.actions.includes(a));
  // DynamoDB has no empty sets; a grant without actions would still read as namespace access.
  if (actions.length === 0) throw new RegistryItemError("a grant needs at least one action");
  return { ...grantKey(g.principalId, g.namespaceId, g.agentId), actions: new Set<string>(actions) };
}

export function grantFromItem(item: Record<string, unknown>): GrantRecord {
  const pk = typeof item.pk === "string" ? item.pk : "";
  if (!pk.startsWith("PRINCIPAL#") || pk.length === "PRINCIPAL#".length) {
    throw new RegistryItemError("malformed grant key");
  }
  const [namespaceId, agentId] = match(GRANT_SK, item.sk, "grant") as [string, string];
  const raw = item.actions;
  const values: unknown[] = raw instanceof Set ? [...raw] : Array.isArray(raw) ? raw : [];
  // Unknown actions are ignored: a newer writer can never widen what this reader grants.
  const actions = ACTIONS.filter((a) => values.includes(a));
  return { principalId: pk.slice("PRINCIPAL#".length), namespaceId, agentId, actions };
}
