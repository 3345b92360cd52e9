/** Scheduled health probe (docs/surfaces.md § Health probe). Dependencies are built once per container. */
import { loadConfig } from "../lib/config.ts";
import { buildProbeDeps } from "../lib/probe/deps.ts";
import { createProbeHandler } from "../lib/probe/handler.ts";
import { buildServiceDeps, createLogger } from "../lib/service/deps.ts";

const logger = createLogger();
// A bad configuration fails here, at cold start, naming the variable.
const deps = buildProbeDeps(buildServiceDeps(loadConfig(), logger));

export const handler = createProbeHandler({ logger, deps: async () => deps });
