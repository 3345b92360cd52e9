/**
 * The registry part of the scenario: Agents with their deployments (placement, sandbox) and grants,
 * as the local stack writes them to the Registry table. `resolveRegistry` is the pass after parsing:
 * unique IDs, known clusters, the active deployment, and `createdAt` against the scenario's `now`.
 */
import { z } from "zod";
import { DNS_LABEL } from "../../lib/api/ids.ts";
import type {
  Action,
  AgentRecord,
  DeploymentRecord,
  GrantRecord,
  Placement,
  Plane,
  RolePlacement,
  SandboxRef,
} from "../../lib/domain.ts";
import { SANDBOX_REF_FIELDS } from "../../lib/registry/items.ts";
import { id, resolveTime, time } from "./fields.ts";
import { formatPath, type ScenarioIssue } from "./issues.ts";
import { formatIsoMillis } from "./time.ts";

export type ScenarioDeployment = Omit<DeploymentRecord, "namespaceId" | "agentId">;
export type ScenarioAgent = Omit<AgentRecord, "stateVersion"> & { deployments: ScenarioDeployment[] };
export type ScenarioGrant = GrantRecord;

export interface ScenarioRegistry {
  agents: ScenarioAgent[];
  grants: ScenarioGrant[];
}

const rolePlacement = (plane?: Plane) =>
  z.strictObject({
    clusterId: id,
    namespace: z.string().regex(DNS_LABEL, "must be a DNS label"),
    plane: plane ? z.enum(["control", "execution"]).default(plane) : z.enum(["control", "execution"]),
  });
const sandbox = z.strictObject(SANDBOX_REF_FIELDS);
const deployment = z.strictObject({
  deploymentId: id,
  revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
  createdAt: time.optional(),
  computeDriver: z.string().min(1).default("kubernetes"),
  runtimeLogging: z.enum(["service", "driver"]).default("service"),
  placement: z.strictObject({ gateway: rolePlacement().optional(), agent: rolePlacement().optional() }),
  sandbox: sandbox.optional(),
});
const agent = z.strictObject({
  namespaceId: id,
  agentId: id,
  tier: z.enum(["standard", "sensitive"]).default("standard"),
  state: z.enum(["running", "stopped", "deleted"]).default("running"),
  activeDeploymentId: id.optional(),
  deployments: z.array(deployment).min(1),
});
const grant = z.strictObject({
  principalId: z.string().min(1).max(2048),
  namespaceId: id,
  agentId: z.union([z.literal("*"), id]).default("*"),
  actions: z.array(z.enum(["read", "operate", "read_logs", "administer"])).min(1),
});

export const registrySchema = z.strictObject({ agents: z.array(agent), grants: z.array(grant) });
type RegistryDoc = z.output<typeof registrySchema>;

export function resolveRegistry(
  r: RegistryDoc,
  clusterIds: Set<string>,
  nowNs: bigint,
  issues: ScenarioIssue[],
): ScenarioRegistry {
  const seenAgents = new Set<string>();
  const agents = r.agents.map((a, ai): ScenarioAgent => {
    const at = (...rest: PropertyKey[]) => formatPath(["registry", "agents", ai, ...rest]);
    const key = `${a.namespaceId}/${a.agentId}`;
    if (seenAgents.has(key)) issues.push({ path: at("agentId"), message: `duplicate agent "${key}"` });
    seenAgents.add(key);
    const seenDeployments = new Set<string>();
    const deployments = a.deployments.map((d, di): ScenarioDeployment => {
      if (seenDeployments.has(d.deploymentId)) {
        issues.push({
          path: at("deployments", di, "deploymentId"),
          message: `duplicate deployment "${d.deploymentId}"`,
        });
      }
      seenDeployments.add(d.deploymentId);
      const placement: Placement = {};
      for (const role of ["gateway", "agent"] as const) {
        const p = d.placement[role];
        if (!p) continue;
        if (!clusterIds.has(p.clusterId)) {
          issues.push({
            path: at("deployments", di, "placement", role, "clusterId"),
            message: `unknown cluster "${p.clusterId}"`,
          });
        }
        placement[role] = {
          clusterId: p.clusterId,
          namespace: p.namespace,
          plane: p.plane,
        } satisfies RolePlacement;
      }
      const createdNs = d.createdAt ? resolveTime(d.createdAt, nowNs) : nowNs;
      const out: ScenarioDeployment = {
        deploymentId: d.deploymentId,
        revision: d.revision,
        createdAt: formatIsoMillis(createdNs),
        computeDriver: d.computeDriver,
        runtimeLogging: d.runtimeLogging,
        placement,
      };
      if (d.sandbox) out.sandbox = d.sandbox satisfies SandboxRef;
      return out;
    });
    const newest = deployments.reduce((best, d) => (d.revision > best.revision ? d : best));
    const active = a.activeDeploymentId ?? newest.deploymentId;
    if (!seenDeployments.has(active)) {
      issues.push({ path: at("activeDeploymentId"), message: `no deployment "${active}" in this agent` });
    }
    return {
      namespaceId: a.namespaceId,
      agentId: a.agentId,
      tier: a.tier,
      state: a.state,
      activeDeploymentId: active,
      deployments,
    };
  });
  const grants = r.grants.map(
    (g): ScenarioGrant => ({
      principalId: g.principalId,
      namespaceId: g.namespaceId,
      agentId: g.agentId,
      actions: [...new Set<Action>(g.actions)],
    }),
  );
  return { agents, grants };
}

/** A deployment's sandbox must name a gateway of the scenario's `openshell` block. */
export function checkSandboxRefs(
  registry: ScenarioRegistry,
  gatewayIds: Set<string>,
  issues: ScenarioIssue[],
): void {
  registry.agents.forEach((a, ai) => {
    a.deployments.forEach((d, di) => {
      if (d.sandbox && !gatewayIds.has(d.sandbox.endpointRef)) {
        issues.push({
          path: formatPath(["registry", "agents", ai, "deployments", di, "sandbox", "endpointRef"]),
          message: `unknown OpenShell gateway "${d.sandbox.endpointRef}"`,
        });
      }
    });
  });
}
