/**
 * A Lambda-like invocation context: the fields the runtime provides, with the remaining time
 * counted down from the function's timeout (lib/service/routes.ts).
 */
import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";
import { FUNCTIONS, functionSpec } from "../../lib/service/routes.ts";
import { LOCAL_REGION } from "../../lib/state/dynamo.ts";
import { LOCAL_ACCOUNT_ID } from "./http-api-event.ts";

/** Timeouts of the deployed functions (lib/service/routes.ts, as the CDK stack sets them). */
export const FUNCTION_TIMEOUT_MS: Record<string, number> = Object.fromEntries(
  FUNCTIONS.map((f) => [f.name, f.timeoutSeconds * 1000]),
);

/** For a name the table does not know: an HTTP function's timeout. */
export const DEFAULT_TIMEOUT_MS = functionSpec("status").timeoutSeconds * 1000;

export interface ContextOptions {
  /** The short function name (`status`, `logs`, …). */
  fn: string;
  timeoutMs?: number;
  /** Milliseconds clock; injected by tests. */
  nowMs?: () => number;
  awsRequestId?: string;
}

export function createLambdaContext(opts: ContextOptions): Context {
  const nowMs = opts.nowMs ?? Date.now;
  const timeoutMs = opts.timeoutMs ?? FUNCTION_TIMEOUT_MS[opts.fn] ?? DEFAULT_TIMEOUT_MS;
  const deadline = nowMs() + timeoutMs;
  const functionName = `runtime-logs-${opts.fn}`;
  const awsRequestId = opts.awsRequestId ?? randomUUID();
  const day = new Date(nowMs()).toISOString().slice(0, 10).replace(/-/g, "/");
  const unsupported = () => {
    throw new Error("callback-style completion is not supported; return a promise");
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${awsRequestId.replace(/-/g, "")}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - nowMs()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
