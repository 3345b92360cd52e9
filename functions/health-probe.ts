/** Scheduled health probe (docs/surfaces.md § Health probe). Dependencies are built once per container. */
import { loadConfig } from "../lib/config.ts";
import { createProbeHandler } from "../lib/probe/handler.ts";
import { createLogger } from "../lib/service/logger.ts";

// A bad configuration fails here, at cold start, naming the variable.
const config = loadConfig();
const logger = createLogger();

export const handler = createProbeHandler({
  logger,
  // The AWS clients, stores and drivers load with the first invocation, not at cold start (P3).
  deps: async () => {
    const [{ buildServiceDeps }, { buildProbeDeps }] = await Promise.all([
      import("../lib/service/deps.ts"),
      import("../lib/probe/deps.ts"),
    ]);
    return buildProbeDeps(buildServiceDeps(config, logger));
  },
});
