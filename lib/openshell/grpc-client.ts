/**
 * The gRPC edge, loaded lazily by the driver (`await import`), so container-source requests and
 * /health never evaluate it. Built on Connect for Node (`@connectrpc/connect-node`, HTTP/2, the
 * gRPC protocol) with message types generated from our own `.proto` by protoc-gen-es.
 */
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { OpenShellConnection } from "./connection.ts";
import { OpenShell, ServiceStatus } from "./gen/openshell_pb.ts";
import type { SandboxLogLine } from "./types.ts";

/** Largest response we accept (gRPC's customary default; a full 2000-line ring fits easily). */
export const RECEIVE_LIMIT_BYTES = 4 * 1024 * 1024;

export interface CallSettings {
  /** The request's signal: aborting it cancels the call. */
  signal: AbortSignal;
  /** This call's own budget (≤ 5 s, and never past the request's deadline); sent as `grpc-timeout`. */
  timeoutMs: number;
}

export interface OpenShellClient {
  getSandboxLogs(
    request: { sandboxId: string; lines: number; sinceMs: number },
    call: CallSettings,
  ): Promise<{ lines: SandboxLogLine[]; bufferTotal: number }>;
  health(call: CallSettings): Promise<{ status: string; version: string }>;
}

const STATUS_NAMES: Record<number, string> = {
  [ServiceStatus.UNSPECIFIED]: "unspecified",
  [ServiceStatus.HEALTHY]: "healthy",
  [ServiceStatus.DEGRADED]: "degraded",
  [ServiceStatus.UNHEALTHY]: "unhealthy",
};

/** Epoch ms as a number; values a double cannot hold exactly become -1 (untimed). */
function millis(v: bigint): number {
  return v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(v);
}

export function openClient(connection: OpenShellConnection): OpenShellClient {
  const interceptors: Interceptor[] = [];
  const token = connection.token;
  if (token !== undefined) {
    interceptors.push((next) => (req) => {
      req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    });
  }
  const tls = connection.baseUrl.startsWith("https:");
  const transport = createGrpcTransport({
    baseUrl: connection.baseUrl,
    readMaxBytes: RECEIVE_LIMIT_BYTES,
    interceptors,
    idleConnectionTimeoutMs: 60_000,
    nodeOptions: tls
      ? {
          ...(connection.caPem !== undefined ? { ca: connection.caPem } : {}),
          ...(connection.clientCertPem !== undefined ? { cert: connection.clientCertPem } : {}),
          ...(connection.clientKeyPem !== undefined ? { key: connection.clientKeyPem } : {}),
        }
      : {},
  });
  const client = createClient(OpenShell, transport);
  return {
    async getSandboxLogs(request, call) {
      const out = await client.getSandboxLogs(
        { sandboxId: request.sandboxId, lines: request.lines, sinceMs: BigInt(request.sinceMs) },
        { signal: call.signal, timeoutMs: call.timeoutMs },
      );
      const lines = out.logs.map(
        (l): SandboxLogLine => ({
          sandboxId: l.sandboxId,
          timestampMs: millis(l.timestampMs),
          level: l.level,
          target: l.target,
          message: l.message,
          origin: l.source === "sandbox" ? "sandbox" : "gateway",
          fields: l.fields,
        }),
      );
      return { lines, bufferTotal: out.bufferTotal };
    },
    async health(call) {
      const out = await client.health({}, { signal: call.signal, timeoutMs: call.timeoutMs });
      return { status: STATUS_NAMES[out.status] ?? `status_${out.status}`, version: out.version };
    },
  };
}

/** The gRPC status code of a failed call (Connect's codes are gRPC's numbers); null if not a call error. */
export function grpcCodeOf(error: unknown): number | null {
  if (error instanceof ConnectError) return error.code;
  return null;
}

export { Code };
