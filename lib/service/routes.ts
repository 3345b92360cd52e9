/**
 * Route keys of the HTTP API (docs/api.md § Routes), shared by the functions, the CDK stack and the
 * local stack's API Gateway emulation.
 */
export const ROUTES = {
  health: "GET /health",
  deployments: "GET /namespaces/{namespaceId}/agents/{agentId}/deployments",
  runtime: "GET /namespaces/{namespaceId}/agents/{agentId}/deployments/{deploymentId}/runtime",
  logs: "GET /namespaces/{namespaceId}/agents/{agentId}/deployments/{deploymentId}/runtime/logs",
  download: "GET /namespaces/{namespaceId}/agents/{agentId}/deployments/{deploymentId}/runtime/logs/download",
} as const;
