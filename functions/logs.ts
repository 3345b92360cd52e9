/** Lambda `logs`: one page of one container's log (or, with `download=true`, the attachment). */
import { loadConfig } from "../lib/config.ts";
import { createHttpHandler, httpRoute } from "../lib/http/handler.ts";
import { parseLogsRequest } from "../lib/http/requests.ts";
import { sourceResult } from "../lib/http/response.ts";
import { readLogs } from "../lib/routes/logs.ts";
import type { ServiceDeps } from "../lib/service/deps.ts";
import { createLogger } from "../lib/service/logger.ts";
import { ROUTES } from "../lib/service/routes.ts";

const config = loadConfig();
const logger = createLogger();
const route = httpRoute(parseLogsRequest("logs"), readLogs, sourceResult);

export const handler = createHttpHandler({
  logger,
  // The AWS clients, stores and drivers load with the first request, not at cold start (P3).
  deps: async (): Promise<ServiceDeps> =>
    (await import("../lib/service/deps.ts")).buildServiceDeps(config, logger),
  route: (event) => (event.routeKey === ROUTES.logs ? route : null),
  counters: (deps) => ({ dynamo: () => deps.dynamo.calls.total, cluster: () => deps.driver.clusterCalls }),
});
