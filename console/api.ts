/**
 * The console's HTTP client for api.md: same-origin requests with `Authorization: Bearer <token>`,
 * the success envelope unwrapped, and every failure turned into one `ApiError` carrying the
 * contract code, the request ID and `Retry-After`. Response text is never interpreted as markup.
 */

import type { z } from "zod";
import type { logQuerySchema } from "../lib/api/schemas.ts";
import { parseRetryAfter as parseContractRetryAfter } from "../lib/api/values.ts";
import type { Deployment, DeploymentPath, LogPage, Runtime, SourceId } from "./types.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The api.md code, or `NETWORK` / `HTTP_<status>` when the body is not the error envelope. */
    readonly code: string,
    readonly requestId: string | null,
    readonly retryAfterSeconds: number | null,
  ) {
    super(code);
    this.name = "ApiError";
  }
}

/** A request stopped by a selection change; never shown. */
export class Aborted extends Error {
  override name = "Aborted";
}

export type DeploymentRef = DeploymentPath;

export interface LogSelection {
  source: SourceId;
  pod: string | null;
  /** A container other than the source's main one (an init container); null reads the main one. */
  container: string | null;
  previous: boolean;
}

export interface DownloadedFile {
  blob: Blob;
  filename: string;
  requestId: string | null;
}

const seg = encodeURIComponent;

export const deploymentsPath = (namespaceId: string, agentId: string) =>
  `/namespaces/${seg(namespaceId)}/agents/${seg(agentId)}/deployments`;

export const runtimePath = (d: DeploymentRef) =>
  `${deploymentsPath(d.namespaceId, d.agentId)}/${seg(d.deploymentId)}/runtime`;

/** A parameter of the contract's log query (its zod schema names them; nothing else is sent). */
type LogParam = keyof z.input<typeof logQuerySchema>;

/** The closed log query: only the parameters the contract allows, never `sinceSeconds` with a cursor. */
export function logQuery(sel: LogSelection, cursor: string | null): URLSearchParams {
  const q = new URLSearchParams();
  const set = (name: LogParam, value: string) => q.set(name, value);
  set("source", sel.source);
  if (sel.source !== "sandbox") {
    if (sel.pod) set("pod", sel.pod);
    if (sel.pod && sel.container) set("container", sel.container);
    if (sel.previous) set("previous", "true");
  }
  if (cursor) set("cursor", cursor);
  return q;
}

/** `Retry-After` as whole seconds ≥ 1, or null when absent or unparsable. */
export function parseRetryAfter(value: string | null): number | null {
  // Delta-seconds only: an HTTP date would be read against this browser's clock, not the server's.
  const seconds = parseContractRetryAfter(value);
  return seconds === undefined ? null : Math.max(1, seconds);
}

/** The filename of `content-disposition: attachment; filename="…"`, reduced to safe characters. */
export function attachmentFilename(header: string | null, fallback: string): string {
  const match = header ? /filename="([^"]{1,255})"/i.exec(header) : null;
  const name = (match?.[1] ?? "").replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "");
  return name.length > 0 ? name : fallback;
}

async function failure(response: Response): Promise<ApiError> {
  let code = `HTTP_${response.status}`;
  let requestId = response.headers.get("x-request-id");
  if ((response.headers.get("content-type") ?? "").includes("application/json")) {
    try {
      const body = (await response.json()) as { error?: { code?: unknown }; meta?: { requestId?: unknown } };
      if (typeof body.error?.code === "string" && /^[A-Z_]{1,64}$/.test(body.error.code))
        code = body.error.code;
      if (typeof body.meta?.requestId === "string") requestId = body.meta.requestId;
    } catch {
      // Not the envelope: the status alone speaks.
    }
  }
  return new ApiError(response.status, code, requestId, parseRetryAfter(response.headers.get("retry-after")));
}

export class ApiClient {
  constructor(
    private readonly token: () => string | null,
    private readonly base = "",
  ) {}

  /** Every request the console makes goes through here. */
  private async send(path: string, signal?: AbortSignal): Promise<Response> {
    const token = this.token();
    const init: RequestInit = {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      cache: "no-store",
      credentials: "omit",
      ...(signal ? { signal } : {}),
    };
    try {
      return await fetch(`${this.base}${path}`, init);
    } catch {
      if (signal?.aborted) throw new Aborted();
      throw new ApiError(0, "NETWORK", null, null);
    }
  }

  private async json<T>(path: string, signal?: AbortSignal): Promise<{ data: T; requestId: string | null }> {
    const response = await this.send(path, signal);
    if (!response.ok) throw await failure(response);
    try {
      const body = (await response.json()) as { data: T; meta?: { requestId?: string } };
      return { data: body.data, requestId: body.meta?.requestId ?? response.headers.get("x-request-id") };
    } catch {
      if (signal?.aborted) throw new Aborted();
      throw new ApiError(response.status, "MALFORMED_RESPONSE", response.headers.get("x-request-id"), null);
    }
  }

  deployments(namespaceId: string, agentId: string, signal?: AbortSignal) {
    return this.json<Deployment[]>(deploymentsPath(namespaceId, agentId), signal);
  }

  runtime(d: DeploymentRef, signal?: AbortSignal) {
    return this.json<Runtime>(runtimePath(d), signal);
  }

  logs(d: DeploymentRef, sel: LogSelection, cursor: string | null, signal?: AbortSignal) {
    return this.json<LogPage>(`${runtimePath(d)}/logs?${logQuery(sel, cursor)}`, signal);
  }

  /** Only a 200 `text/plain` body is a file; anything else is an error, never saved. */
  async download(d: DeploymentRef, sel: LogSelection, signal?: AbortSignal): Promise<DownloadedFile> {
    const response = await this.send(`${runtimePath(d)}/logs/download?${logQuery(sel, null)}`, signal);
    const type = response.headers.get("content-type") ?? "";
    if (response.status !== 200) throw await failure(response);
    if (!type.toLowerCase().startsWith("text/plain"))
      throw new ApiError(response.status, "MALFORMED_RESPONSE", response.headers.get("x-request-id"), null);
    const fallback = `${d.agentId}-${d.deploymentId}-${sel.source}.log`;
    return {
      blob: new Blob([await response.arrayBuffer()], { type: "text/plain;charset=utf-8" }),
      filename: attachmentFilename(response.headers.get("content-disposition"), fallback),
      requestId: response.headers.get("x-request-id"),
    };
  }
}
