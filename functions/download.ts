/** Lambda `download`: the same records as a page, as a `text/plain` attachment. */
import { loadConfig } from "../lib/config.ts";
import { createHttpHandler } from "../lib/http/handler.ts";
import { buildServiceDeps, createLogger } from "../lib/service/deps.ts";
import { ROUTES } from "../lib/service/routes.ts";
import { downloadLogs } from "../lib/usecases/logs.ts";

const config = loadConfig();
const logger = createLogger();

export const handler = createHttpHandler({
  logger,
  deps: async () => buildServiceDeps(config, logger),
  route: (event) => (event.routeKey === ROUTES.download ? downloadLogs : null),
  counters: (deps) => ({ dynamo: () => deps.dynamo.calls.total, cluster: () => deps.driver.clusterCalls }),
});
