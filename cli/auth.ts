/**
 * How `occ` proves who it is (docs/: `--auth token|iam`): a bearer token, or an AWS Signature
 * Version 4 signature (service `execute-api`) made with credentials from the AWS default chain,
 * for an API deployed with the IAM authorizer.
 */
import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import type { AwsCredentialIdentity, Checksum, SourceData } from "@smithy/types";
import { UsageError } from "./errors.ts";

export type AuthMode = "token" | "iam";
export const AUTH_MODES: readonly AuthMode[] = ["token", "iam"];

export type CredentialSource = () => Promise<AwsCredentialIdentity>;

/** Adds the proof of identity to a GET's headers (returns the headers to send). */
export type Authorizer = (url: URL, headers: Record<string, string>) => Promise<Record<string, string>>;

export const SIGV4_SERVICE = "execute-api";

const EXECUTE_API_HOST =
  /^[a-z0-9]{1,64}\.execute-api\.([a-z]{2}(?:-[a-z]+)+-\d{1,2})\.amazonaws\.com(?:\.cn)?$/;
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

/** The region of an `execute-api` endpoint host, or undefined for any other host (a custom domain). */
export function regionFromHost(hostname: string): string | undefined {
  return EXECUTE_API_HOST.exec(hostname.toLowerCase())?.[1];
}

export function parseRegion(value: string): string {
  if (!REGION.test(value)) throw new UsageError("--region must be an AWS region such as eu-west-1");
  return value;
}

/** SHA-256 (or HMAC-SHA-256 with a secret) over node:crypto, in the shape the signer expects. */
class NodeSha256 implements Checksum {
  readonly #secret: SourceData | undefined;
  #hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.#secret = secret;
    this.#hash = this.#fresh();
  }
  #fresh(): Hash | Hmac {
    return this.#secret === undefined ? createHash("sha256") : createHmac("sha256", toBytes(this.#secret));
  }
  update(data: Uint8Array | string): void {
    this.#hash.update(typeof data === "string" ? Buffer.from(data, "utf8") : data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }
  reset(): void {
    this.#hash = this.#fresh();
  }
}

function toBytes(data: SourceData): Uint8Array {
  if (typeof data === "string") return Buffer.from(data, "utf8");
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/**
 * A CommonJS package's exports however it was imported: Node's interop and a whole bundle give
 * them as named exports, a lazy chunk of the split `occ` build as its `default` export.
 */
function commonJsExports<T extends object>(mod: T): T {
  const d = (mod as { default?: unknown }).default;
  return (d !== null && typeof d === "object" ? d : mod) as T;
}

export function bearerAuthorizer(token: string | undefined): Authorizer {
  return async (_url, headers) =>
    token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` };
}

/**
 * Signs each request with SigV4. Credentials are resolved on the first request and then reused;
 * the chain itself refreshes expiring ones.
 */
export function sigv4Authorizer(options: {
  region: string;
  credentials: CredentialSource;
  now: () => number;
}): Authorizer {
  // Loaded on the first signed request: a bearer-token run (and `--help`) never pays for it.
  let signer: import("@smithy/signature-v4").SignatureV4 | undefined;
  return async (url, headers) => {
    if (signer === undefined) {
      const { SignatureV4 } = commonJsExports(await import("@smithy/signature-v4"));
      signer = new SignatureV4({
        service: SIGV4_SERVICE,
        region: options.region,
        credentials: options.credentials,
        sha256: NodeSha256,
      });
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const signed = await signer.sign(
      {
        method: "GET",
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === "" ? {} : { port: Number(url.port) }),
        path: url.pathname,
        query,
        headers: { ...headers, host: url.host },
      },
      { signingDate: new Date(options.now()) },
    );
    const out: Record<string, string> = {};
    // fetch sets Host itself; every other signed header is sent as signed.
    for (const [k, v] of Object.entries(signed.headers)) if (k.toLowerCase() !== "host") out[k] = v;
    return out;
  };
}

/** The AWS default credential chain, loaded only when `--auth iam` is used (it is large). */
export function defaultCredentials(): CredentialSource {
  let provider: CredentialSource | undefined;
  return async () => {
    if (provider === undefined) {
      const { defaultProvider } = commonJsExports(await import("@aws-sdk/credential-provider-node"));
      // Memoized by the SDK: refreshed only when the credentials near expiry.
      provider = defaultProvider();
    }
    return provider();
  };
}
