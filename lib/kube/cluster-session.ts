/**
 * One cluster as seen by one request: client-node API objects whose HTTP goes through our
 * transport (per-call signal, byte cap, counter), and an authenticated raw GET for logs. Every
 * failure leaves here as a ServiceError with a contract code.
 */
import type http from "node:http";
import type https from "node:https";
import {
  AuthorizationV1Api,
  type ConfigurationOptions,
  CoreV1Api,
  KubeConfig,
  type RequestContext,
  ResponseContext,
  VersionApi,
  wrapHttpLibrary,
} from "@kubernetes/client-node";
import type { ServiceError } from "../api/errors.ts";
import { ClusterHttpError, toServiceError } from "./errors.ts";
import { callBudget, callSignal, type RawResponse, send } from "./transport.ts";
import { InvalidClusterData } from "./validate.ts";

export interface SessionScope {
  clusterId: string;
  signal: AbortSignal;
  deadline: number;
  now: () => number;
  callTimeoutMs: number;
  onCall: () => void;
}

/** JSON bodies above this are refused (a Pod list of 16 or an Event page of 100 is far below). */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;

/** The message of a Kubernetes `Status` body, or the body's start; internal use only. */
export function statusMessage(body: Buffer): string {
  const text = body.subarray(0, 8192).toString("utf8");
  try {
    const parsed = JSON.parse(text) as { kind?: unknown; message?: unknown };
    if (parsed && parsed.kind === "Status" && typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON: fall through
  }
  return text;
}

/** client-node's headers, their names in lower case as the transport takes them. */
function headersOf(ctx: RequestContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.getHeaders())) headers[name.toLowerCase()] = value;
  return headers;
}

/**
 * A KubeConfig that carries its cluster's keep-alive agent (one per cluster and TLS material per
 * container, kept by the kubeconfig store). client-node builds a fresh agent without keep-alive
 * for every request, so each call would pay a new TCP and TLS handshake; sessions send through
 * this agent instead (docs/capacity.md § Kubernetes API). Its user carries static material only
 * (a token, basic credentials or a client certificate: the store builds a new one for a new EKS
 * token), so a raw GET's headers are worked out once per instance.
 */
export class KeptAliveKubeConfig extends KubeConfig {
  constructor(readonly connections: http.Agent) {
    super();
  }
}

const agentOption = (agent: http.Agent | undefined) => (agent ? { agent } : {});

/** What a raw GET sends to one KubeConfig's cluster: its server and the authentication headers. */
interface RawTarget {
  server: string;
  headers: Record<string, string>;
  agent: http.Agent | undefined;
}

async function rawTarget(kc: KubeConfig): Promise<RawTarget> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new InvalidClusterData("no cluster");
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = { accept: "*/*" };
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (typeof v === "string" || typeof v === "number") headers[k] = String(v);
  }
  if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
  const agent = kc instanceof KeptAliveKubeConfig ? kc.connections : (opts.agent as https.Agent | undefined);
  return { server: cluster.server, headers, agent };
}

/**
 * Raw targets of the kubeconfig store's configs, worked out once per config: their users carry
 * only static material (a token, basic credentials, a client certificate in the agent; EKS tokens
 * come as a new config), so the headers client-node derives for them never change.
 */
const keptTargets = new WeakMap<KubeConfig, Promise<RawTarget>>();

export class ClusterSession {
  #core: CoreV1Api | undefined;
  #authz: AuthorizationV1Api | undefined;
  #version: VersionApi | undefined;

  /** The cluster's kept-alive agent, when the kubeconfig store supplied one. */
  readonly #connections: http.Agent | undefined;

  constructor(
    readonly kc: KubeConfig,
    readonly scope: SessionScope,
  ) {
    this.#connections = kc instanceof KeptAliveKubeConfig ? kc.connections : undefined;
  }

  // The typed API objects are made on first use: a log poll needs none of them.
  get core(): CoreV1Api {
    this.#core ??= this.kc.makeApiClient(CoreV1Api);
    return this.#core;
  }

  get authz(): AuthorizationV1Api {
    this.#authz ??= this.kc.makeApiClient(AuthorizationV1Api);
    return this.#authz;
  }

  get version(): VersionApi {
    this.#version ??= this.kc.makeApiClient(VersionApi);
    return this.#version;
  }

  #rawTarget(): Promise<RawTarget> {
    if (!(this.kc instanceof KeptAliveKubeConfig)) return rawTarget(this.kc);
    let target = keptTargets.get(this.kc);
    if (!target) {
      target = rawTarget(this.kc);
      keptTargets.set(this.kc, target);
      target.catch(() => keptTargets.delete(this.kc));
    }
    return target;
  }

  fail(error: unknown, operation: string): ServiceError {
    return toServiceError(error, {
      clusterId: this.scope.clusterId,
      operation,
      requestSignal: this.scope.signal,
      deadline: this.scope.deadline,
      now: this.scope.now,
    });
  }

  /**
   * Runs one client-node call and returns the raw JSON body (validated by the caller: the client's
   * own model turns times into Date objects, which would hide offsets and malformed values).
   */
  async json(
    operation: string,
    invoke: (options: ConfigurationOptions) => Promise<unknown>,
    timeoutMs = this.scope.callTimeoutMs,
  ): Promise<unknown> {
    const { signal, dispose } = callSignal(this.scope.signal, timeoutMs, this.scope.deadline, this.scope.now);
    let body: Buffer | undefined;
    const httpApi = wrapHttpLibrary({
      send: async (ctx: RequestContext) => {
        const raw = ctx.getBody();
        const res = await send(
          {
            url: ctx.getUrl(),
            method: ctx.getHttpMethod(),
            headers: headersOf(ctx),
            ...(typeof raw === "string" ? { body: raw } : {}),
            ...agentOption(this.#connections ?? (ctx.getAgent() as https.Agent | undefined)),
          },
          { signal, maxBytes: MAX_JSON_BYTES, overflow: "fail", onCall: this.scope.onCall },
        );
        if (res.status < 200 || res.status > 299)
          throw new ClusterHttpError(res.status, statusMessage(res.body));
        body = res.body;
        return new ResponseContext(res.status, res.headers, {
          text: async () => res.body.toString("utf8"),
          binary: async () => res.body,
        });
      },
    });
    try {
      await invoke({ httpApi });
      if (!body) throw new InvalidClusterData("no body");
      try {
        return JSON.parse(body.toString("utf8")) as unknown;
      } catch {
        throw new InvalidClusterData("body is not JSON");
      }
    } catch (e) {
      throw this.fail(e, operation);
    } finally {
      dispose();
    }
  }

  /** An authenticated GET outside the typed client (logs); returns any status, the body capped. */
  async rawGet(
    operation: string,
    pathAndQuery: string,
    maxBytes: number,
    timeoutMs = this.scope.callTimeoutMs,
  ): Promise<RawResponse> {
    // The call's limit is kept by its connection's timer: no signal of its own (three per poll).
    const budget = callBudget(timeoutMs, this.scope.deadline, this.scope.now);
    try {
      const target = await this.#rawTarget();
      return await send(
        {
          url: `${target.server}${pathAndQuery}`,
          method: "GET",
          headers: target.headers,
          ...agentOption(target.agent),
        },
        { signal: this.scope.signal, budget, maxBytes, overflow: "cut", onCall: this.scope.onCall },
      );
    } catch (e) {
      throw this.fail(e, operation);
    }
  }
}
