/**
 * The kubeconfig policy (docs/kube.md § Kubeconfigs): parse the YAML, take the current context's
 * cluster and user, and accept only what the service can use safely:
 * - `https` servers; `insecure-skip-tls-verify: true` (and so plain `http`) only when allowed;
 * - client certificates or the EKS `aws eks get-token` exec form, whose token the service mints
 *   itself; static credentials (a bearer token, a token file, basic auth) only when the cluster's
 *   Registry item allows them; every other exec plugin and every auth-provider is refused;
 * - file references only for local (`file:`) kubeconfigs, read here so nothing is read later;
 * - no proxies, no impersonation.
 * Errors carry a code and name the field, never a value.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { loadYaml } from "@kubernetes/client-node";
import { z } from "zod";

/**
 * Why a kubeconfig was refused: static credentials the cluster does not allow, or anything else the
 * policy refuses. The code goes to operators (logs, probe); clients only ever see "unavailable".
 */
export type KubeconfigRefusal = "KUBECONFIG_STATIC_CREDENTIALS_REFUSED" | "KUBECONFIG_REFUSED";

export class KubeconfigRejected extends Error {
  override name = "KubeconfigRejected";
  constructor(
    message: string,
    readonly code: KubeconfigRefusal = "KUBECONFIG_REFUSED",
  ) {
    super(message);
  }
}

export interface EksExec {
  /** The `x-k8s-aws-id` value: `--cluster-name` or `--cluster-id`. */
  clusterName: string;
  region: string | undefined;
}

/** The accepted cluster and credentials, all inline. */
export interface ResolvedKubeconfig {
  server: string;
  caData?: string;
  tlsServerName?: string;
  skipTLSVerify: boolean;
  credentials:
    | { kind: "token"; token: string }
    | { kind: "certificate"; certData: string; keyData: string }
    | { kind: "basic"; username: string; password: string }
    | { kind: "eks"; eks: EksExec }
    | { kind: "none" };
}

export interface PolicyOptions {
  allowInsecureClusters: boolean;
  /** The cluster's Registry item allows a bearer token or basic auth (default: refused). */
  allowStaticCredentials?: boolean;
  /** Directory of a local kubeconfig file; file references are refused when absent. */
  baseDir?: string;
}

const name = z.string().min(1).max(253);
const cluster = z
  .object({
    server: z.string().min(1).max(2048),
    "certificate-authority-data": z.string().max(65536).optional(),
    "certificate-authority": z.string().max(4096).optional(),
    "insecure-skip-tls-verify": z.boolean().optional(),
    "tls-server-name": z.string().max(253).optional(),
    "disable-compression": z.boolean().optional(),
    extensions: z.unknown().optional(),
  })
  .strict();

const execConfig = z
  .object({
    apiVersion: z.string().max(128).optional(),
    command: z.string().max(4096),
    args: z.array(z.string().max(256)).max(16).nullish(),
    env: z.array(z.unknown()).max(0).nullish(),
    interactiveMode: z.string().max(32).optional(),
    provideClusterInfo: z.boolean().optional(),
    installHint: z.string().max(4096).optional(),
  })
  .strict();

const user = z
  .object({
    token: z.string().max(16384).optional(),
    "token-file": z.string().max(4096).optional(),
    "client-certificate-data": z.string().max(65536).optional(),
    "client-key-data": z.string().max(65536).optional(),
    "client-certificate": z.string().max(4096).optional(),
    "client-key": z.string().max(4096).optional(),
    username: z.string().max(256).optional(),
    password: z.string().max(1024).optional(),
    exec: execConfig.optional(),
    extensions: z.unknown().optional(),
  })
  .strict();

const kubeconfig = z.object({
  "current-context": name,
  clusters: z.array(z.object({ name, cluster })).min(1).max(64),
  users: z.array(z.object({ name, user: user.nullish() })).max(64),
  contexts: z
    .array(z.object({ name, context: z.object({ cluster: name, user: name, namespace: name.optional() }) }))
    .min(1)
    .max(64),
});

const fieldOf = (issue: z.core.$ZodIssue | undefined): string => {
  if (!issue) return "(root)";
  if (issue.code === "unrecognized_keys") return `${issue.path.join(".")}.${issue.keys.join(",")}`;
  return issue.path.join(".") || "(root)";
};

const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$/;

/** Accepts only `[--region R] eks get-token (--cluster-name X | --cluster-id X) [--region R] [--output json]`. */
export function parseEksExec(command: string, args: readonly string[]): EksExec {
  if (command !== "aws" && !/^\/[A-Za-z0-9/._-]*\/aws$/.test(command)) {
    throw new KubeconfigRejected("exec credential plugins are refused except `aws eks get-token`");
  }
  let region: string | undefined;
  let clusterName: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith("--") && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = args[++i];
      if (next === undefined) throw new KubeconfigRejected(`exec argument ${flag} has no value`);
      return next;
    };
    switch (flag) {
      case "--region":
        if (region !== undefined) throw new KubeconfigRejected("exec argument --region repeated");
        region = value();
        if (!REGION.test(region)) throw new KubeconfigRejected("exec argument --region is not a region");
        break;
      case "--cluster-name":
      case "--cluster-id":
        if (clusterName !== undefined) throw new KubeconfigRejected("exec names the cluster twice");
        clusterName = value();
        if (!CLUSTER_NAME.test(clusterName))
          throw new KubeconfigRejected(`exec argument ${flag} is malformed`);
        break;
      case "--output":
        if (value() !== "json") throw new KubeconfigRejected("exec argument --output must be json");
        break;
      default:
        if (arg.startsWith("-")) throw new KubeconfigRejected("exec argument not supported by the EKS form");
        positional.push(arg);
    }
  }
  if (positional.length !== 2 || positional[0] !== "eks" || positional[1] !== "get-token") {
    throw new KubeconfigRejected("exec credential plugins are refused except `aws eks get-token`");
  }
  if (clusterName === undefined) throw new KubeconfigRejected("exec `aws eks get-token` names no cluster");
  return { clusterName, region };
}

function readReferenced(file: string, options: PolicyOptions, field: string): string {
  if (options.baseDir === undefined) {
    throw new KubeconfigRejected(`${field}: file references are refused in stored kubeconfigs`);
  }
  try {
    return readFileSync(path.resolve(options.baseDir, file), "utf8");
  } catch {
    throw new KubeconfigRejected(`${field}: the referenced file cannot be read`);
  }
}

const toBase64 = (pem: string): string => Buffer.from(pem, "utf8").toString("base64");

function checkServer(server: string, skipTLSVerify: boolean): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeconfigRejected("cluster.server is not a URL");
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new KubeconfigRejected("cluster.server must not carry credentials, a query or a fragment");
  }
  if (url.protocol === "http:" && !skipTLSVerify) {
    throw new KubeconfigRejected("cluster.server uses http without insecure-skip-tls-verify");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new KubeconfigRejected("cluster.server must be https");
  }
  return server.replace(/\/+$/, "");
}

/** Applies the policy to kubeconfig text. */
export function resolveKubeconfig(text: string, options: PolicyOptions): ResolvedKubeconfig {
  let raw: unknown;
  try {
    raw = loadYaml(text);
  } catch {
    throw new KubeconfigRejected("not valid YAML");
  }
  const parsed = kubeconfig.safeParse(raw);
  if (!parsed.success) {
    throw new KubeconfigRejected(`unsupported or malformed field ${fieldOf(parsed.error.issues[0])}`);
  }
  const config = parsed.data;
  const context = config.contexts.find((c) => c.name === config["current-context"]);
  if (!context) throw new KubeconfigRejected("current-context names no context");
  const c = config.clusters.find((x) => x.name === context.context.cluster)?.cluster;
  if (!c) throw new KubeconfigRejected("the current context names no cluster");
  const usersNamed = config.users.filter((x) => x.name === context.context.user);
  if (usersNamed.length !== 1) throw new KubeconfigRejected("the current context names no single user");
  const u = usersNamed[0]?.user ?? {};

  const skipTLSVerify = c["insecure-skip-tls-verify"] === true;
  if (skipTLSVerify && !options.allowInsecureClusters) {
    throw new KubeconfigRejected("insecure-skip-tls-verify is refused (ALLOW_INSECURE_CLUSTERS is off)");
  }
  const server = checkServer(c.server, skipTLSVerify);
  if (c["certificate-authority-data"] !== undefined && c["certificate-authority"] !== undefined) {
    throw new KubeconfigRejected("cluster sets both certificate-authority and certificate-authority-data");
  }
  const caData =
    c["certificate-authority-data"] ??
    (c["certificate-authority"] !== undefined
      ? toBase64(readReferenced(c["certificate-authority"], options, "cluster.certificate-authority"))
      : undefined);

  const methods = [
    u.token !== undefined || u["token-file"] !== undefined,
    u["client-certificate-data"] !== undefined || u["client-certificate"] !== undefined,
    u.username !== undefined || u.password !== undefined,
    u.exec !== undefined,
  ].filter(Boolean).length;
  const staticField =
    u.token !== undefined
      ? "user.token"
      : u["token-file"] !== undefined
        ? "user.token-file"
        : u.username !== undefined || u.password !== undefined
          ? "user.username/password"
          : undefined;
  if (staticField !== undefined && options.allowStaticCredentials !== true) {
    // Checked before any file is read: a refused credential is never loaded.
    throw new KubeconfigRejected(
      `${staticField}: static credentials are refused unless the cluster allows them`,
      "KUBECONFIG_STATIC_CREDENTIALS_REFUSED",
    );
  }
  if (methods > 1) throw new KubeconfigRejected("user sets more than one credential kind");

  let credentials: ResolvedKubeconfig["credentials"] = { kind: "none" };
  if (u.exec) {
    credentials = { kind: "eks", eks: parseEksExec(u.exec.command, u.exec.args ?? []) };
  } else if (u.token !== undefined || u["token-file"] !== undefined) {
    const token = u.token ?? readReferenced(u["token-file"] as string, options, "user.token-file").trim();
    if (!/^[\x21-\x7e]{1,16384}$/.test(token)) throw new KubeconfigRejected("user.token is malformed");
    credentials = { kind: "token", token };
  } else if (u["client-certificate-data"] !== undefined || u["client-certificate"] !== undefined) {
    const certData =
      u["client-certificate-data"] ??
      toBase64(readReferenced(u["client-certificate"] as string, options, "user.client-certificate"));
    const keyData =
      u["client-key-data"] ??
      (u["client-key"] !== undefined
        ? toBase64(readReferenced(u["client-key"], options, "user.client-key"))
        : undefined);
    if (keyData === undefined) throw new KubeconfigRejected("user has a client certificate but no key");
    credentials = { kind: "certificate", certData, keyData };
  } else if (u.username !== undefined) {
    credentials = { kind: "basic", username: u.username, password: u.password ?? "" };
  }

  return {
    server,
    skipTLSVerify,
    credentials,
    ...(caData !== undefined ? { caData } : {}),
    ...(c["tls-server-name"] !== undefined ? { tlsServerName: c["tls-server-name"] } : {}),
  };
}
