/**
 * The functions' log lines: Powertools fields that vary per line (cold start, function name, Lambda
 * request ID, trace ID) are there; fields constant within a log group are not.
 */
import type { Context } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../../lib/service/logger.ts";

const context = {
  functionName: "runtime-logs-status",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:runtime-logs-status",
  memoryLimitInMB: "512",
  awsRequestId: "c0ffee00-0000-4000-8000-000000000001",
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function captured(run: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  run();
  vi.restoreAllMocks();
  return lines
    .flatMap((l) => l.split("\n"))
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
}

describe("function logger", () => {
  it("carries cold start, function name, request and trace IDs, and no constant fields", () => {
    vi.stubEnv(
      "_X_AMZN_TRACE_ID",
      "Root=1-6b0c13c0-7e4ddb060a1781afff2b7f9a;Parent=53995c3f42cd8ad8;Sampled=1",
    );
    const logger = createLogger();
    const [line] = captured(() => {
      logger.addContext(context);
      logger.info("request", { status: 200 });
    });
    expect(line).toMatchObject({
      level: "INFO",
      message: "request",
      cold_start: expect.any(Boolean),
      function_name: "runtime-logs-status",
      function_request_id: "c0ffee00-0000-4000-8000-000000000001",
      xray_trace_id: "1-6b0c13c0-7e4ddb060a1781afff2b7f9a",
      status: 200,
    });
    expect(typeof line?.timestamp).toBe("string");
    for (const noise of ["sampling_rate", "function_arn", "function_memory_size", "service"]) {
      expect(line).not.toHaveProperty(noise);
    }
  });
});
