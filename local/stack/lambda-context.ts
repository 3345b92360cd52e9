/**
 * A Lambda-like invocation context: the fields the runtime provides, with the remaining time
 * counted down from the function's timeout (12 s for the HTTP functions, 60 s for the probe).
 */
import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";
import { LOCAL_REGION } from "../../lib/state/dynamo.ts";
import { LOCAL_ACCOUNT_ID } from "./http-api-event.ts";

/** Timeouts of the deployed functions (docs/surfaces.md § CDK stack). */
export const FUNCTION_TIMEOUT_MS: Record<string, number> = {
  status: 12_000,
  logs: 12_000,
  download: 12_000,
  health: 12_000,
  "health-probe": 60_000,
};

export const DEFAULT_TIMEOUT_MS = 12_000;

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
