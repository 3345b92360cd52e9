/**
 * Step 1 of the order of checks (docs/api.md), in the HTTP adapter: the API Gateway event becomes the
 * typed input of a use case — the principal (401 without one), then the path and query against the
 * contract (400). Use cases never see the event.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import {
  agentPathSchema,
  deploymentPathSchema,
  parseLogQuery,
  parsePath,
  requireNoQuery,
} from "../api/schemas.ts";
import { type AuthorizerEvent, requirePrincipal } from "../auth/principal.ts";
import type { LogsRequest } from "../routes/logs.ts";
import type { AgentRequest, DeploymentRequest } from "../routes/status.ts";

const principalOf = (event: APIGatewayProxyEventV2) => requirePrincipal(event as AuthorizerEvent).id;

/** `GET …/runtime/logs` (`route: "logs"`) or `GET …/runtime/logs/download` (`route: "download"`). */
export const parseLogsRequest =
  (route: "logs" | "download") =>
  (event: APIGatewayProxyEventV2, now: number): LogsRequest => {
    const principalId = principalOf(event);
    const path = parsePath(deploymentPathSchema, event.pathParameters);
    return { principalId, path, query: parseLogQuery(event.queryStringParameters, route, now) };
  };

/** `GET …/deployments/{deploymentId}/runtime`: no query at all. */
export function parseRuntimeRequest(event: APIGatewayProxyEventV2): DeploymentRequest {
  const principalId = principalOf(event);
  const path = parsePath(deploymentPathSchema, event.pathParameters);
  requireNoQuery(event.queryStringParameters);
  return { principalId, path };
}

/** `GET …/agents/{agentId}/deployments`: no query at all. */
export function parseDeploymentsRequest(event: APIGatewayProxyEventV2): AgentRequest {
  const principalId = principalOf(event);
  const path = parsePath(agentPathSchema, event.pathParameters);
  requireNoQuery(event.queryStringParameters);
  return { principalId, path };
}
