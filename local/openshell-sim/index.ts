/**
 * The OpenShell simulator (the sandbox source): real gRPC servers on loopback ports, one per
 * gateway of the scenario's `openshell` block, with ring buffers, auth and faults.
 *
 *   const shell = await startOpenShellSim({ gateways: scenario.openshell, nowMs: () => sim.now().getTime() });
 *   await shell.writeConnections(dir);          // {gatewayId: path} of connection documents
 *   shell.append({ gateway: "os1", sandbox: "support-d2", lines: [["now", "INFO", "t", "m"]] });
 *   await shell.close();
 *
 * The admin operations (`append`, `replace`, `setFault`) are served over HTTP by the kube
 * simulator's `/__sim/sandbox/*` routes (`handleSandboxAdmin`) and are exported here for tests.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { writePrivateFiles } from "../private-files.ts";
import type { ScenarioGateway } from "../scenario/openshell.ts";
import { processPki, type SimPki } from "./certs.ts";
import { type CallCounts, GatewayServer } from "./server.ts";
import {
  type AppendInput,
  type FaultInput,
  OpenShellWorld,
  type ReplaceInput,
  SandboxSimError,
} from "./world.ts";

export type { AppendInput, FaultInput, ReplaceInput } from "./world.ts";
export { SandboxSimError } from "./world.ts";

export interface OpenShellSimOptions {
  gateways: readonly ScenarioGateway[];
  /** The simulator clock in epoch ms (share the kube simulator's). Default: Date.now. */
  nowMs?: () => number;
}

export interface ConnectionDocument {
  endpoint: string;
  caPem?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  allowPlaintextLoopback?: boolean;
}

export interface OpenShellSim {
  /** `{gatewayId: "127.0.0.1:port"}` (the stack file's `openshell` map). */
  endpoints(): Record<string, string>;
  /** The document a client needs for this gateway (TLS material and/or token). */
  connectionDocument(gatewayId: string): ConnectionDocument;
  /** Writes `{dir}/{gatewayId}.json` (mode 0600) for every gateway; returns the paths. */
  writeConnections(dir: string): Promise<Record<string, string>>;
  readonly pki: SimPki;
  append(input: AppendInput): { appended: number; bufferTotal: number };
  replace(input: ReplaceInput): { id: string };
  setFault(input: FaultInput): { latencyMs: number; code: string | null };
  /** Per gateway: calls served so far. */
  counts(): Record<string, CallCounts>;
  /** Replaces every gateway (a reloaded scenario); ports change, generated tokens stay. */
  load(gateways: readonly ScenarioGateway[]): Promise<void>;
  close(): Promise<void>;
}

class OpenShellSimImpl implements OpenShellSim {
  private world: OpenShellWorld;
  private servers = new Map<string, GatewayServer>();
  private readonly tokens = new Map<string, string>();

  constructor(
    readonly pki: SimPki,
    private readonly nowMs: () => number,
    gateways: readonly ScenarioGateway[],
  ) {
    this.world = this.makeWorld(gateways);
  }

  private makeWorld(gateways: readonly ScenarioGateway[]): OpenShellWorld {
    return new OpenShellWorld(gateways, this.nowMs, (id) => {
      let t = this.tokens.get(id);
      if (t === undefined) {
        t = `ostk-${randomBytes(24).toString("base64url")}`;
        this.tokens.set(id, t);
      }
      return t;
    });
  }

  async start(): Promise<void> {
    for (const g of this.world.gateways.values()) {
      const server = new GatewayServer(g.id, () => this.world);
      this.servers.set(g.id, server);
      await server.listen(g.auth, this.pki);
    }
  }

  endpoints(): Record<string, string> {
    return Object.fromEntries([...this.servers].map(([id, s]) => [id, `127.0.0.1:${s.port}`]));
  }

  connectionDocument(gatewayId: string): ConnectionDocument {
    const g = this.world.gateway(gatewayId);
    const hostPort = `127.0.0.1:${this.servers.get(gatewayId)?.port ?? 0}`;
    if (g.auth === "plaintext") return { endpoint: `http://${hostPort}`, allowPlaintextLoopback: true };
    if (g.auth === "token") return { endpoint: hostPort, caPem: this.pki.caPem, token: g.token };
    return {
      endpoint: hostPort,
      caPem: this.pki.caPem,
      clientCertPem: this.pki.clientCertPem,
      clientKeyPem: this.pki.clientKeyPem,
    };
  }

  async writeConnections(dir: string): Promise<Record<string, string>> {
    const root = resolve(dir);
    await mkdir(root, { recursive: true, mode: 0o700 });
    return writePrivateFiles(
      root,
      this.world.gateways.keys(),
      ".json",
      (id) => `${JSON.stringify(this.connectionDocument(id), null, 2)}\n`,
    );
  }

  append(input: AppendInput) {
    return this.world.append(input);
  }
  replace(input: ReplaceInput) {
    return this.world.replace(input);
  }
  setFault(input: FaultInput) {
    return this.world.setFault(input);
  }

  counts(): Record<string, CallCounts> {
    return Object.fromEntries([...this.servers].map(([id, s]) => [id, { ...s.counts }]));
  }

  async load(gateways: readonly ScenarioGateway[]): Promise<void> {
    await this.closeServers();
    this.world = this.makeWorld(gateways);
    await this.start();
  }

  private async closeServers(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers = new Map();
    await Promise.all(servers.map((s) => s.close()));
  }

  close(): Promise<void> {
    return this.closeServers();
  }
}

export async function startOpenShellSim(options: OpenShellSimOptions): Promise<OpenShellSim> {
  const sim = new OpenShellSimImpl(await processPki(), options.nowMs ?? Date.now, options.gateways);
  await sim.start();
  return sim;
}

/**
 * The HTTP admin routes `POST /__sim/sandbox/{append,replace,fault}` (JSON bodies; the kube
 * simulator's server has already checked the peer, origin and content type).
 */
export function handleSandboxAdmin(sim: OpenShellSim | undefined, op: string, body: unknown): unknown {
  if (!sim) throw new SandboxSimError(404, "the scenario has no OpenShell gateways");
  switch (op) {
    case "append":
      return sim.append(body as AppendInput);
    case "replace":
      return sim.replace(body as ReplaceInput);
    case "fault":
      return { faults: sim.setFault(body as FaultInput) };
    default:
      throw new SandboxSimError(404, `no admin operation /sandbox/${op}`);
  }
}
