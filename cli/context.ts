/**
 * What every command needs: its I/O edges (injected, so tests run the real CLI in-process), the
 * resolved global options and an API client.
 */
import { isLoopbackHost, parseEndpoint, parseId, parseToken } from "./args.ts";
import {
  AUTH_MODES,
  type AuthMode,
  type Authorizer,
  bearerAuthorizer,
  type CredentialSource,
  parseRegion,
  regionFromHost,
  sigv4Authorizer,
} from "./auth.ts";
import { UsageError } from "./errors.ts";
import { escapeText } from "./escape.ts";
import { ApiClient, type FetchFn } from "./http.ts";
import { colorEnabled, makeStyle, type Style } from "./style.ts";

export type Output = "text" | "json" | "log";

export interface Deps {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  fetch: FetchFn;
  cwd: string;
  now: () => number;
  /** A number in [0, 1): jitter of the back-off on 503 BUSY. */
  random: () => number;
  /** Time between follow polls (surfaces.md: 2 s); tests inject a shorter one. */
  pollIntervalMs: number;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** AWS credentials for `--auth iam` (the default chain in the real process). */
  credentials: CredentialSource;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Calls `handler` on SIGINT/SIGTERM until the returned function is called. */
  onSignal: (handler: (signal: NodeJS.Signals) => void) => () => void;
  /** Ends the process at once (a second Ctrl-C during a follow). */
  exitNow: (code: number) => void;
  writeFile: (path: string, bytes: Uint8Array, exclusive: boolean) => Promise<void>;
}

export interface GlobalOptions {
  endpoint?: string;
  namespace?: string;
  token?: string;
  auth?: string;
  region?: string;
  output?: string;
}

export interface Ctx {
  deps: Deps;
  client: ApiClient;
  namespace: string;
  output: Output;
  auth: AuthMode;
  /** Colours of stdout lines and of stderr notices. */
  style: Style;
  noticeStyle: Style;
  /** Aborted when the user interrupts; every request and wait listens to it. */
  signal: AbortSignal;
  notice: (message: string) => void;
  out: (line: string) => void;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function fromEnv(env: Deps["env"], name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

/** Resolves flags over environment variables, validating all of them before any request. */
export function makeContext(
  deps: Deps,
  opts: GlobalOptions,
  allowed: readonly Output[],
  signal: AbortSignal,
): Ctx {
  const output = (opts.output ?? "text") as Output;
  if (!allowed.includes(output))
    throw new UsageError(`-o ${output} is not available here (choose ${allowed.join(" or ")})`);
  const endpointText = opts.endpoint ?? fromEnv(deps.env, "OCC_ENDPOINT");
  if (endpointText === undefined)
    throw new UsageError("no API endpoint: pass --endpoint URL or set OCC_ENDPOINT");
  const namespaceText = opts.namespace ?? fromEnv(deps.env, "OCC_NAMESPACE");
  if (namespaceText === undefined)
    throw new UsageError("no namespace: pass --namespace ID or set OCC_NAMESPACE");
  const namespace = parseId("namespace", namespaceText);
  const endpoint = parseEndpoint(endpointText);
  const authText = opts.auth ?? fromEnv(deps.env, "OCC_AUTH") ?? "token";
  if (!(AUTH_MODES as readonly string[]).includes(authText))
    throw new UsageError(`--auth must be token or iam (got ${JSON.stringify(authText.slice(0, 20))})`);
  const auth = authText as AuthMode;
  const plainRemote = endpoint.protocol === "http:" && !isLoopbackHost(endpoint.hostname);
  let authorize: Authorizer;
  if (auth === "iam") {
    if (opts.token !== undefined) throw new UsageError("--token applies only to --auth token");
    if (plainRemote)
      throw new UsageError(
        "refusing to send AWS credentials over plain http to a non-loopback host: use https",
      );
    const region = opts.region !== undefined ? parseRegion(opts.region) : regionFromHost(endpoint.hostname);
    if (region === undefined)
      throw new UsageError(
        "--auth iam needs the API's region: pass --region, or use the execute-api endpoint (https://ID.execute-api.REGION.amazonaws.com)",
      );
    authorize = sigv4Authorizer({ region, credentials: deps.credentials, now: deps.now });
  } else {
    if (opts.region !== undefined) throw new UsageError("--region applies only to --auth iam");
    const tokenText = opts.token ?? fromEnv(deps.env, "OCC_TOKEN");
    const token = tokenText === undefined ? undefined : parseToken(tokenText);
    if (token !== undefined && plainRemote)
      throw new UsageError("refusing to send the token over plain http to a non-loopback host: use https");
    authorize = bearerAuthorizer(token);
  }
  const noticeStyle = makeStyle(colorEnabled(deps.env, deps.stderrIsTTY));
  const client = new ApiClient({
    endpoint,
    authorize,
    fetch: deps.fetch,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    now: deps.now,
  });
  return {
    deps,
    client,
    namespace,
    output,
    auth,
    style: makeStyle(colorEnabled(deps.env, deps.stdoutIsTTY)),
    noticeStyle,
    signal,
    notice: (message) => deps.stderr(`${noticeStyle.paint("yellow", "occ:")} ${escapeText(message)}\n`),
    out: (line) => deps.stdout(`${line}\n`),
  };
}

export function agentSegments(ctx: Ctx, agent: string): string[] {
  return ["namespaces", ctx.namespace, "agents", agent];
}

export function deploymentSegments(ctx: Ctx, agent: string, deployment: string): string[] {
  return [...agentSegments(ctx, agent), "deployments", deployment];
}
