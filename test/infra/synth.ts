/**
 * Synthesizes the real app (infra/build-app.ts) with cdk.json's context (its switches and feature flags,
 * as `cdk synth` passes them) plus a given context, bundling skipped unless the context says
 * otherwise (`aws:cdk:bundling-stacks`), into a temporary directory; returns the template and
 * cdk-nag's validation report. One synth per configuration, shared by the tests of a file.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Template } from "aws-cdk-lib/assertions";
import { buildApp } from "../../infra/build-app.ts";
import type { RuntimeLogsStack } from "../../infra/runtime-logs-stack.ts";

export interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs: { constructPath: string }[];
}

export interface ValidationReport {
  pluginReports: { pluginName: string; conclusion: string; violations: Violation[] }[];
}

export interface Synthesized {
  template: Template;
  stack: RuntimeLogsStack;
  report: ValidationReport;
  /** The error synth threw (a failed validation), if any. */
  error: unknown;
  /** The cloud assembly's directory (assets under `asset.<hash>/` when bundling ran). */
  outdir: string;
}

/** cdk.json's `context`: what the CLI hands the app. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(new URL("../../cdk.json", import.meta.url), "utf8"),
).context;

export function synth(context: Record<string, unknown> = {}): Synthesized {
  const outdir = mkdtempSync(path.join(tmpdir(), "runtime-logs-synth-"));
  const { app, stack } = buildApp({
    outdir,
    // CloudFormation's own schema validation is slow to load; `npm run synth` runs it, cdk-nag runs here.
    builtinCloudFormationValidation: false,
    context: {
      ...CDK_JSON_CONTEXT,
      "aws:cdk:bundling-stacks": [],
      "aws:cdk:disable-stack-trace": true,
      ...context,
    },
  });
  let error: unknown;
  try {
    app.synth();
  } catch (e) {
    error = e;
  }
  const reportFile = path.join(outdir, "validation-report.json");
  const report: ValidationReport = existsSync(reportFile)
    ? JSON.parse(readFileSync(reportFile, "utf8"))
    : { pluginReports: [] };
  return { template: Template.fromStack(stack), stack, report, error, outdir };
}

/**
 * Every violation (error or warning) left unacknowledged, as `rule at path` lines. The stack's own
 * deliberate warnings (`runtime-logs:…` annotations, e.g. no alarm topic) are tested where they are
 * raised and left out here.
 */
export function unacknowledged(report: ValidationReport): string[] {
  return report.pluginReports.flatMap((plugin) =>
    plugin.violations
      .filter((v) => !(v.severity === "warning" && v.ruleName.startsWith("Annotation::runtime-logs:")))
      .flatMap((v) =>
        v.violatingConstructs.map(
          (c) => `${plugin.pluginName} ${v.severity} ${v.ruleName} at ${c.constructPath}`,
        ),
      ),
  );
}

/** Resources of one type as [logicalId, resource] pairs. */
export function resources(
  template: Template,
  type: string,
): [string, { Properties: Record<string, unknown> }][] {
  return Object.entries(template.findResources(type)) as [string, { Properties: Record<string, unknown> }][];
}
