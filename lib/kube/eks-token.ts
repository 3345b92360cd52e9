/**
 * EKS bearer tokens minted in-process (what `aws eks get-token` prints; Lambda has no `aws` binary):
 * a SigV4-presigned STS GetCallerIdentity URL carrying the signed `x-k8s-aws-id` header,
 * base64url without padding, prefixed `k8s-aws-v1.`. EKS accepts such a token for 15 minutes
 * after signing; it is cached until shortly before that.
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@aws-sdk/types";
import { SignatureV4 } from "@smithy/signature-v4";

/** Presigned URLs expire after 60 s as the AWS CLI signs them; EKS itself honours 15 minutes. */
export const PRESIGN_EXPIRES_SECONDS = 60;
export const TOKEN_VALIDITY_MS = 15 * 60_000;
/** Refresh this long before the validity ends, so a token never expires mid-request. */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;

export interface EksTokenRequest {
  /** The cluster name (or, for `--cluster-id`, the local cluster's id): the `x-k8s-aws-id` value. */
  clusterName: string;
  region: string;
}

export interface EksToken {
  token: string;
  /** Epoch ms after which the token must not be used (refresh margin already applied). */
  expiresAt: number;
}

export function stsHost(region: string): string {
  return `sts.${region}.amazonaws.com`;
}

const toBase64Url = (value: string): string =>
  Buffer.from(value, "utf8").toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

const encodeQuery = (query: Record<string, string | string[] | null>): string =>
  Object.keys(query)
    .sort()
    .flatMap((key) => {
      const value = query[key];
      const values = Array.isArray(value) ? value : value == null ? [] : [value];
      return values.map((v) => `${encodeRfc3986(key)}=${encodeRfc3986(v)}`);
    })
    .join("&");

const encodeRfc3986 = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Mints one token at `now` with the given credentials. Pure apart from hashing. */
export async function mintEksToken(
  request: EksTokenRequest,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
  now: number,
): Promise<EksToken> {
  const host = stsHost(request.region);
  const signer = new SignatureV4({ credentials, region: request.region, service: "sts", sha256: Sha256 });
  const presigned = await signer.presign(
    {
      method: "GET",
      protocol: "https:",
      hostname: host,
      path: "/",
      query: { Action: "GetCallerIdentity", Version: "2011-06-15" },
      headers: { host, "x-k8s-aws-id": request.clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(now) },
  );
  const url = `https://${host}/?${encodeQuery(presigned.query ?? {})}`;
  return {
    token: `k8s-aws-v1.${toBase64Url(url)}`,
    expiresAt: now + TOKEN_VALIDITY_MS - TOKEN_REFRESH_MARGIN_MS,
  };
}

/** Caches one token per (cluster, region) until its refresh time; concurrent callers share a mint. */
export class EksTokenCache {
  readonly #entries = new Map<string, Promise<EksToken>>();

  constructor(
    private readonly credentials: AwsCredentialIdentityProvider,
    private readonly now: () => number,
  ) {}

  async get(request: EksTokenRequest): Promise<string> {
    const key = `${request.region}\0${request.clusterName}`;
    const cached = this.#entries.get(key);
    if (cached) {
      const token = await cached.catch(() => undefined);
      if (token && this.now() < token.expiresAt) return token.token;
      if (this.#entries.get(key) === cached) this.#entries.delete(key);
    }
    const pending = this.#entries.get(key) ?? mintEksToken(request, this.credentials, this.now());
    this.#entries.set(key, pending);
    try {
      return (await pending).token;
    } catch (e) {
      if (this.#entries.get(key) === pending) this.#entries.delete(key);
      throw e;
    }
  }
}
