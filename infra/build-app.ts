/**
 * Builds the CDK app: the stack from context settings, cdk-nag's AWS Solutions checks, and the
 * acknowledged findings. `infra/app.ts` synthesizes it; the synth tests build it with their own
 * context.
 */
import { App, type AppProps, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import type { FunctionName } from "./functions.ts";
import { acknowledgeFindings } from "./nag.ts";
import { RuntimeLogsStack } from "./runtime-logs-stack.ts";
import { readSettings } from "./settings.ts";

export const STACK_NAME = "RuntimeLogs";

export interface BuildAppOptions extends AppProps {
  /** Entry files per function (tests only). */
  entries?: Partial<Record<FunctionName, string>>;
}

export function buildApp(options: BuildAppOptions = {}): { app: App; stack: RuntimeLogsStack } {
  const { entries, ...appProps } = options;
  const app = new App(appProps);
  const stack = new RuntimeLogsStack(app, STACK_NAME, {
    settings: readSettings(app.node),
    ...(entries ? { entries } : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  acknowledgeFindings(stack);
  return { app, stack };
}
