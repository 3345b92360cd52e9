/**
 * A follower's side of the logs route over real HTTP (docs/api.md § Log page): one poll with the
 * local stack's `Bearer local:<principal>`, timed from request to parsed body.
 */
import { performance } from "node:perf_hooks";
import { TARGET } from "./scenario.ts";

export interface PageRecord {
  type: "line" | "gap" | "withheld";
  time: string | null;
  message?: string;
  reason?: string;
}

export interface LogPageData {
  records: PageRecord[];
  cursor: string | null;
  truncated: boolean;
  withheld: number;
}

export type PollOutcome =
  | { ok: true; status: 200; ms: number; requestId: string | null; page: LogPageData }
  | { ok: false; status: number; ms: number; requestId: string | null; code: string };

export function logsUrl(apiUrl: string): string {
  const t = TARGET;
  return `${apiUrl}/namespaces/${t.namespaceId}/agents/${t.agentId}/deployments/${t.deploymentId}/runtime/logs`;
}

export interface PollOptions {
  principal: string;
  cursor: string | null;
  tailLines?: number;
  signal?: AbortSignal;
}

export async function pollLogs(url: string, opts: PollOptions): Promise<PollOutcome> {
  const query = new URLSearchParams({ source: "gateway" });
  if (opts.cursor !== null) query.set("cursor", opts.cursor);
  else if (opts.tailLines !== undefined) query.set("tailLines", String(opts.tailLines));
  const started = performance.now();
  let status = 0;
  let requestId: string | null = null;
  try {
    const res = await fetch(`${url}?${query}`, {
      headers: { authorization: `Bearer local:${opts.principal}` },
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    status = res.status;
    requestId = res.headers.get("x-request-id");
    const body = (await res.json()) as { data?: LogPageData; error?: { code?: string } };
    const ms = performance.now() - started;
    if (status === 200 && body.data && Array.isArray(body.data.records)) {
      return { ok: true, status: 200, ms, requestId, page: body.data };
    }
    return { ok: false, status, ms, requestId, code: body.error?.code ?? "MALFORMED_BODY" };
  } catch (error) {
    const code = error instanceof Error ? error.name : "FETCH_FAILED";
    return { ok: false, status, ms: performance.now() - started, requestId, code };
  }
}
