/** Lambda `status`: the runtime description, the deployments list and `/health`. */
import { loadConfig } from "../lib/config.ts";
import { createHttpHandler } from "../lib/http/handler.ts";
import { buildServiceDeps, createLogger } from "../lib/service/deps.ts";
import { ROUTES } from "../lib/service/routes.ts";
import { getRuntimeStatus, health, listDeployments } from "../lib/usecases/status.ts";
import { statusDeps } from "../lib/usecases/status-deps.ts";

const config = loadConfig();
const logger = createLogger();

export const handler = createHttpHandler({
  logger,
  deps: async () => statusDeps(buildServiceDeps(config, logger)),
  route: (event) =>
    ({
      [ROUTES.runtime]: getRuntimeStatus,
      [ROUTES.deployments]: listDeployments,
      [ROUTES.health]: health,
    })[event.routeKey] ?? null,
  counters: (deps) => ({ dynamo: () => deps.dynamo.calls.total, cluster: () => deps.driver.clusterCalls }),
});
