/**
 * The health probe's Lambda handler: a middy function that runs the probe within the invocation's
 * time budget, logs the report as one JSON line, writes one EMF metrics line to stdout and returns
 * the report.
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { DEFAULT_BUDGET_MS, type ProbeDeps, runHealthProbe } from "./probe.ts";
import { emfLine, type ProbeReport } from "./report.ts";

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
  /** Where the EMF line goes (stdout in Lambda: the runtime does not prefix raw writes). */
  writeMetrics?: (line: string) => void;
  now?: () => number;
}

export function createProbeHandler(options: ProbeHandlerOptions) {
  const write = options.writeMetrics ?? ((line: string) => process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  let deps: Promise<ProbeDeps> | undefined;
  return middy<unknown, ProbeReport, Error, Context>().handler(async (_event, context) => {
    deps ??= options.deps().catch((e: unknown) => {
      deps = undefined;
      throw e;
    });
    const report = await runHealthProbe(await deps, {
      budgetMs: probeBudget(context?.getRemainingTimeInMillis?.()),
    });
    options.logger.info("health probe report", { report });
    write(emfLine(report, now()));
    return report;
  });
}
