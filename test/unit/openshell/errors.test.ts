import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GRPC_CODES, grpcFailure } from "../../../lib/openshell/errors.ts";

const DEADLINE = 1_000_000;
const scope = (now: number, extra: { aborted?: boolean; requestBound?: boolean } = {}) => {
  const controller = new AbortController();
  if (extra.aborted) controller.abort();
  return {
    gatewayId: "os1",
    operation: "GetSandboxLogs" as const,
    deadline: DEADLINE,
    requestSignal: controller.signal,
    now: () => now,
    requestBound: extra.requestBound === true,
  };
};

describe("grpcFailure", () => {
  it("reads a deadline code as the request's timeout only when the request's budget ran out", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 4), // CANCELLED, DEADLINE_EXCEEDED
        fc.integer({ min: -10_000, max: 10_000 }),
        fc.boolean(),
        fc.boolean(),
        (code, offset, aborted, requestBound) => {
          const error = grpcFailure(code, scope(DEADLINE + offset, { aborted, requestBound }));
          const passed = aborted || requestBound || offset >= 0;
          expect(error.code).toBe(passed ? "RUNTIME_LOGS_TIMEOUT" : "RUNTIME_LOGS_UNAVAILABLE");
        },
      ),
    );
  });

  it("maps every other code whatever the deadline", () => {
    for (const [code, name] of GRPC_CODES.entries()) {
      if (name === "OK" || name === "CANCELLED" || name === "DEADLINE_EXCEEDED") continue;
      const error = grpcFailure(code, scope(DEADLINE + 1, { requestBound: true }));
      const expected =
        name === "NOT_FOUND"
          ? "RUNTIME_LOGS_SANDBOX_NOT_FOUND"
          : name === "UNAUTHENTICATED" || name === "PERMISSION_DENIED"
            ? "RUNTIME_LOGS_CLUSTER_RBAC"
            : "RUNTIME_LOGS_UNAVAILABLE";
      expect([name, error.code]).toEqual([name, expected]);
    }
  });
});
