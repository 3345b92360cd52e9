/**
 * Where the console runs. The local stack serves it on loopback; only there does it ask for
 * `/__local/principals` and accept the `?poll=<ms>` test hook. Behind CloudFront neither exists.
 */
export interface ConsoleConfig {
  local: boolean;
  pollMs: number;
}

export const DEFAULT_POLL_MS = 2000;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export function readConfig(loc: { hostname: string; search: string }): ConsoleConfig {
  const local = LOOPBACK.has(loc.hostname);
  let pollMs = DEFAULT_POLL_MS;
  if (local) {
    const raw = new URLSearchParams(loc.search).get("poll");
    if (raw && /^\d{2,5}$/.test(raw)) pollMs = Math.min(60_000, Math.max(50, Number(raw)));
  }
  return { local, pollMs };
}
