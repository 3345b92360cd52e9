/**
 * The per-poll DynamoDB calls without the SDK's per-call middleware (docs/quality.md P4): a warm
 * poll makes five single-item calls, and the SDK's stack (schema serde, endpoint rules, user agent,
 * auth-scheme selection, checksums) cost more CPU than everything else the handler does. For the
 * item commands whose input is already in wire form (`GetItem`, `PutItem`, `UpdateItem`,
 * `BatchGetItem`: DynamoDB's JSON 1.0 protocol is their input shape as it is), the client below
 * signs and sends the body itself over lib/http/client.ts, on connections the SDK handler's agents
 * open, with the handler's timeouts and the client's own credentials provider, region, endpoint and
 * retry strategy (the SDK's standard one: same attempts, backoff and retry quota). Every other
 * command goes through the SDK.
 */
import { createHash, createHmac, hash } from "node:crypto";
import type http from "node:http";
import {
  BatchGetItemCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  DynamoDBServiceException,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { isServerError, isThrottlingError, isTransientError } from "@smithy/core/retry";
import type { RetryErrorInfo, RetryErrorType } from "@smithy/types";
import { HmacSha256 } from "../hmac.ts";
import { type ConnectionPool, poolFor } from "../http/client.ts";

/** The commands sent directly: their wire operation and the SDK's command name (a bundle may rename classes). */
const DIRECT = new Map<unknown, { operation: string; commandName: string }>([
  [GetItemCommand, { operation: "GetItem", commandName: "GetItemCommand" }],
  [PutItemCommand, { operation: "PutItem", commandName: "PutItemCommand" }],
  [UpdateItemCommand, { operation: "UpdateItem", commandName: "UpdateItemCommand" }],
  [BatchGetItemCommand, { operation: "BatchGetItem", commandName: "BatchGetItemCommand" }],
]);

const SERVICE = "dynamodb";
const TARGET_PREFIX = "DynamoDB_20120810.";
const CONTENT_TYPE = "application/x-amz-json-1.0";
/** The SDK's threshold for correcting its clock from a response's `Date` (5 minutes). */
const CLOCK_SKEW_MS = 300_000;
/** Above the largest answer DynamoDB gives (a BatchGetItem's 16 MB). */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export interface SignInput {
  method: string;
  host: string;
  path: string;
  /** Headers to sign, names lower case (`host` and `x-amz-date` are added). */
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: Credentials;
  /** Signing time, ms since the epoch. */
  at: number;
}

/** One-shot SHA-256 (`crypto.hash`, Node ≥ 20.12) where there is one: no Hash object per digest. */
const sha256Hex: (data: string) => string =
  typeof hash === "function"
    ? (data) => hash("sha256", data, "hex")
    : (data) => createHash("sha256").update(data, "utf8").digest("hex");

/** `YYYYMMDDTHHMMSSZ` of a time. */
export function amzDate(at: number): string {
  const iso = new Date(at).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** A header value as the canonical request has it: trimmed, inner runs of white space one space. */
const canonicalValue = (value: string) => (/\s/.test(value) ? value.trim().replace(/\s+/g, " ") : value);

/** What a request signs besides its body, credentials and time. */
export type RequestShape = Omit<SignInput, "body" | "credentials" | "at">;

/**
 * The canonical request of one request shape, worked out once (sorted header names, their lines,
 * the signed-header list): a signature fills in only the date, the session token and the body's
 * hash. `parts` surround those: `parts[0] date parts[1] [token parts[2]] bodyHash`.
 */
export class SigningTemplate {
  readonly #plain: { parts: string[]; signedHeaders: string };
  #withToken: { parts: string[]; signedHeaders: string } | undefined;

  constructor(readonly shape: RequestShape) {
    this.#plain = this.#canonical(false);
  }

  /** The canonical request's parts and signed headers, with or without a session token. */
  variant(token: boolean): { parts: string[]; signedHeaders: string } {
    if (!token) return this.#plain;
    this.#withToken ??= this.#canonical(true);
    return this.#withToken;
  }

  #canonical(token: boolean): { parts: string[]; signedHeaders: string } {
    const { method, path, host, headers } = this.shape;
    const lines: Record<string, string> = { ...headers, host, "x-amz-date": "" };
    if (token) lines["x-amz-security-token"] = "";
    const names = Object.keys(lines).sort();
    const signedHeaders = names.join(";");
    const parts: string[] = [];
    let text = `${method}\n${path}\n\n`;
    for (const name of names) {
      if (name === "x-amz-date" || name === "x-amz-security-token") {
        parts.push(`${text}${name}:`);
        text = "\n";
      } else text += `${name}:${canonicalValue(lines[name] as string)}\n`;
    }
    parts.push(`${text}\n${signedHeaders}\n`);
    return { parts, signedHeaders };
  }
}

/**
 * AWS Signature Version 4 of a request with an empty query, its signing key kept per day, region,
 * service and secret (one HMAC chain a day instead of one a call), and its `x-amz-date` per second.
 * Returns the headers to send: the signed ones plus `authorization`.
 */
export class SigV4Signer {
  #keyScope = "";
  #keyAccessKeyId = "";
  #keySecret = "";
  #key: HmacSha256 | null = null;
  #dateSecond = Number.NaN;
  #date = "";

  sign(input: SignInput): Record<string, string> {
    return this.signAs(new SigningTemplate(input), input.body, input.credentials, input.at);
  }

  /** Signs a request of the template's shape: keep the template for requests of one shape. */
  signAs(
    template: SigningTemplate,
    body: string,
    credentials: Credentials,
    at: number,
  ): Record<string, string> {
    const second = Math.floor(at / 1000);
    if (second !== this.#dateSecond) {
      this.#dateSecond = second;
      this.#date = amzDate(at);
    }
    const date = this.#date;
    const day = date.slice(0, 8);
    const { shape } = template;
    const token = credentials.sessionToken;
    const { parts, signedHeaders } = template.variant(Boolean(token));
    const headers: Record<string, string> = { ...shape.headers, host: shape.host, "x-amz-date": date };
    let canonical = `${parts[0]}${date}${parts[1]}`;
    if (token) {
      headers["x-amz-security-token"] = token;
      canonical += `${canonicalValue(token)}${parts[2]}`;
    }
    canonical += sha256Hex(body);
    const scope = `${day}/${shape.region}/${shape.service}/aws4_request`;
    const toSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${sha256Hex(canonical)}`;
    const signature = this.#signingKey(scope, day, shape.region, shape.service, credentials).hex(toSign);
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    return headers;
  }

  #signingKey(
    scope: string,
    day: string,
    region: string,
    service: string,
    credentials: Credentials,
  ): HmacSha256 {
    const { accessKeyId, secretAccessKey } = credentials;
    if (
      this.#key === null ||
      scope !== this.#keyScope ||
      accessKeyId !== this.#keyAccessKeyId ||
      secretAccessKey !== this.#keySecret
    ) {
      const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
      const k = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), "aws4_request");
      this.#keyScope = scope;
      this.#keyAccessKeyId = accessKeyId;
      this.#keySecret = secretAccessKey;
      this.#key = new HmacSha256(k);
    }
    return this.#key;
  }
}

/** Uint8Array values (`B`, `BS`) travel base64 in the JSON protocol. */
function toWire(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw instanceof Uint8Array)
    return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("base64");
  return value;
}

/** …and come back as Uint8Array, as the SDK gives them. A string under `B` is only ever a binary value. */
function fromWire(key: string, value: unknown): unknown {
  if (key === "B" && typeof value === "string") return new Uint8Array(Buffer.from(value, "base64"));
  if (key === "BS" && Array.isArray(value) && value.every((v) => typeof v === "string"))
    return value.map((v: string) => new Uint8Array(Buffer.from(v, "base64")));
  return value;
}

function errorType(e: Error): RetryErrorType {
  const error = e as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(error)) return "THROTTLING";
  if (isTransientError(error)) return "TRANSIENT";
  if (isServerError(error)) return "SERVER_ERROR";
  return "CLIENT_ERROR";
}

export interface Endpoint {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  /** The `host` header as signed. */
  host: string;
}

/**
 * Where the client sends: its configured endpoint (dynalite locally), else the endpoint its rules
 * give for the region, FIPS and dual-stack settings, resolved once per container.
 */
export async function resolveEndpoint(config: DynamoDBClient["config"]): Promise<Endpoint> {
  if (config.endpoint) {
    const e = await config.endpoint();
    return {
      protocol: e.protocol,
      hostname: e.hostname,
      ...(e.port ? { port: e.port } : {}),
      path: e.path || "/",
      host: e.port ? `${e.hostname}:${e.port}` : e.hostname,
    };
  }
  const { url } = config.endpointProvider({
    Region: await config.region(),
    UseFIPS: await config.useFipsEndpoint(),
    UseDualStack: await config.useDualstackEndpoint(),
  });
  return {
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname || "/",
    host: url.host,
  };
}

interface SendOptions {
  abortSignal?: AbortSignal;
}

interface RetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<{ getRetryDelay(): number; getRetryCount(): number }>;
  refreshRetryTokenForRetry(
    token: unknown,
    info: RetryErrorInfo,
  ): Promise<{ getRetryDelay(): number; getRetryCount(): number }>;
  recordSuccess(token: unknown): void;
}

/** Where and how the direct calls go: the client's endpoint, region and retry settings. */
interface Route {
  endpoint: Endpoint;
  region: string;
  strategy: RetryStrategy;
  maxAttempts: number;
  /** The signing template of each operation's requests, made on its first call. */
  templates: Map<string, SigningTemplate>;
}

/** How the direct calls reach DynamoDB: the SDK handler's agents and its per-attempt timeouts. */
export interface DirectTransport {
  agents: { http: http.Agent; https: http.Agent };
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  /** Once per logical call, with the SDK's command name. */
  onCall: (commandName: string) => void;
}

/** The error the SDK's handler gives an aborted call: `AbortError`, the signal's reason its cause. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  const error = new Error(reason && !(reason instanceof Error) ? String(reason) : "Request aborted");
  error.name = "AbortError";
  if (reason instanceof Error) error.cause = reason;
  return error;
}

/**
 * A DynamoDBClient whose item commands are signed and sent directly (see the file comment), over
 * lib/http/client.ts with the agents the SDK's handler uses; the rest, and every command sent with
 * a callback, go through the SDK unchanged. Counts like the SDK path: `onCall` once per logical
 * call, with the SDK's command name.
 */
export class DirectDynamoDBClient extends DynamoDBClient {
  readonly #signer = new SigV4Signer();
  readonly #transport: DirectTransport;
  #resolved: Promise<Route> | undefined;
  #pool: ConnectionPool | undefined;
  #clockOffsetMs = 0;

  constructor(config: DynamoDBClientConfig, transport: DirectTransport) {
    super(config);
    this.#transport = transport;
  }

  override destroy(): void {
    super.destroy();
    this.#pool?.close();
  }

  // biome-ignore lint/suspicious/noExplicitAny: the SDK's overloaded `send`, narrowed at run time
  override send(command: any, optionsOrCb?: any, cb?: any): any {
    const direct = DIRECT.get(command?.constructor);
    if (direct === undefined || typeof optionsOrCb === "function" || cb !== undefined)
      return super.send(command, optionsOrCb, cb);
    this.#transport.onCall(direct.commandName);
    return this.#direct(
      direct.operation,
      command.input,
      (optionsOrCb as SendOptions | undefined)?.abortSignal,
    );
  }

  /** What every call needs of the client's configuration, resolved once (a failure is retried). */
  #route(): Promise<Route> {
    if (this.#resolved === undefined) {
      const config = this.config;
      this.#resolved = Promise.all([
        resolveEndpoint(config),
        config.region(),
        config.retryStrategy(),
        config.maxAttempts(),
      ]).then(([endpoint, region, strategy, maxAttempts]) => ({
        endpoint,
        region,
        // The SDK's own standard strategy (v2 interface): attempts, backoff and the retry quota.
        strategy: strategy as unknown as RetryStrategy,
        maxAttempts,
        templates: new Map(),
      }));
      this.#resolved.catch(() => {
        this.#resolved = undefined;
      });
    }
    return this.#resolved;
  }

  async #direct(operation: string, input: unknown, abortSignal: AbortSignal | undefined): Promise<unknown> {
    const route = await this.#route();
    const v2 = route.strategy;
    const body = JSON.stringify(input, toWire);
    let token = await v2.acquireInitialRetryToken("");
    let attempts = 0;
    let totalRetryDelay = 0;
    for (;;) {
      attempts++;
      try {
        const output = await this.#attempt(operation, route, body, abortSignal, attempts);
        v2.recordSuccess(token);
        (output.$metadata as Record<string, unknown>).attempts = attempts;
        (output.$metadata as Record<string, unknown>).totalRetryDelay = totalRetryDelay;
        return output;
      } catch (e) {
        if (abortSignal?.aborted) throw e === abortSignal.reason ? abortError(abortSignal) : e;
        const error = e instanceof Error ? e : new Error(String(e));
        try {
          token = await v2.refreshRetryTokenForRetry(token, {
            error,
            errorType: errorType(error),
          } as RetryErrorInfo);
        } catch {
          const failed = error as { $metadata?: Record<string, unknown> };
          failed.$metadata ??= {};
          const meta = failed.$metadata;
          meta.attempts = attempts;
          meta.totalRetryDelay = totalRetryDelay;
          throw error;
        }
        const delay = token.getRetryDelay();
        totalRetryDelay += delay;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async #attempt(
    operation: string,
    route: Route,
    body: string,
    abortSignal: AbortSignal | undefined,
    attempt: number,
  ): Promise<Record<string, unknown>> {
    const { endpoint, region } = route;
    const credentials = (await this.config.credentials()) as Credentials;
    let template = route.templates.get(operation);
    if (template === undefined) {
      template = new SigningTemplate({
        method: "POST",
        host: endpoint.host,
        path: endpoint.path,
        headers: { "content-type": CONTENT_TYPE, "x-amz-target": `${TARGET_PREFIX}${operation}` },
        region,
        service: SERVICE,
      });
      route.templates.set(operation, template);
    }
    const headers = this.#signer.signAs(template, body, credentials, Date.now() + this.#clockOffsetMs);
    headers["amz-sdk-request"] = `attempt=${attempt}; max=${route.maxAttempts}`;
    const response = await this.#connections(endpoint).request(
      { method: "POST", path: endpoint.path, headers, body },
      {
        signal: abortSignal,
        maxBytes: MAX_RESPONSE_BYTES,
        overflow: "fail",
        timeoutMs: this.#transport.requestTimeoutMs,
        connectTimeoutMs: this.#transport.connectionTimeoutMs,
      },
    );
    const text = response.body.toString("utf8");
    const status = response.status;
    const requestId = response.headers["x-amzn-requestid"];
    const $metadata = {
      httpStatusCode: status,
      ...(requestId ? { requestId } : {}),
      ...(response.headers["x-amz-id-2"] ? { extendedRequestId: response.headers["x-amz-id-2"] } : {}),
    };
    if (status >= 200 && status < 300) {
      const parsed = (
        text === "" ? {} : JSON.parse(text, text.includes('"B') ? fromWire : undefined)
      ) as Record<string, unknown>;
      return { $metadata, ...parsed };
    }
    throw this.#error(status, response.headers, text, $metadata);
  }

  #connections(endpoint: Endpoint): ConnectionPool {
    const https = endpoint.protocol === "https:";
    const port = endpoint.port ?? (https ? 443 : 80);
    const pool = this.#pool;
    if (pool && pool.origin.hostname === endpoint.hostname && pool.origin.port === port) return pool;
    const agent = https ? this.#transport.agents.https : this.#transport.agents.http;
    this.#pool = poolFor(agent, { https, hostname: endpoint.hostname, port });
    return this.#pool;
  }

  /** The service's error as the SDK would throw it: `name` the error code, `$fault`, `$metadata`. */
  #error(
    status: number,
    headers: Record<string, string>,
    text: string,
    $metadata: Record<string, unknown>,
  ): DynamoDBServiceException {
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      // not JSON: the status alone names it
    }
    const raw = String(headers["x-amzn-errortype"] ?? parsed.__type ?? parsed.code ?? "");
    const code = raw.split(":")[0]?.split("#").pop() || `Http${status}Error`;
    const message = String(parsed.message ?? parsed.Message ?? code);
    const meta: Record<string, unknown> = { ...$metadata };
    const serverDate = headers.date ? Date.parse(headers.date) : Number.NaN;
    if (
      Number.isFinite(serverDate) &&
      Math.abs(serverDate - (Date.now() + this.#clockOffsetMs)) >= CLOCK_SKEW_MS
    ) {
      this.#clockOffsetMs = serverDate - Date.now();
      meta.clockSkewCorrected = true;
    }
    const error = new DynamoDBServiceException({
      name: code,
      $fault: status >= 500 ? "server" : "client",
      $metadata: meta,
      message,
    });
    for (const [k, v] of Object.entries(parsed)) {
      if (k !== "__type" && k !== "message" && k !== "Message" && !(k in error))
        (error as unknown as Record<string, unknown>)[k] = v;
    }
    return error;
  }
}
