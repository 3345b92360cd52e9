/**
 * KubeconfigStore: resolves a cluster's `kubeconfigRef` to a client-node KubeConfig that passed the
 * policy (kubeconfig-policy.ts). `file:<path>` reads a local file (local stack); `secretsmanager:<name>`
 * reads AWS Secrets Manager, names under the configured prefix only, cached per container for 5 min
 * (lib/secret-cache.ts: a failed refresh keeps the last good kubeconfig and backs off).
 * EKS exec users get a bearer token minted in-process. Errors name the cluster, never contents.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { AwsCredentialIdentityProvider } from "@aws-sdk/types";
import type { Cluster, KubeConfig, User } from "@kubernetes/client-node";
import { ServiceError } from "../api/errors.ts";
import { SecretCache } from "../secret-cache.ts";
import { KeptAliveKubeConfig } from "./cluster-session.ts";
import { EksTokenCache } from "./eks-token.ts";
import { KubeconfigRejected, type ResolvedKubeconfig, resolveKubeconfig } from "./kubeconfig-policy.ts";

/** Per-cluster allowances from the cluster's Registry item. */
export interface ClusterAllowances {
  /** Static credentials (bearer token, basic auth) are accepted; default refused. */
  allowStaticCredentials?: boolean;
}

export interface KubeconfigStore {
  get(clusterId: string, ref: string, allowances?: ClusterAllowances): Promise<KubeConfig>;
}

export const KUBECONFIG_CACHE_MS = 5 * 60_000;

/** The Secrets Manager edge the store uses: anything with the client's `send`. */
export type SecretsSender = Pick<SecretsManagerClient, "send">;

export interface KubeconfigStoreOptions {
  allowInsecureClusters: boolean;
  /** Prefix every `secretsmanager:` name must start with (config KUBECONFIG_SECRET_PREFIX). */
  secretPrefix: string;
  /** Needed for `secretsmanager:` refs. */
  secrets?: SecretsSender;
  /** Credentials for EKS tokens (default: the Node provider chain, loaded on first use). */
  credentials?: AwsCredentialIdentityProvider;
  /** Region for EKS exec users without `--region` (default: AWS_REGION). */
  defaultRegion?: string;
  now?: () => number;
  /** [0, 1): jitter of the refresh backoff. */
  random?: () => number;
}

const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

const failure = (clusterId: string, reason: string): ServiceError =>
  new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal: `cluster ${clusterId}: kubeconfig ${reason}` });

/** Idle kept-alive connections close after this (API servers drop idle ones after about a minute). */
export const IDLE_CONNECTION_MS = 30_000;

/** What a connection to the cluster depends on: a change (a rotated CA or client cert) needs a new agent. */
function connectionFingerprint(resolved: ResolvedKubeconfig): string {
  const c = resolved.credentials;
  return createHash("sha256")
    .update(
      JSON.stringify([
        resolved.server,
        resolved.caData ?? null,
        resolved.tlsServerName ?? null,
        resolved.skipTLSVerify,
        c.kind === "certificate" ? [c.certData, c.keyData] : null,
      ]),
    )
    .digest("hex");
}

/** A keep-alive agent with exactly the TLS settings client-node would derive from the kubeconfig. */
function keptAliveAgent(resolved: ResolvedKubeconfig): http.Agent {
  const base = { keepAlive: true, scheduling: "lifo" as const, timeout: IDLE_CONNECTION_MS };
  if (new URL(resolved.server).protocol === "http:") return new http.Agent(base);
  const c = resolved.credentials;
  return new https.Agent({
    ...base,
    ...(resolved.caData !== undefined ? { ca: Buffer.from(resolved.caData, "base64") } : {}),
    ...(c.kind === "certificate"
      ? { cert: Buffer.from(c.certData, "base64"), key: Buffer.from(c.keyData, "base64") }
      : {}),
    ...(resolved.tlsServerName !== undefined ? { servername: resolved.tlsServerName } : {}),
    rejectUnauthorized: !resolved.skipTLSVerify,
  });
}

/** Builds a KubeConfig holding exactly one cluster, user and context, all inline. */
function toKubeConfig(
  clusterId: string,
  resolved: ResolvedKubeconfig,
  token: string | undefined,
  connections: http.Agent,
): KubeConfig {
  const cluster: Cluster = {
    name: clusterId,
    server: resolved.server,
    skipTLSVerify: resolved.skipTLSVerify,
    ...(resolved.caData !== undefined ? { caData: resolved.caData } : {}),
    ...(resolved.tlsServerName !== undefined ? { tlsServerName: resolved.tlsServerName } : {}),
  };
  const c = resolved.credentials;
  const user: User =
    c.kind === "token"
      ? { name: clusterId, token: c.token }
      : c.kind === "certificate"
        ? { name: clusterId, certData: c.certData, keyData: c.keyData }
        : c.kind === "basic"
          ? { name: clusterId, username: c.username, password: c.password }
          : token !== undefined
            ? { name: clusterId, token }
            : { name: clusterId };
  const kc = new KeptAliveKubeConfig(connections);
  kc.loadFromClusterAndUser(cluster, user);
  return kc;
}

export class DefaultKubeconfigStore implements KubeconfigStore {
  readonly #cache: SecretCache<ResolvedKubeconfig>;
  /** One kept-alive agent per cluster, replaced when its TLS material changes. */
  readonly #connections = new Map<string, { fingerprint: string; agent: http.Agent }>();
  /**
   * The KubeConfig last built per cluster, reused while its inputs are the same objects (the cached
   * resolution, the agent, the EKS token): building one, and its fingerprint, on every call is
   * most of a warm poll's kube-side CPU besides the HTTP itself (docs/quality.md P4).
   */
  readonly #built = new Map<
    string,
    { resolved: ResolvedKubeconfig; agent: http.Agent; token: string | undefined; kc: KubeConfig }
  >();
  readonly #fingerprints = new WeakMap<ResolvedKubeconfig, string>();
  readonly #now: () => number;
  #tokens: EksTokenCache | undefined;

  constructor(private readonly options: KubeconfigStoreOptions) {
    this.#now = options.now ?? Date.now;
    this.#cache = new SecretCache({
      ttlMs: KUBECONFIG_CACHE_MS,
      now: this.#now,
      ...(options.random ? { random: options.random } : {}),
    });
  }

  async get(clusterId: string, ref: string, allowances: ClusterAllowances = {}): Promise<KubeConfig> {
    const resolved = await this.#resolve(clusterId, ref, allowances.allowStaticCredentials === true);
    const connections = this.#connectionsFor(clusterId, resolved);
    if (resolved.credentials.kind !== "eks")
      return this.#kubeConfig(clusterId, resolved, undefined, connections);
    const { clusterName, region: explicit } = resolved.credentials.eks;
    const region = explicit ?? this.options.defaultRegion ?? process.env.AWS_REGION;
    if (!region) throw failure(clusterId, "EKS user has no region (no --region and no AWS_REGION)");
    try {
      const token = await (await this.#tokenCache()).get({ clusterName, region });
      return this.#kubeConfig(clusterId, resolved, token, connections);
    } catch {
      throw failure(clusterId, "EKS token could not be minted (credentials unavailable)");
    }
  }

  #kubeConfig(
    clusterId: string,
    resolved: ResolvedKubeconfig,
    token: string | undefined,
    agent: http.Agent,
  ): KubeConfig {
    const built = this.#built.get(clusterId);
    if (built?.resolved === resolved && built.agent === agent && built.token === token) return built.kc;
    const kc = toKubeConfig(clusterId, resolved, token, agent);
    this.#built.set(clusterId, { resolved, agent, token, kc });
    return kc;
  }

  #connectionsFor(clusterId: string, resolved: ResolvedKubeconfig): http.Agent {
    let fingerprint = this.#fingerprints.get(resolved);
    if (fingerprint === undefined) {
      fingerprint = connectionFingerprint(resolved);
      this.#fingerprints.set(resolved, fingerprint);
    }
    const kept = this.#connections.get(clusterId);
    if (kept?.fingerprint === fingerprint) return kept.agent;
    // The old agent's requests in flight finish; its idle sockets close on their timeout.
    const agent = keptAliveAgent(resolved);
    this.#connections.set(clusterId, { fingerprint, agent });
    return agent;
  }

  async #tokenCache(): Promise<EksTokenCache> {
    if (!this.#tokens) {
      const credentials =
        this.options.credentials ?? (await import("@aws-sdk/credential-provider-node")).defaultProvider();
      this.#tokens = new EksTokenCache(credentials, this.#now);
    }
    return this.#tokens;
  }

  /**
   * Parsed and policy-checked kubeconfigs are cached per container for 5 minutes, whatever their
   * source: a file is not re-read and re-validated on every Kubernetes call. A refresh that fails
   * (store down, or a new version the policy refuses) keeps serving the last good one.
   */
  #resolve(clusterId: string, ref: string, allowStatic: boolean): Promise<ResolvedKubeconfig> {
    // The allowance is part of the key: revoking it takes effect with the next Registry read.
    return this.#cache.get(`${clusterId}\0${ref}\0${allowStatic}`, () =>
      this.#load(clusterId, ref, allowStatic),
    );
  }

  #load(clusterId: string, ref: string, allowStatic: boolean): Promise<ResolvedKubeconfig> {
    const colon = ref.indexOf(":");
    const scheme = colon > 0 ? ref.slice(0, colon) : "";
    const target = ref.slice(colon + 1);
    if (scheme === "file") return this.#fromFile(clusterId, target, allowStatic);
    if (scheme === "secretsmanager") return this.#fromSecret(clusterId, target, allowStatic);
    return Promise.reject(failure(clusterId, "reference has an unsupported scheme"));
  }

  async #fromFile(clusterId: string, file: string, allowStatic: boolean): Promise<ResolvedKubeconfig> {
    if (file.length === 0 || file.includes("\0")) throw failure(clusterId, "file reference is malformed");
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      throw failure(clusterId, "file cannot be read");
    }
    return this.#apply(clusterId, text, path.dirname(path.resolve(file)), allowStatic);
  }

  #fromSecret(clusterId: string, name: string, allowStatic: boolean): Promise<ResolvedKubeconfig> {
    const prefix = this.options.secretPrefix;
    if (
      !SECRET_NAME.test(name) ||
      !name.startsWith(prefix) ||
      name.length === prefix.length ||
      name.split("/").some((part) => part === ".." || part === ".")
    ) {
      return Promise.reject(failure(clusterId, "secret name is outside the allowed prefix"));
    }
    return this.#loadSecret(clusterId, name, allowStatic);
  }

  async #loadSecret(clusterId: string, name: string, allowStatic: boolean): Promise<ResolvedKubeconfig> {
    const secrets = this.options.secrets;
    if (!secrets) throw failure(clusterId, "secret store is not configured");
    let text: string | undefined;
    try {
      const out = await secrets.send(new GetSecretValueCommand({ SecretId: name }));
      text = out.SecretString;
    } catch {
      throw failure(clusterId, "secret cannot be read");
    }
    if (typeof text !== "string" || text.length === 0 || text.length > 256 * 1024) {
      throw failure(clusterId, "secret holds no kubeconfig text");
    }
    return this.#apply(clusterId, text, undefined, allowStatic);
  }

  #apply(
    clusterId: string,
    text: string,
    baseDir: string | undefined,
    allowStatic: boolean,
  ): ResolvedKubeconfig {
    try {
      return resolveKubeconfig(text, {
        allowInsecureClusters: this.options.allowInsecureClusters,
        allowStaticCredentials: allowStatic,
        ...(baseDir !== undefined ? { baseDir } : {}),
      });
    } catch (e) {
      // The code first, so logs and the probe can select on it; the message names a field only.
      if (e instanceof KubeconfigRejected) throw failure(clusterId, `refused (${e.code}): ${e.message}`);
      throw failure(clusterId, "refused (KUBECONFIG_REFUSED)");
    }
  }
}

export const createKubeconfigStore = (options: KubeconfigStoreOptions): KubeconfigStore =>
  new DefaultKubeconfigStore(options);
