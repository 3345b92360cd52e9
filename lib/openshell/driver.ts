/**
 * SandboxDriver: reads a deployment's sandbox log ring from its OpenShell gateway, and checks a
 * gateway's health for the probe. The deployment's `sandbox.endpointRef` names the gateway; its
 * Registry item gives the connection reference, resolved by the ConnectionStore. One gRPC client
 * per gateway per container; every call gets 5 s, never past the request's deadline; no retries.
 * The gRPC module is imported on first use only.
 */
import type { SandboxRef } from "../domain.ts";
import type { ConnectionStore, OpenShellConnection } from "./connection.ts";
import { gatewayUnavailable, grpcFailure } from "./errors.ts";
import type { OpenShellClient } from "./grpc-client.ts";
import type { GatewayHealth, SandboxCallOptions, SandboxChunk, SandboxReadOptions } from "./types.ts";

export const SANDBOX_CALL_TIMEOUT_MS = 5_000;
/** OpenShell's ring capacity and the most lines one read asks for. */
export const SANDBOX_MAX_LINES = 2_000;

export interface SandboxDriver {
  readLogs(sandbox: SandboxRef, options: SandboxReadOptions): Promise<SandboxChunk>;
  health(gatewayId: string, options: SandboxCallOptions): Promise<GatewayHealth>;
}

export type GatewayLookup = (gatewayId: string) => Promise<{ connectionRef: string } | undefined>;

export interface SandboxDriverOptions {
  connections: ConnectionStore;
  getGateway: GatewayLookup;
  now?: () => number;
  /** Per-call timeout (default 5 s); tests shorten it. */
  callTimeoutMs?: number;
}

type GrpcModule = typeof import("./grpc-client.ts");
let grpcModule: Promise<GrpcModule> | undefined;
const loadGrpc = (): Promise<GrpcModule> => {
  grpcModule ??= import("./grpc-client.ts");
  return grpcModule;
};

class OpenShellSandboxDriver implements SandboxDriver {
  readonly #clients = new Map<string, { fingerprint: string; client: OpenShellClient }>();
  readonly #now: () => number;
  readonly #callTimeoutMs: number;

  constructor(private readonly options: SandboxDriverOptions) {
    this.#now = options.now ?? Date.now;
    this.#callTimeoutMs = options.callTimeoutMs ?? SANDBOX_CALL_TIMEOUT_MS;
  }

  async readLogs(sandbox: SandboxRef, options: SandboxReadOptions): Promise<SandboxChunk> {
    const gatewayId = sandbox.endpointRef;
    const lines = Math.max(1, Math.min(SANDBOX_MAX_LINES, Math.floor(options.lines)));
    const sinceMs = Math.max(0, Math.floor(options.sinceMs ?? 0));
    const out = await this.#call(gatewayId, "GetSandboxLogs", options, (client, call) =>
      client.getSandboxLogs({ sandboxId: sandbox.sandboxName, lines, sinceMs }, call),
    );
    return {
      gatewayId,
      sandboxName: sandbox.sandboxName,
      lines: out.result.lines,
      bufferTotal: out.result.bufferTotal,
      requested: { lines, sinceMs },
    };
  }

  async health(gatewayId: string, options: SandboxCallOptions): Promise<GatewayHealth> {
    const out = await this.#call(gatewayId, "Health", options, (client, call) => client.health(call));
    return { gatewayId, latencyMs: out.latencyMs, ...out.result, auth: out.auth };
  }

  async #call<T>(
    gatewayId: string,
    operation: "GetSandboxLogs" | "Health",
    options: SandboxCallOptions,
    run: (client: OpenShellClient, call: { signal: AbortSignal; timeoutMs: number }) => Promise<T>,
  ): Promise<{ result: T; latencyMs: number; auth: OpenShellConnection["auth"] }> {
    const scope = {
      gatewayId,
      operation,
      deadline: options.deadline,
      requestSignal: options.signal,
      now: this.#now,
    };
    const gateway = await this.options.getGateway(gatewayId);
    if (!gateway) throw gatewayUnavailable(gatewayId, "no such gateway in the registry");
    const connection = await this.options.connections.get(gatewayId, gateway.connectionRef);
    const grpc = await loadGrpc();
    const client = this.#client(gatewayId, connection, grpc);
    const started = this.#now();
    const remainingMs = options.deadline - started;
    const timeoutMs = Math.min(this.#callTimeoutMs, remainingMs);
    const bound = { ...scope, requestBound: remainingMs <= this.#callTimeoutMs };
    if (timeoutMs <= 0 || options.signal.aborted) throw grpcFailure(4, bound);
    try {
      const result = await run(client, { signal: options.signal, timeoutMs });
      return { result, latencyMs: this.#now() - started, auth: connection.auth };
    } catch (e) {
      const code = grpc.grpcCodeOf(e);
      // Anything that is not a gRPC status (a TLS failure, a refused connection) is UNAVAILABLE.
      throw grpcFailure(code ?? 14, bound);
    }
  }

  #client(gatewayId: string, connection: OpenShellConnection, grpc: GrpcModule): OpenShellClient {
    const hit = this.#clients.get(gatewayId);
    if (hit && hit.fingerprint === connection.fingerprint) return hit.client;
    const client = grpc.openClient(connection);
    this.#clients.set(gatewayId, { fingerprint: connection.fingerprint, client });
    return client;
  }
}

export const createSandboxDriver = (options: SandboxDriverOptions): SandboxDriver =>
  new OpenShellSandboxDriver(options);
