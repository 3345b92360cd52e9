/**
 * What the local stack reads from a parsed scenario besides what the simulator and the registry
 * loader take: the principals it grants (for `/__local/principals`) and one working example
 * (principal, Agent, active deployment) for the banner. Pure.
 */
import type { Scenario, ScenarioRegistry } from "../scenario/schema.ts";

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

/** A container the banner points at, with where the simulator serves it. */
export interface TourContainer {
  agentId: string;
  deploymentId: string;
  role: "gateway" | "agent";
  cluster: string;
  namespace: string;
  pod: string;
  container: string;
}

/**
 * What the banner shows beyond the first example, all read from the scenario: every Agent the
 * example's principal reaches (with its active deployment), a running Gateway container of the
 * example to restart while following, and containers that have restarted (their previous
 * instance is worth a `--previous` read).
 */
export interface Tour {
  agents: Array<{ agentId: string; deploymentId: string | null }>;
  restartable: TourContainer | null;
  restarted: TourContainer[];
  /** The example's active deployment's sandbox, when it names one (docs/sandbox.md). */
  sandbox: TourSandbox | null;
}

/** A sandbox the banner reads and appends to: the gateway and the name the deployment gives. */
export interface TourSandbox {
  gateway: string;
  sandboxName: string;
}

const activeOf = (agent: ScenarioRegistry["agents"][number]): string | null =>
  agent.activeDeploymentId ||
  [...agent.deployments].sort((a, b) => b.revision - a.revision)[0]?.deploymentId ||
  null;

export function tourOf(scenario: Scenario, example: StackExample): Tour {
  const reached = scenario.registry.agents.filter(
    (a) =>
      a.namespaceId === example.namespaceId &&
      scenario.registry.grants.some(
        (g) =>
          g.principalId === example.principal &&
          g.namespaceId === a.namespaceId &&
          (g.agentId === "*" || g.agentId === a.agentId),
      ),
  );
  const agents = reached.map((a) => ({ agentId: a.agentId, deploymentId: activeOf(a) }));
  const containers: Array<TourContainer & { running: boolean; restartCount: number; init: boolean }> = [];
  for (const { agentId, deploymentId } of agents) {
    if (!deploymentId) continue;
    for (const cluster of scenario.clusters) {
      for (const ns of cluster.namespaces) {
        for (const pod of ns.pods) {
          const l = pod.labels;
          const role = l["openclaw.dev/workload-role"];
          if (l["openclaw.dev/agent"] !== agentId || l["openclaw.dev/revision"] !== deploymentId) continue;
          if (role !== "gateway" && role !== "agent") continue;
          for (const c of pod.containers) {
            containers.push({
              agentId,
              deploymentId,
              role,
              cluster: cluster.id,
              namespace: ns.name,
              pod: pod.name,
              container: c.name,
              running: "running" in c.state,
              restartCount: c.restartCount,
              init: c.init,
            });
          }
        }
      }
    }
  }
  const strip = ({ running: _r, restartCount: _c, init: _i, ...rest }: (typeof containers)[number]) => rest;
  const restartable = containers.find(
    (c) => c.agentId === example.agentId && c.role === "gateway" && c.running && !c.init,
  );
  const exampleAgent = scenario.registry.agents.find(
    (a) => a.namespaceId === example.namespaceId && a.agentId === example.agentId,
  );
  const sandbox = exampleAgent?.deployments.find((d) => d.deploymentId === example.deploymentId)?.sandbox;
  return {
    agents,
    restartable: restartable ? strip(restartable) : null,
    restarted: containers.filter((c) => c.restartCount > 0 && !c.init).map(strip),
    sandbox: sandbox ? { gateway: sandbox.endpointRef, sandboxName: sandbox.sandboxName } : null,
  };
}
