import { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../lib/api/errors.ts";
import { createHttpHandler, type RouteHandler } from "../../../lib/http/handler.ts";
import { successResult } from "../../../lib/http/response.ts";

const event = (routeKey: string, headers: Record<string, string> = {}) =>
  ({ routeKey, rawPath: "/x", headers, requestContext: {} }) as unknown as APIGatewayProxyEventV2;

function context(remainingMs = 12_000): Context {
  return { awsRequestId: "aws-1", getRemainingTimeInMillis: () => remainingMs } as unknown as Context;
}

function capturingLogger() {
  const lines: string[] = [];
  const logger = new Logger({ serviceName: "test", logLevel: "INFO" });
  // Capture what the logger would print, to assert on it.
  (logger as unknown as { printLog: (level: number, log: { getAttributes(): unknown }) => void }).printLog = (
    _level,
    log,
  ) => {
    lines.push(JSON.stringify(log.getAttributes()));
  };
  return { logger, lines };
}

function handlerFor(route: RouteHandler<object>, remaining?: number) {
  const { logger, lines } = capturingLogger();
  const handler = createHttpHandler<object>({ logger, deps: async () => ({}), route: () => route });
  return { invoke: (e = event("GET /x")) => handler(e, context(remaining)), lines };
}

const contractHeaders = (headers: Record<string, string>) => {
  expect(headers["cache-control"]).toBe("no-store");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-request-id"]).toMatch(/^req_[0-9a-f-]{36}$/);
};

describe("HTTP adapter", () => {
  it("wraps data in the success envelope with a server-generated request ID", async () => {
    const { invoke } = handlerFor(async (_e, scope) => successResult({ ok: 1 }, scope.requestId));
    const result = await invoke(event("GET /x", { "x-request-id": "req_client" }));
    contractHeaders(result.headers);
    expect(result.headers["x-request-id"]).not.toBe("req_client");
    const body = JSON.parse(result.body as string);
    expect(body).toEqual({ data: { ok: 1 }, meta: { requestId: result.headers["x-request-id"] } });
  });

  it("answers a ServiceError with its fixed message, details and Retry-After, never its internal text", async () => {
    const { invoke } = handlerFor(async () => {
      throw new ServiceError("RUNTIME_LOGS_RATE_LIMITED", {
        retryAfterSeconds: 3,
        internal: "bucket pa#alice secret",
      });
    });
    const result = await invoke();
    expect(result.statusCode).toBe(429);
    expect(result.headers["retry-after"]).toBe("3");
    contractHeaders(result.headers);
    expect(result.body).not.toContain("secret");
    expect(JSON.parse(result.body as string).error).toEqual({
      code: "RUNTIME_LOGS_RATE_LIMITED",
      message: expect.stringMatching(/Retry/),
    });
  });

  it("builds the dependencies once, with the first request, and again after a build that failed", async () => {
    const { logger } = capturingLogger();
    let builds = 0;
    const handler = createHttpHandler<{ n: number }>({
      logger,
      deps: async () => {
        builds++;
        if (builds === 1) throw new Error("cold start failed");
        return { n: builds };
      },
      route: () => async (_e, scope, deps) => successResult({ n: deps.n }, scope.requestId),
    });
    expect((await handler(event("GET /x"), context())).statusCode).toBe(500);
    for (let i = 0; i < 3; i++) {
      const result = await handler(event("GET /x"), context());
      expect(JSON.parse(result.body as string).data).toEqual({ n: 2 });
    }
    expect(builds).toBe(2);
  });

  it("turns an unexpected failure into a generic 500 that leaks nothing", async () => {
    const { invoke, lines } = handlerFor(async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'token sk-live-123')");
    });
    const result = await invoke();
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toMatch(/TypeError|sk-live|at /);
    expect(lines.some((l) => l.includes('"status":500'))).toBe(true);
  });

  it("answers 504 when the request deadline passes, bounded by the Lambda's remaining time", async () => {
    const { invoke } = handlerFor(() => new Promise(() => {}), 600);
    const result = await invoke();
    expect(result.statusCode).toBe(504);
    expect(JSON.parse(result.body as string).error.code).toBe("RUNTIME_LOGS_TIMEOUT");
  });

  it("writes one summary line per request with route, principal, status and code", async () => {
    const { invoke, lines } = handlerFor(async (_e, scope) => {
      scope.principalId = "alice";
      throw new ServiceError("FORBIDDEN");
    });
    await invoke(event("GET /y"));
    const summary = lines.map((l) => JSON.parse(l)).find((l) => l.route === "GET /y");
    expect(summary).toMatchObject({ principalId: "alice", status: 403, code: "FORBIDDEN" });
    expect(summary.requestId).toMatch(/^req_/);
  });
});
