/**
 * Keeps stdout for benchmark rows: while a benchmark runs the local stack in-process, the
 * handlers' structured log lines (one summary line per request) are taken off stdout and handed
 * to a callback instead, then stdout is restored.
 */

export interface RequestSummary {
  status: number;
  durationMs: number;
  dynamoCalls?: number;
  clusterCalls?: number;
  code?: string;
}

/** The handler's per-request summary line (lib/http/handler.ts), or null for any other line. */
export function parseRequestSummary(line: string): RequestSummary | null {
  if (!line.startsWith("{")) return null;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    if (o.message !== "request" || typeof o.status !== "number" || typeof o.durationMs !== "number")
      return null;
    return {
      status: o.status,
      durationMs: o.durationMs,
      ...(typeof o.dynamoCalls === "number" ? { dynamoCalls: o.dynamoCalls } : {}),
      ...(typeof o.clusterCalls === "number" ? { clusterCalls: o.clusterCalls } : {}),
      ...(typeof o.code === "string" ? { code: o.code } : {}),
    };
  } catch {
    return null;
  }
}

/** Runs `work` with every complete stdout line passed to `onLine` rather than printed. */
export async function captureStdout<T>(onLine: (line: string) => void, work: () => Promise<T>): Promise<T> {
  const stdout = process.stdout;
  const original = stdout.write;
  let pending = "";
  const write = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    pending += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      onLine(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf("\n");
    }
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
  stdout.write = write as typeof stdout.write;
  try {
    return await work();
  } finally {
    stdout.write = original;
    if (pending !== "") onLine(pending);
  }
}
