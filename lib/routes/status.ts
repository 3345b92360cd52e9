/**
 * The status routes: the runtime description, the deployments list, and `/health` (its own function).
 */

import type { AgentPath, DeploymentPath } from "../api/schemas.ts";
import type { DeploymentRecord } from "../domain.ts";
import type { RuntimeDescription, RuntimeObservation } from "../kube/types.ts";
import type { RestartRecord } from "../restarts/index.ts";
import type { ServiceDeps } from "../service/deps.ts";
import { authorizeAgent, requireFeatureEnabled, resolveDeployment } from "./access.ts";
import { withLease } from "./lease.ts";
import type { RequestScope } from "./scope.ts";

/** The deployments list's input, as the HTTP adapter parsed it. */
export interface AgentRequest {
  principalId: string;
  path: AgentPath;
}

/** The runtime description's input, as the HTTP adapter parsed it. */
export interface DeploymentRequest {
  principalId: string;
  path: DeploymentPath;
}

/**
 * Restart records for the description (docs/restarts.md): records what one observation shows and
 * returns the 20 newest. Best-effort: it never fails a status read.
 */
export type RestartsProvider = (input: {
  deployment: DeploymentRecord;
  runtime: RuntimeObservation;
  scope: RequestScope;
}) => Promise<RestartRecord[]>;

export type StatusDeps = ServiceDeps & { restarts?: RestartsProvider };

/** The runtime route's data: the description and the newest restart records. */
export type RuntimeStatus = RuntimeDescription & { restarts: RestartRecord[] };

export async function getRuntimeStatus(
  request: DeploymentRequest,
  scope: RequestScope,
  deps: StatusDeps,
): Promise<RuntimeStatus> {
  const agent = await admitStatusRead(request, scope, deps, "status");
  const deployment = await resolveDeployment(deps.registry, agent, request.path.deploymentId);
  return withLease(deps, scope, { principalId: request.principalId, agent, cost: 1 }, async () => {
    const runtime = await deps.driver.observeRuntime(deployment, {
      events: true,
      signal: scope.deadline.signal,
      deadline: scope.deadline.at,
    });
    let restarts: RestartRecord[] = [];
    if (deps.restarts) {
      try {
        restarts = await deps.restarts({ deployment, runtime, scope });
      } catch (error) {
        deps.logger.warn("restart records unavailable", { requestId: scope.requestId, error: String(error) });
      }
    }
    return { ...runtime.description, restarts };
  });
}

export async function listDeployments(
  request: AgentRequest,
  scope: RequestScope,
  deps: ServiceDeps,
): Promise<unknown> {
  const agent = await admitStatusRead(request, scope, deps, "deployments");
  const deployments = await deps.registry.listDeployments(agent.namespaceId, agent.agentId);
  return deployments.map((d) => ({
    deploymentId: d.deploymentId,
    revision: d.revision,
    createdAt: d.createdAt,
    active: d.deploymentId === agent.activeDeploymentId,
  }));
}

/** Steps 2–3 of the order of checks for the status function's routes. */
async function admitStatusRead(
  request: AgentRequest | DeploymentRequest,
  scope: RequestScope,
  deps: ServiceDeps,
  route: "status" | "deployments",
) {
  requireFeatureEnabled(deps.config.enabled);
  const { agent } = await authorizeAgent(deps, {
    route,
    principalId: request.principalId,
    namespaceId: request.path.namespaceId,
    agentId: request.path.agentId,
    ...("deploymentId" in request.path ? { deploymentId: request.path.deploymentId } : {}),
    requestId: scope.requestId,
  });
  return agent;
}

/** Configuration sanity only; never cluster or registry data, no authorization. */
export async function health(
  _request: object,
  scope: RequestScope,
  deps: { config: Pick<ServiceDeps["config"], "enabled"> },
): Promise<unknown> {
  return {
    status: "ok",
    runtimeLogsEnabled: deps.config.enabled,
    observedAt: new Date(scope.now()).toISOString(),
  };
}
