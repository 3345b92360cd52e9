/**
 * Validation of command-line values, before any request (exit 2 on failure). Rules mirror the
 * HTTP contract (api.md) so the server never has to reject what the CLI let through.
 */
import { DNS_LABEL, ID_PATTERN, isDnsSubdomain } from "../lib/api/ids.ts";
import { MAX_SINCE_SECONDS, MAX_TAIL_LINES, type MIN_LEVELS, type SOURCE_IDS } from "../lib/api/values.ts";
import { readRfc3339, utcWithFraction, wholeSecondMillis } from "../lib/rfc3339.ts";
import { UsageError } from "./errors.ts";

export type Source = (typeof SOURCE_IDS)[number];
export type MinLevel = (typeof MIN_LEVELS)[number];

const MIN_SINCE_SECONDS = 1;

/** Shows a user-supplied value in an error message without letting it play tricks. */
export function quoteArg(value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return JSON.stringify(shown).replace(/[\p{Cf}\p{Zl}\p{Zp}\u007f-\u009f]/gu, (c) => {
    const cp = c.codePointAt(0) ?? 0;
    return `\\u{${cp.toString(16).toUpperCase()}}`;
  });
}

export function parseId(what: string, value: string): string {
  if (!ID_PATTERN.test(value))
    throw new UsageError(
      `${what} ${quoteArg(value)} is not a valid ID (lowercase letters, digits, '-' and '_', 1-64 characters, starting and ending with a letter or digit)`,
    );
  return value;
}

export function parsePod(value: string): string {
  if (!isDnsSubdomain(value))
    throw new UsageError(
      `--pod ${quoteArg(value)} is not a valid Pod name (a DNS subdomain, 1-253 characters)`,
    );
  return value;
}

export function parseContainer(value: string): string {
  if (!DNS_LABEL.test(value))
    throw new UsageError(
      `-c ${quoteArg(value)} is not a valid container name (a DNS label, 1-63 characters)`,
    );
  return value;
}

export function parseTail(value: string): number {
  const n = /^[0-9]{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_TAIL_LINES)
    throw new UsageError(`--tail ${quoteArg(value)} must be a whole number from 1 to ${MAX_TAIL_LINES}`);
  return n;
}

const UNIT_NANOS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};
const DURATION_PART = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go-style duration (`30s`, `10m`, `2h`, `1h30m`, `1.5h`, `500ms`) into whole seconds,
 * rounded up like `kubectl logs --since`, and bounded to 1 s – 24 h.
 */
export function parseSince(value: string): number {
  const fail = (why: string) =>
    new UsageError(`--since ${quoteArg(value)} ${why} (examples: 30s, 10m, 2h, 1h30m; from 1s to 24h)`);
  if (value.length === 0 || value.length > 64) throw fail("is not a duration");
  let nanos = 0;
  let i = 0;
  while (i < value.length) {
    DURATION_PART.lastIndex = i;
    const m = DURATION_PART.exec(value);
    if (m === null) throw fail("is not a duration");
    nanos += Number(m[1]) * UNIT_NANOS[m[2]!]!;
    i = DURATION_PART.lastIndex;
  }
  const seconds = Math.ceil(Math.round(nanos) / 1e9);
  if (!Number.isFinite(seconds) || seconds < MIN_SINCE_SECONDS) throw fail("is too short");
  if (seconds > MAX_SINCE_SECONDS) throw fail("is too long");
  return seconds;
}

/**
 * Parses an RFC 3339 time into the UTC form the API takes (`…Z`, fraction digits kept). Offsets are
 * converted; an impossible calendar date (Feb 30, hour 24) is refused rather than normalized.
 */
export function parseSinceTime(value: string, now: number): string {
  const fail = (why: string) =>
    new UsageError(`--since-time ${quoteArg(value)} ${why} (example: 2026-11-29T12:00:00Z)`);
  const t = readRfc3339(value);
  if (t === null) throw fail("is not an RFC 3339 time");
  if (!t.realDate || t.year < 1970) throw fail("is not a valid date and time");
  if (!t.realOffset) throw fail("has an invalid offset");
  const utc = wholeSecondMillis(t);
  if (utc > now) throw fail("is in the future");
  return utcWithFraction(utc, t.fraction);
}

/** The API endpoint: an absolute http(s) URL without query or fragment; trailing slashes dropped. */
export function parseEndpoint(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const shown = value.includes("@") ? "" : ` ${quoteArg(value)}`;
    throw new UsageError(`--endpoint${shown} is not a URL (example: https://api.example.com)`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new UsageError(`--endpoint ${quoteArg(value)} must be an http or https URL`);
  // Never echo an endpoint that carries credentials: pass the token with --token or OCC_TOKEN.
  if (url.username !== "" || url.password !== "")
    throw new UsageError("--endpoint must not carry credentials (pass the token with --token or OCC_TOKEN)");
  if (url.search !== "" || url.hash !== "")
    throw new UsageError(`--endpoint ${quoteArg(value)} must not carry a query or a fragment`);
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}

/** True for hosts where plain http cannot leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** A bearer token must be one header-safe word. */
export function parseToken(value: string): string {
  if (!/^[\x21-\x7e]{1,8192}$/.test(value))
    throw new UsageError("--token must be printable ASCII without spaces (1-8192 characters)");
  return value;
}
