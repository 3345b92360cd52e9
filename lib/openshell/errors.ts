/**
 * gRPC status codes → contract errors (the sandbox source's error table). OpenShell's status text
 * never reaches a client: the internal message names the gateway, the operation and the code only.
 */
import { ServiceError } from "../api/errors.ts";

/** gRPC status codes by number (the wire value of `grpc-status`). */
export const GRPC_CODES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

export type GrpcCodeName = (typeof GRPC_CODES)[number];

export const grpcCodeName = (code: number): GrpcCodeName | "UNKNOWN" => GRPC_CODES[code] ?? "UNKNOWN";

export interface GrpcErrorScope {
  gatewayId: string;
  operation: "GetSandboxLogs" | "Health";
  /** The request's deadline decides between TIMEOUT and UNAVAILABLE on a deadline code. */
  deadline: number;
  requestSignal: AbortSignal;
  now: () => number;
  /**
   * The call's own budget was the request's remaining time, so its expiry is the request's
   * deadline even when the timer fires a millisecond before the clock reads it.
   */
  requestBound?: boolean;
}

/**
 * The contract code for a failed call with gRPC code `code` (a number; CANCELLED is what our own
 * abort produces, so it is read like DEADLINE_EXCEEDED).
 */
export function grpcFailure(code: number, scope: GrpcErrorScope): ServiceError {
  const name = grpcCodeName(code);
  const internal = `openshell ${scope.gatewayId}: ${scope.operation}: ${name}`;
  switch (name) {
    case "NOT_FOUND":
      return new ServiceError("RUNTIME_LOGS_SANDBOX_NOT_FOUND", { internal });
    case "UNAUTHENTICATED":
    case "PERMISSION_DENIED":
      return new ServiceError("RUNTIME_LOGS_CLUSTER_RBAC", { internal });
    case "DEADLINE_EXCEEDED":
    case "CANCELLED": {
      const passed =
        scope.requestSignal.aborted || scope.requestBound === true || scope.now() >= scope.deadline;
      return new ServiceError(passed ? "RUNTIME_LOGS_TIMEOUT" : "RUNTIME_LOGS_UNAVAILABLE", { internal });
    }
    default:
      return new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal });
  }
}

/** A gateway or connection problem found before any call (missing item, bad document). */
export const gatewayUnavailable = (gatewayId: string, reason: string): ServiceError =>
  new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: `openshell ${gatewayId}: ${reason}` });
