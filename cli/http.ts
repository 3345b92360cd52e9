/**
 * The HTTP side of `occ`: builds contract URLs, sends GETs with the bearer token, reads bounded
 * bodies and turns answers into data, ApiError (an error envelope) or TransportError (anything else).
 */

import { parseRetryAfter } from "../lib/api/values.ts";
import type { Authorizer } from "./auth.ts";
import { ApiError, type ApiErrorInfo, Interrupted, TransportError } from "./errors.ts";
import { decodeUtf8Lenient } from "./escape.ts";
import { rawMember } from "./raw-json.ts";

export type FetchFn = (input: URL, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  endpoint: URL;
  /** Adds the bearer token or the SigV4 signature. */
  authorize: Authorizer;
  fetch: FetchFn;
  /** Per-request client-side timeout; the server's own deadline is 10 s (api.md). */
  timeoutMs: number;
  now: () => number;
}

export interface JsonAnswer {
  data: unknown;
  /** The raw text of `data`, for verbatim `-o json` output. */
  rawData: string | undefined;
  requestId: string | undefined;
}

export interface DownloadAnswer {
  bytes: Uint8Array;
  filename: string | undefined;
  requestId: string | undefined;
}

const MAX_JSON_BYTES = 8 * 1024 * 1024;
const MAX_DOWNLOAD_BYTES = 16 * 1024 * 1024;
const USER_AGENT = "occ/0.1";

export type Query = Record<string, string | undefined>;

export class ApiClient {
  readonly #opts: ClientOptions;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
  }

  url(segments: readonly string[], query: Query = {}): URL {
    const url = new URL(this.#opts.endpoint.href);
    url.pathname = `${url.pathname.replace(/\/+$/, "")}/${segments.map(encodeURIComponent).join("/")}`;
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
    return url;
  }

  async getJson(segments: readonly string[], query: Query, signal: AbortSignal): Promise<JsonAnswer> {
    const { res, bytes, requestId } = await this.#get(
      segments,
      query,
      "application/json",
      MAX_JSON_BYTES,
      signal,
    );
    const text = decodeUtf8Lenient(bytes, { jsonString: true });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new TransportError(`HTTP ${res.status}: the server sent a response that is not JSON`);
    }
    if (!isObject(body) || !("data" in body))
      throw new TransportError(`HTTP ${res.status}: the server sent a response without data`);
    return {
      data: body.data,
      rawData: safeRaw(() => rawMember(text, "data")),
      requestId: metaRequestId(body) ?? requestId,
    };
  }

  async getDownload(segments: readonly string[], query: Query, signal: AbortSignal): Promise<DownloadAnswer> {
    const accept = "text/plain, application/json";
    const { res, bytes, requestId } = await this.#get(segments, query, accept, MAX_DOWNLOAD_BYTES, signal);
    const type = (res.headers.get("content-type") ?? "").toLowerCase();
    if (!/^text\/plain(\s*;|$)/.test(type))
      throw new TransportError("HTTP 200: the download is not text/plain; nothing was saved");
    return { bytes, filename: dispositionFilename(res.headers.get("content-disposition")), requestId };
  }

  /** A 200 answer's body (at most `maxBytes`) and request ID; any other status throws its ApiError. */
  async #get(
    segments: readonly string[],
    query: Query,
    accept: string,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<{ res: Response; bytes: Uint8Array; requestId: string | undefined }> {
    const res = await this.#send(this.url(segments, query), accept, signal);
    const requestId = headerRequestId(res);
    const bytes = await readCapped(res, maxBytes, signal);
    if (res.status !== 200) throw this.#apiError(res, bytes, requestId, segments);
    return { res, bytes, requestId };
  }

  async #send(url: URL, accept: string, signal: AbortSignal): Promise<Response> {
    const headers = await this.#authorize(url, { accept, "user-agent": USER_AGENT });
    const timeout = AbortSignal.timeout(this.#opts.timeoutMs);
    try {
      return await this.#opts.fetch(url, {
        method: "GET",
        headers,
        redirect: "error",
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (e) {
      if (signal.aborted) throw new Interrupted("interrupted");
      if (timeout.aborted)
        throw new TransportError(
          `no answer from ${url.origin} within ${Math.round(this.#opts.timeoutMs / 1000)}s`,
        );
      throw new TransportError(`cannot reach ${url.origin}: ${describeNetworkError(e)}`);
    }
  }

  async #authorize(url: URL, headers: Record<string, string>): Promise<Record<string, string>> {
    try {
      return await this.#opts.authorize(url, headers);
    } catch (e) {
      // The credential chain's own words (no secret is in them) say what it looked for.
      const why = e instanceof Error ? e.message.split("\n")[0]!.slice(0, 300) : "unknown error";
      throw new TransportError(`could not sign the request with AWS credentials: ${why}`);
    }
  }

  #apiError(
    res: Response,
    bytes: Uint8Array,
    headerId: string | undefined,
    segments: readonly string[],
  ): ApiError {
    const info: ApiErrorInfo = {
      route: segments.join("/"),
      status: res.status,
      code: undefined,
      message: undefined,
      requestId: headerId,
      retryAfterSeconds: parseRetryAfter(res.headers.get("retry-after"), this.#opts.now()),
      details: [],
    };
    try {
      const body = JSON.parse(decodeUtf8Lenient(bytes, { jsonString: true })) as unknown;
      // API Gateway's own answers (authorizer, throttling, integration failures) are `{"message": …}`.
      if (isObject(body) && typeof body.message === "string") info.message = body.message.slice(0, 200);
      if (isObject(body) && isObject(body.error)) {
        const err = body.error;
        if (typeof err.code === "string") info.code = err.code;
        if (typeof err.message === "string") info.message = err.message;
        if (Array.isArray(err.details))
          for (const d of err.details.slice(0, 32))
            if (isObject(d) && typeof d.path === "string" && typeof d.code === "string")
              info.details.push({ path: d.path, code: d.code });
      }
      info.requestId = metaRequestId(body) ?? headerId;
    } catch {
      // Not an envelope (a proxy page, an empty body): status alone is reported.
    }
    return new ApiError(info);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function safeRaw(f: () => string | undefined): string | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

function headerRequestId(res: Response): string | undefined {
  return res.headers.get("x-request-id") ?? res.headers.get("apigw-requestid") ?? undefined;
}

function metaRequestId(body: unknown): string | undefined {
  if (isObject(body) && isObject(body.meta) && typeof body.meta.requestId === "string")
    return body.meta.requestId;
  return undefined;
}

/** The `filename` of a content-disposition header (quoted or token form), unsanitized. */
export function dispositionFilename(header: string | null): string | undefined {
  if (header === null) return undefined;
  const quoted = /filename="((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted !== null) return quoted[1]!.replace(/\\(.)/g, "$1");
  const token = /filename=([^;\s]+)/i.exec(header);
  return token?.[1];
}

async function readCapped(res: Response, max: number, signal: AbortSignal): Promise<Uint8Array> {
  if (res.body === null) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        throw new TransportError(`HTTP ${res.status}: the response is larger than ${max} bytes`);
      }
      chunks.push(value);
    }
  } catch (e) {
    if (e instanceof TransportError) throw e;
    if (signal.aborted) throw new Interrupted("interrupted");
    throw new TransportError(`HTTP ${res.status}: the response was cut off (${describeNetworkError(e)})`);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function describeNetworkError(e: unknown): string {
  let cur: unknown = e;
  let innermost = e instanceof Error ? e.message : "network error";
  for (let depth = 0; depth < 4 && cur instanceof Error; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]{1,40}$/.test(code)) return code;
    innermost = cur.message;
    cur = cur.cause;
  }
  return innermost.slice(0, 200);
}
