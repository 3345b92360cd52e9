/**
 * OpenShell connection documents: a gateway's `connectionRef` (`secretsmanager:<name>` under
 * `runtime-logs/openshell/`, or `file:<path>` locally) resolves to JSON `{endpoint, caPem?,
 * clientCertPem?, clientKeyPem?, token?, allowPlaintextLoopback?}`. Documents are validated, then
 * cached per container for 5 minutes like kubeconfigs (lib/secret-cache.ts: a failed refresh keeps
 * the last good document and backs off). Plaintext is refused unless the endpoint is
 * loopback and the document allows it. Errors name the gateway, never document contents.
 */
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { z } from "zod";
import { SecretCache } from "../secret-cache.ts";
import { gatewayUnavailable } from "./errors.ts";
import type { GatewayAuth } from "./types.ts";

/** Secrets Manager names a connection document may have (the functions are granted only these). */
export const OPENSHELL_SECRET_PREFIX = "runtime-logs/openshell/";
export const CONNECTION_CACHE_MS = 5 * 60_000;
const MAX_DOCUMENT_CHARS = 64 * 1024;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

/** A validated connection: where to dial and how to prove who we are. */
export interface OpenShellConnection {
  /** `https://host:port` or, for allowed loopback plaintext, `http://host:port`. */
  baseUrl: string;
  auth: GatewayAuth;
  caPem?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** Identifies the document's content (cache key of the client built from it). */
  fingerprint: string;
}

const pem = (label: RegExp) =>
  z
    .string()
    .max(32 * 1024)
    .refine((v) => label.test(v));
const CERT = /-----BEGIN CERTIFICATE-----/;
const KEY = /-----BEGIN ([A-Z]+ )?PRIVATE KEY-----/;

const documentSchema = z.strictObject({
  endpoint: z.string().min(1).max(300),
  caPem: pem(CERT).optional(),
  clientCertPem: pem(CERT).optional(),
  clientKeyPem: pem(KEY).optional(),
  // Sent as `authorization: Bearer <token>`: visible ASCII only, so it cannot split a header.
  token: z
    .string()
    .regex(/^[\x21-\x7e]{1,4096}$/)
    .optional(),
  allowPlaintextLoopback: z.boolean().optional(),
});

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253}):([0-9]{1,5})$/;

export function isLoopbackHost(host: string): boolean {
  const h = host.startsWith("[") ? host.slice(1, -1) : host;
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1";
  return false;
}

/** Validates a connection document (JSON text). Throws a reason (never contents). */
export function parseConnectionDocument(text: string): OpenShellConnection {
  if (text.length > MAX_DOCUMENT_CHARS) throw new Error("document too large");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error("document is not JSON");
  }
  const parsed = documentSchema.safeParse(raw);
  if (!parsed.success) throw new Error("document does not have the documented shape");
  const d = parsed.data;
  const m = /^(https?):\/\/(.*)$/.exec(d.endpoint);
  const scheme = m?.[1] ?? "https";
  const hostPort = HOST_PORT.exec(m?.[2] ?? d.endpoint);
  if (!hostPort) throw new Error("endpoint is not host:port");
  const port = Number(hostPort[2]);
  if (port < 1 || port > 65535) throw new Error("endpoint port out of range");
  const host = hostPort[1]!;
  if ((d.clientCertPem === undefined) !== (d.clientKeyPem === undefined)) {
    throw new Error("client certificate and key come together");
  }
  const plaintext = scheme === "http";
  if (plaintext && !(d.allowPlaintextLoopback === true && isLoopbackHost(host))) {
    throw new Error("plaintext is allowed only to a loopback endpoint whose document allows it");
  }
  if (plaintext && (d.caPem !== undefined || d.clientCertPem !== undefined)) {
    throw new Error("TLS material on a plaintext endpoint");
  }
  const auth: GatewayAuth = plaintext ? "plaintext" : d.clientCertPem !== undefined ? "mtls" : "token";
  if (auth === "token" && d.token === undefined)
    throw new Error("TLS endpoint without a client certificate or token");
  const out: OpenShellConnection = {
    baseUrl: `${plaintext ? "http" : "https"}://${host}:${port}`,
    auth,
    fingerprint: "",
  };
  if (d.caPem !== undefined) out.caPem = d.caPem;
  if (d.clientCertPem !== undefined) out.clientCertPem = d.clientCertPem;
  if (d.clientKeyPem !== undefined) out.clientKeyPem = d.clientKeyPem;
  if (d.token !== undefined) out.token = d.token;
  out.fingerprint = JSON.stringify([out.baseUrl, d.caPem, d.clientCertPem, d.clientKeyPem, d.token]);
  return out;
}

export interface ConnectionStore {
  get(gatewayId: string, connectionRef: string): Promise<OpenShellConnection>;
}

export interface ConnectionStoreOptions {
  /** Needed for `secretsmanager:` refs. */
  secrets?: Pick<SecretsManagerClient, "send">;
  now?: () => number;
  /** [0, 1): jitter of the refresh backoff. */
  random?: () => number;
}

export class DefaultConnectionStore implements ConnectionStore {
  readonly #cache: SecretCache<OpenShellConnection>;

  constructor(private readonly options: ConnectionStoreOptions = {}) {
    this.#cache = new SecretCache({
      ttlMs: CONNECTION_CACHE_MS,
      ...(options.now ? { now: options.now } : {}),
      ...(options.random ? { random: options.random } : {}),
    });
  }

  get(gatewayId: string, connectionRef: string): Promise<OpenShellConnection> {
    return this.#cache.get(`${gatewayId}\0${connectionRef}`, () => this.#load(gatewayId, connectionRef));
  }

  async #load(gatewayId: string, ref: string): Promise<OpenShellConnection> {
    const colon = ref.indexOf(":");
    const scheme = colon > 0 ? ref.slice(0, colon) : "";
    const target = ref.slice(colon + 1);
    let text: string;
    if (scheme === "file") text = await this.#file(gatewayId, target);
    else if (scheme === "secretsmanager") text = await this.#secret(gatewayId, target);
    else throw gatewayUnavailable(gatewayId, "connection reference has an unsupported scheme");
    try {
      return parseConnectionDocument(text);
    } catch (e) {
      throw gatewayUnavailable(gatewayId, `connection document rejected: ${(e as Error).message}`);
    }
  }

  async #file(gatewayId: string, file: string): Promise<string> {
    if (file.length === 0 || file.includes("\0")) {
      throw gatewayUnavailable(gatewayId, "connection file reference is malformed");
    }
    try {
      return await readFile(file, "utf8");
    } catch {
      throw gatewayUnavailable(gatewayId, "connection file cannot be read");
    }
  }

  async #secret(gatewayId: string, name: string): Promise<string> {
    if (
      !SECRET_NAME.test(name) ||
      !name.startsWith(OPENSHELL_SECRET_PREFIX) ||
      name.length === OPENSHELL_SECRET_PREFIX.length ||
      name.split("/").some((part) => part === ".." || part === ".")
    ) {
      throw gatewayUnavailable(gatewayId, "connection secret name is outside the allowed prefix");
    }
    const secrets = this.options.secrets;
    if (!secrets) throw gatewayUnavailable(gatewayId, "secret store is not configured");
    let text: string | undefined;
    try {
      text = (await secrets.send(new GetSecretValueCommand({ SecretId: name }))).SecretString;
    } catch {
      throw gatewayUnavailable(gatewayId, "connection secret cannot be read");
    }
    if (typeof text !== "string" || text.length === 0) {
      throw gatewayUnavailable(gatewayId, "connection secret holds no document");
    }
    return text;
  }
}

export const createConnectionStore = (options: ConnectionStoreOptions = {}): ConnectionStore =>
  new DefaultConnectionStore(options);
