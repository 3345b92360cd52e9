/**
 * The lease is given back before the answer, on the timeout path too: the 504 leaves only after
 * the release ran (or, if the release hangs, after the settle grace). Real handler and withLease,
 * a recording Limiter port, fake timers (no wall-clock sleeps).
 */
import { Logger } from "@aws-lambda-powertools/logger";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentRecord } from "../../../lib/domain.ts";
import { SETTLE_GRACE_MS } from "../../../lib/http/deadline.ts";
import { createHttpHandler, type RouteHandler } from "../../../lib/http/handler.ts";
import { successResult } from "../../../lib/http/response.ts";
import type { Lease, Limiter } from "../../../lib/limiter/limiter.ts";
import { withLease } from "../../../lib/routes/lease.ts";

const agent = { namespaceId: "acme", agentId: "support" } as AgentRecord;
const event = {
  routeKey: "GET /x",
  rawPath: "/x",
  headers: {},
  requestContext: {},
} as unknown as APIGatewayProxyEventV2;
const context = { awsRequestId: "a", getRemainingTimeInMillis: () => 12_000 } as unknown as Context;

function recordingLimiter(log: string[], releaseMs: number | null): Limiter {
  return {
    acquire: async () => ({ lease: { leaseId: "l1", principalKey: "p", agentKey: "a", expiresAt: 0 } }),
    release: (lease: Lease) => {
      log.push(`release-start ${lease.leaseId}`);
      if (releaseMs === null) return new Promise<void>(() => {});
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          log.push("release-done");
          resolve();
        }, releaseMs),
      );
    },
  };
}

function invoke(work: (signal: AbortSignal) => Promise<unknown>, limiter: Limiter, log: string[]) {
  const route: RouteHandler<{ limiter: Limiter }> = async (_e, scope, deps) =>
    withLease(deps, scope, { principalId: "alice", agent, cost: 1 }, async () => {
      await work(scope.deadline.signal);
      return successResult({}, scope.requestId);
    });
  const handler = createHttpHandler({
    logger: new Logger({ serviceName: "t", logLevel: "SILENT" }),
    deps: async () => ({ limiter }),
    route: () => route,
  });
  return handler(event, context).then((r) => {
    log.push(`answered ${r.statusCode}`);
    return r;
  });
}

const untilAborted = (signal: AbortSignal) =>
  new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 29, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("lease release on the timeout path", () => {
  it("answers 504 only after the release finished (work that listens to the deadline)", async () => {
    const log: string[] = [];
    const answer = invoke(untilAborted, recordingLimiter(log, 40), log);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(log).toEqual(["release-start l1"]);
    await vi.advanceTimersByTimeAsync(40);
    expect((await answer).statusCode).toBe(504);
    expect(log).toEqual(["release-start l1", "release-done", "answered 504"]);
  });

  it("starts the release at the deadline even when the work ignores the signal", async () => {
    const log: string[] = [];
    const answer = invoke(() => new Promise(() => {}), recordingLimiter(log, 25), log);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(log).toEqual(["release-start l1"]);
    await vi.advanceTimersByTimeAsync(25);
    await answer;
    expect(log).toEqual(["release-start l1", "release-done", "answered 504"]);
  });

  it("answers after the settle grace when the release hangs, within the response reserve", async () => {
    const log: string[] = [];
    const answer = invoke(untilAborted, recordingLimiter(log, null), log);
    await vi.advanceTimersByTimeAsync(10_000 + SETTLE_GRACE_MS - 1);
    expect(log).toEqual(["release-start l1"]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await answer).statusCode).toBe(504);
    expect(SETTLE_GRACE_MS).toBeLessThan(500);
  });

  it("releases before a successful answer too", async () => {
    const log: string[] = [];
    const answer = invoke(async () => undefined, recordingLimiter(log, 5), log);
    await vi.advanceTimersByTimeAsync(5);
    expect((await answer).statusCode).toBe(200);
    expect(log).toEqual(["release-start l1", "release-done", "answered 200"]);
  });
});
