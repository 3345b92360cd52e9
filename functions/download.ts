/** Lambda `download`: the same records as a page, as a `text/plain` attachment. */
import { loadConfig } from "../lib/config.ts";
import { createHttpHandler, httpRoute } from "../lib/http/handler.ts";
import { parseLogsRequest } from "../lib/http/requests.ts";
import { sourceResult } from "../lib/http/response.ts";
import { buildServiceDeps, createLogger } from "../lib/service/deps.ts";
import { ROUTES } from "../lib/service/routes.ts";
import { readLogs } from "../lib/usecases/logs.ts";

const config = loadConfig();
const logger = createLogger();
const route = httpRoute(parseLogsRequest("download"), readLogs, sourceResult);

export const handler = createHttpHandler({
  logger,
  deps: async () => buildServiceDeps(config, logger),
  route: (event) => (event.routeKey === ROUTES.download ? route : null),
  counters: (deps) => ({ dynamo: () => deps.dynamo.calls.total, cluster: () => deps.driver.clusterCalls }),
});
