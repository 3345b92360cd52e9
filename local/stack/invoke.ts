/**
 * `npm run invoke` as a function: run one handler with one event, as the Lambda console would,
 * against the running local stack (found through its stack file, whose pid must be alive) or, when
 * there is none, against a temporary stack started for this invocation.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LOCAL_TABLE_NAMES } from "./dynamo.ts";
import { buildLambdaEnvironment } from "./environment.ts";
import { createHandlerLoader, type FunctionName, invokeHandler } from "./handlers.ts";
import { DEFAULT_LOCAL_DIR, lambdaEnvFileFor, REPO_ROOT, startLocalStack } from "./index.ts";
import { keyFilesIn } from "./keys.ts";
import { findRunningStack, type StackInfo } from "./stack-file.ts";

export interface InvokeRequest {
  fn: FunctionName;
  event: unknown;
  /** The running stack's file; default `.local/stack.json`. */
  stackFile?: string;
  /** Scenario of a temporary stack (default: the demo scenario). */
  scenario?: string;
}

export interface InvokeOutcome {
  /** What the handler returned. */
  result: unknown;
  stack: "running" | "temporary";
  apiUrl: string;
}

/** The environment the running stack set for its functions (or the same, rebuilt from its files). */
function runningEnvironment(stackFile: string, info: StackInfo): Record<string, string> {
  try {
    const saved = JSON.parse(readFileSync(lambdaEnvFileFor(stackFile), "utf8")) as {
      pid?: unknown;
      environment?: Record<string, string>;
    };
    if (saved.pid === info.pid && saved.environment) return saved.environment;
  } catch {
    // Fall through: rebuild it from the stack file.
  }
  return buildLambdaEnvironment({
    dynamodbEndpoint: info.dynamodbEndpoint,
    tables: LOCAL_TABLE_NAMES,
    keys: keyFilesIn(join(dirname(stackFile), "keys")),
  });
}

export async function invokeAgainstLocalStack(req: InvokeRequest): Promise<InvokeOutcome> {
  const stackFile = req.stackFile ?? join(DEFAULT_LOCAL_DIR, "stack.json");
  const running = findRunningStack(stackFile);
  const temporary = running
    ? null
    : await startLocalStack({ quiet: true, port: 0, ...(req.scenario ? { scenario: req.scenario } : {}) });
  try {
    const environment = running ? runningEnvironment(stackFile, running) : temporary?.environment;
    const handler = await createHandlerLoader(join(REPO_ROOT, "functions"), environment).load(req.fn);
    const result = await invokeHandler(handler, req.fn, req.event);
    return {
      result,
      stack: running ? "running" : "temporary",
      apiUrl: running?.apiUrl ?? (temporary?.apiUrl as string),
    };
  } finally {
    await temporary?.close();
  }
}
