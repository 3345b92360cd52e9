/**
 * The health probe's Lambda handler: a middy function that runs the probe within the invocation's
 * time budget, logs the report as one JSON line, publishes its figures as Powertools metrics (one
 * EMF line on stdout) and returns the report.
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { DEFAULT_BUDGET_MS, type ProbeDeps, runHealthProbe } from "./probe.ts";
import { createProbeMetrics, type ProbeReport, recordProbeMetrics } from "./report.ts";

/** Time kept back from the function timeout for logging and returning. */
export const RESERVE_MS = 10_000;

/** The budget: 50 s by default, less when the invocation has less than 60 s left. */
export function probeBudget(remainingMs: number | undefined): number {
  if (remainingMs === undefined || !Number.isFinite(remainingMs)) return DEFAULT_BUDGET_MS;
  return Math.max(1_000, Math.min(DEFAULT_BUDGET_MS, remainingMs - RESERVE_MS));
}

export interface ProbeHandlerOptions {
  deps: () => Promise<ProbeDeps>;
  logger: Logger;
  /** Default: createProbeMetrics() (namespace RuntimeLogs, dimension Function=health-probe). */
  metrics?: Metrics;
}

export function createProbeHandler(options: ProbeHandlerOptions) {
  const metrics = options.metrics ?? createProbeMetrics();
  let deps: Promise<ProbeDeps> | undefined;
  return middy<unknown, ProbeReport, Error, Context>()
    .use(injectLambdaContext(options.logger))
    .use(logMetrics(metrics))
    .handler(async (_event, context) => {
      deps ??= options.deps().catch((e: unknown) => {
        deps = undefined;
        throw e;
      });
      const report = await runHealthProbe(await deps, {
        budgetMs: probeBudget(context?.getRemainingTimeInMillis?.()),
      });
      options.logger.info("health probe report", { report });
      recordProbeMetrics(metrics, report);
      return report;
    });
}
