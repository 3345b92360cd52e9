/**
 * The status function's routes: the runtime description, the deployments list and `/health`.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { z } from "zod";
import {
  type AgentPath,
  agentPathSchema,
  deploymentPathSchema,
  parsePath,
  requireNoQuery,
} from "../api/schemas.ts";
import { type AuthorizerEvent, requirePrincipal } from "../auth/principal.ts";
import type { DeploymentRecord } from "../domain.ts";
import type { RequestScope } from "../http/handler.ts";
import { type HttpResult, successResult } from "../http/response.ts";
import type { RuntimeObservation } from "../kube/types.ts";
import type { ServiceDeps } from "../service/deps.ts";
import { authorizeAgent, requireFeatureEnabled, resolveDeployment } from "./access.ts";
import { withLease } from "./lease.ts";

/**
 * Restart records for the description (restarts.md): records what one observation shows and
 * returns the 20 newest. Best-effort: it never fails a status read.
 */
export type RestartsProvider = (input: {
  deployment: DeploymentRecord;
  runtime: RuntimeObservation;
  scope: RequestScope;
}) => Promise<unknown[]>;

export type StatusDeps = ServiceDeps & { restarts?: RestartsProvider };

export async function getRuntimeStatus(
  event: APIGatewayProxyEventV2,
  scope: RequestScope,
  deps: StatusDeps,
): Promise<HttpResult> {
  const { principal, path, agent } = await admitStatusRead(
    event,
    scope,
    deps,
    deploymentPathSchema,
    "status",
  );
  const deployment = await resolveDeployment(deps.registry, agent, path.deploymentId);
  return withLease(deps, scope, { principalId: principal.id, agent, cost: 1 }, async () => {
    const runtime = await deps.driver.observeRuntime(deployment, {
      events: true,
      signal: scope.deadline.signal,
      deadline: scope.deadline.at,
    });
    let restarts: unknown[] = [];
    if (deps.restarts) {
      try {
        restarts = await deps.restarts({ deployment, runtime, scope });
      } catch (error) {
        deps.logger.warn("restart records unavailable", { requestId: scope.requestId, error: String(error) });
      }
    }
    return successResult({ ...runtime.description, restarts }, scope.requestId);
  });
}

export async function listDeployments(
  event: APIGatewayProxyEventV2,
  scope: RequestScope,
  deps: ServiceDeps,
): Promise<HttpResult> {
  const { agent } = await admitStatusRead(event, scope, deps, agentPathSchema, "deployments");
  const deployments = await deps.registry.listDeployments(agent.namespaceId, agent.agentId);
  return successResult(
    deployments.map((d) => ({
      deploymentId: d.deploymentId,
      revision: d.revision,
      createdAt: d.createdAt,
      active: d.deploymentId === agent.activeDeploymentId,
    })),
    scope.requestId,
  );
}

/** Steps 1–3 of the order of checks for the status function's routes, which take no query. */
async function admitStatusRead<P extends AgentPath>(
  event: APIGatewayProxyEventV2,
  scope: RequestScope,
  deps: ServiceDeps,
  pathSchema: z.ZodType<P>,
  route: "status" | "deployments",
) {
  const principal = requirePrincipal(event as AuthorizerEvent);
  scope.principalId = principal.id;
  const path = parsePath(pathSchema, event.pathParameters);
  requireNoQuery(event.queryStringParameters);
  requireFeatureEnabled(deps.config.enabled);
  const { agent } = await authorizeAgent(deps, {
    route,
    principalId: principal.id,
    namespaceId: path.namespaceId,
    agentId: path.agentId,
    ...("deploymentId" in path ? { deploymentId: path.deploymentId as string } : {}),
    requestId: scope.requestId,
  });
  return { principal, path, agent };
}

/** Configuration sanity only; never cluster or registry data, no authorization. */
export async function health(
  _event: APIGatewayProxyEventV2,
  scope: RequestScope,
  deps: ServiceDeps,
): Promise<HttpResult> {
  return successResult(
    {
      status: "ok",
      runtimeLogsEnabled: deps.config.enabled,
      observedAt: new Date(scope.now()).toISOString(),
    },
    scope.requestId,
  );
}
