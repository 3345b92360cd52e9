/**
 * Lambda `health`: the public `/health`. It reads one variable and nothing else (no secret, no
 * table, no cluster), so its role holds no grants and its bundle stays small.
 */
import { ENV } from "../lib/env.ts";
import { createHttpHandler, httpRoute } from "../lib/http/handler.ts";
import { successResult } from "../lib/http/response.ts";
import { health } from "../lib/routes/status.ts";
import { createLogger } from "../lib/service/logger.ts";
import { ROUTES } from "../lib/service/routes.ts";

/** `RUNTIME_LOGS_ENABLED` as lib/config.ts reads it (default true); a bad value fails the cold start. */
function enabledFlag(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "true") return true;
  if (value === "false") return false;
  throw new Error(`Invalid configuration: ${ENV.enabled}: must be true or false`);
}

const deps = { config: { enabled: enabledFlag(process.env[ENV.enabled]) } };
const logger = createLogger();
const route = httpRoute(() => ({}), health, successResult);

export const handler = createHttpHandler({
  logger,
  deps: async () => deps,
  route: (event) => (event.routeKey === ROUTES.health ? route : null),
});
