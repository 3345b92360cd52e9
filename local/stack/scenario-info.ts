/**
 * What the local stack reads from a parsed scenario besides what the simulator and the registry
 * loader take: the principals it grants (for `/__local/principals`) and one working example
 * (principal, Agent, active deployment) for the banner. Pure.
 */
import type { ScenarioRegistry } from "../scenario/schema.ts";

export interface StackExample {
  principal: string;
  namespaceId: string;
  agentId: string;
  deploymentId: string | null;
}

/** Granted principal IDs, in scenario order, without duplicates. */
export function grantedPrincipals(registry: ScenarioRegistry): string[] {
  return [...new Set(registry.grants.map((g) => g.principalId))];
}

/** The first granted principal and the first Agent that grant reaches, with its active deployment. */
export function firstExample(registry: ScenarioRegistry): StackExample | null {
  for (const grant of registry.grants) {
    const agent = registry.agents.find(
      (a) => a.namespaceId === grant.namespaceId && (grant.agentId === "*" || a.agentId === grant.agentId),
    );
    if (!agent) continue;
    const newest = [...agent.deployments].sort((a, b) => b.revision - a.revision)[0];
    return {
      principal: grant.principalId,
      namespaceId: agent.namespaceId,
      agentId: agent.agentId,
      deploymentId: agent.activeDeploymentId || newest?.deploymentId || null,
    };
  }
  return null;
}
