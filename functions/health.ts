/**
 * Lambda `health`: the public `/health`. It reads one variable and nothing else (no secret, no
 * table, no cluster), so its role holds no grants and its bundle stays small.
 */
import { readEnabled } from "../lib/env.ts";
import { createHttpHandler, httpRoute } from "../lib/http/handler.ts";
import { successResult } from "../lib/http/response.ts";
import { health } from "../lib/routes/status.ts";
import { createLogger } from "../lib/service/logger.ts";
import { ROUTES } from "../lib/service/routes.ts";

// The switch as lib/config.ts reads it, through the same zod-free reader.
const deps = { config: { enabled: readEnabled(process.env) } };
const logger = createLogger();
const route = httpRoute(() => ({}), health, successResult);

export const handler = createHttpHandler({
  logger,
  deps: async () => deps,
  route: (event) => (event.routeKey === ROUTES.health ? route : null),
});
