/**
 * The simulator's gRPC servers: one per gateway on its own loopback port (each gateway has its own
 * TLS and auth), built on @grpc/grpc-js with the service loaded from the same `.proto` by
 * @grpc/proto-loader, an implementation independent of the client's (Connect), so the wire is
 * proven between two codebases. Faults apply to every call: latency first, then the status code.
 */
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { SimPki } from "./certs.ts";
import { GrpcStatusError, grpcCodeNumber, type OpenShellWorld, type SimGateway } from "./world.ts";

export const PROTO_PATH = fileURLToPath(
  new URL("../../lib/openshell/proto/openshell.proto", import.meta.url),
);
export const SIM_VERSION = "openshell-sim/1";

let service: grpc.ServiceDefinition | undefined;
function serviceDefinition(): grpc.ServiceDefinition {
  if (!service) {
    const def = protoLoader.loadSync(PROTO_PATH, {
      keepCase: false,
      longs: Number,
      enums: Number,
      defaults: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      openshell: { v1: { OpenShell: { service: grpc.ServiceDefinition } } };
    };
    service = pkg.openshell.v1.OpenShell.service;
  }
  return service;
}

export interface CallCounts {
  health: number;
  getSandboxLogs: number;
}

export class GatewayServer {
  readonly server = new grpc.Server();
  port = 0;
  readonly counts: CallCounts = { health: 0, getSandboxLogs: 0 };
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly gatewayId: string,
    private readonly world: () => OpenShellWorld,
  ) {
    this.server.addService(serviceDefinition(), {
      Health: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        this.counts.health++;
        this.serve(call, cb, () => ({ status: 1, version: SIM_VERSION }));
      },
      GetSandboxLogs: (
        call: grpc.ServerUnaryCall<
          { sandboxId: string; lines: number; sinceMs: number; sources: string[] },
          unknown
        >,
        cb: grpc.sendUnaryData<unknown>,
      ) => {
        this.counts.getSandboxLogs++;
        this.serve(call, cb, () => {
          const r = call.request;
          const out = this.world().query(this.gatewayId, {
            sandboxId: r.sandboxId,
            lines: r.lines,
            sinceMs: r.sinceMs,
            sources: r.sources,
          });
          return {
            logs: out.logs.map((l) => ({
              sandboxId: l.sandboxId,
              timestampMs: l.timeMs,
              level: l.level,
              target: l.target,
              message: l.message,
              source: l.source,
              fields: l.fields,
            })),
            bufferTotal: out.bufferTotal,
          };
        });
      },
    });
  }

  private gateway(): SimGateway {
    return this.world().gateway(this.gatewayId);
  }

  private serve(
    call: grpc.ServerUnaryCall<unknown, unknown>,
    cb: grpc.sendUnaryData<unknown>,
    answer: () => unknown,
  ): void {
    const g = this.gateway();
    if (g.auth === "token" && call.metadata.get("authorization")[0] !== `Bearer ${g.token}`) {
      cb({ code: grpc.status.UNAUTHENTICATED, details: "missing or wrong bearer token" });
      return;
    }
    const finish = () => {
      const now = this.gateway();
      if (now.faults.code !== null) {
        cb({ code: grpcCodeNumber(now.faults.code), details: `simulated fault: ${now.faults.code}` });
        return;
      }
      try {
        cb(null, answer());
      } catch (e) {
        if (e instanceof GrpcStatusError) cb({ code: e.code, details: e.message });
        else cb({ code: grpc.status.INTERNAL, details: "simulator failure" });
      }
    };
    if (g.faults.latencyMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        finish();
      }, g.faults.latencyMs);
      this.timers.add(timer);
    } else finish();
  }

  async listen(auth: SimGateway["auth"], pki: SimPki): Promise<number> {
    const creds =
      auth === "plaintext"
        ? grpc.ServerCredentials.createInsecure()
        : grpc.ServerCredentials.createSsl(
            auth === "mtls" ? Buffer.from(pki.caPem) : null,
            [{ cert_chain: Buffer.from(pki.serverCertPem), private_key: Buffer.from(pki.serverKeyPem) }],
            auth === "mtls",
          );
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync("127.0.0.1:0", creds, (err, port) => (err ? reject(err) : resolve(port))),
    );
    return this.port;
  }

  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.server.forceShutdown();
    return Promise.resolve();
  }
}
