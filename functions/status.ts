/** Lambda `status`: the runtime description and the deployments list (`/health` has its own function). */
import { loadConfig } from "../lib/config.ts";
import { createHttpHandler, httpRoute, type RouteHandler } from "../lib/http/handler.ts";
import { parseDeploymentsRequest, parseRuntimeRequest } from "../lib/http/requests.ts";
import { successResult } from "../lib/http/response.ts";
import { getRuntimeStatus, listDeployments, type StatusDeps } from "../lib/routes/status.ts";
import { createLogger } from "../lib/service/logger.ts";
import { ROUTES } from "../lib/service/routes.ts";

const config = loadConfig();
const logger = createLogger();
const routes: Record<string, RouteHandler<StatusDeps>> = {
  [ROUTES.runtime]: httpRoute(parseRuntimeRequest, getRuntimeStatus, successResult),
  [ROUTES.deployments]: httpRoute(parseDeploymentsRequest, listDeployments, successResult),
};

export const handler = createHttpHandler({
  logger,
  // The AWS clients, stores and drivers load with the first request, not at cold start (P3).
  deps: async (): Promise<StatusDeps> => {
    const [{ buildServiceDeps }, { statusDeps }] = await Promise.all([
      import("../lib/service/deps.ts"),
      import("../lib/routes/status-deps.ts"),
    ]);
    return statusDeps(buildServiceDeps(config, logger));
  },
  route: (event) => routes[event.routeKey] ?? null,
  counters: (deps) => ({ dynamo: () => deps.dynamo.calls.total, cluster: () => deps.driver.clusterCalls }),
});
