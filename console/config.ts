/**
 * Where the console runs. The local stack serves it on loopback; only there does it ask for
 * `/__local/principals` and accept the `?poll=<ms>` and `?status=<ms>` test hooks (how often logs
 * are followed and the status re-read). Behind CloudFront neither exists.
 */
export interface ConsoleConfig {
  local: boolean;
  pollMs: number;
  statusMs: number;
}

export const DEFAULT_POLL_MS = 2000;
export const DEFAULT_STATUS_MS = 15_000;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

function hook(q: URLSearchParams, name: string, fallback: number): number {
  const raw = q.get(name);
  return raw && /^\d{2,5}$/.test(raw) ? Math.min(60_000, Math.max(50, Number(raw))) : fallback;
}

export function readConfig(loc: { hostname: string; search: string }): ConsoleConfig {
  const local = LOOPBACK.has(loc.hostname);
  if (!local) return { local, pollMs: DEFAULT_POLL_MS, statusMs: DEFAULT_STATUS_MS };
  const q = new URLSearchParams(loc.search);
  return { local, pollMs: hook(q, "poll", DEFAULT_POLL_MS), statusMs: hook(q, "status", DEFAULT_STATUS_MS) };
}
