/**
 * The log query and path rules of schemas.ts as straight code, for the query every log poll sends:
 * a query this accepts is one `logQuerySchema` (or `downloadQuerySchema`) accepts, with the same
 * output, without zod's per-field machinery (docs/quality.md P4). Anything it does not accept, it
 * leaves to zod (null), so every 400 and its `details` still come from the schemas, which stay the
 * definition: the tests check this parser against them on generated queries.
 */

import type { SourceId } from "../domain.ts";
import { isRfc3339Utc } from "../rfc3339.ts";
import { DNS_LABEL, DNS_SUBDOMAIN, ID_PATTERN, MAX_DNS_SUBDOMAIN } from "./ids.ts";
import { MAX_SINCE_SECONDS, MAX_TAIL_LINES, MIN_LEVELS, SOURCE_IDS } from "./values.ts";

type MinLevel = (typeof MIN_LEVELS)[number];

/** What `logQuerySchema` outputs (optional fields absent when not given). */
export interface LogQueryFields {
  source: SourceId;
  pod?: string;
  container?: string;
  previous?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  minLevel?: MinLevel;
  cursor?: string;
  download?: boolean;
}

const SOURCES: ReadonlySet<string> = new Set(SOURCE_IDS);
const LEVELS: ReadonlySet<string> = new Set(MIN_LEVELS);
const UNSIGNED = /^[1-9][0-9]{0,5}$/;
const CURSOR = /^[A-Za-z0-9._-]+$/;

const bounded = (value: string, max: number): number | null => {
  if (!UNSIGNED.test(value)) return null;
  const n = Number(value);
  return n <= max ? n : null;
};

const bool = (value: string): boolean | null => (value === "true" ? true : value === "false" ? false : null);

/** The query as the schema would output it, or null: zod decides (and explains) everything else. */
export function straightLogQuery(
  query: Record<string, string | undefined> | undefined,
  route: "logs" | "download",
): LogQueryFields | null {
  if (query === undefined || query === null) return null;
  const q: Partial<LogQueryFields> = {};
  for (const key of Object.keys(query)) {
    const v = query[key];
    if (typeof v !== "string") return null;
    switch (key) {
      case "source":
        if (!SOURCES.has(v)) return null;
        q.source = v as SourceId;
        break;
      case "pod":
        if (v.length < 1 || v.length > MAX_DNS_SUBDOMAIN || !DNS_SUBDOMAIN.test(v)) return null;
        q.pod = v;
        break;
      case "container":
        if (v.length < 1 || v.length > 63 || !DNS_LABEL.test(v)) return null;
        q.container = v;
        break;
      case "previous": {
        const b = bool(v);
        if (b === null) return null;
        q.previous = b;
        break;
      }
      case "tailLines": {
        const n = bounded(v, MAX_TAIL_LINES);
        if (n === null) return null;
        q.tailLines = n;
        break;
      }
      case "sinceSeconds": {
        const n = bounded(v, MAX_SINCE_SECONDS);
        if (n === null) return null;
        q.sinceSeconds = n;
        break;
      }
      case "sinceTime":
        if (!isRfc3339Utc(v)) return null;
        q.sinceTime = v;
        break;
      case "minLevel":
        if (!LEVELS.has(v)) return null;
        q.minLevel = v as MinLevel;
        break;
      case "cursor":
        if (route !== "logs" || v.length < 1 || v.length > 2048 || !CURSOR.test(v)) return null;
        q.cursor = v;
        break;
      case "download": {
        const b = route === "logs" ? bool(v) : null;
        if (b === null) return null;
        q.download = b;
        break;
      }
      default:
        return null;
    }
  }
  return q.source === undefined ? null : (q as LogQueryFields);
}

/** Path parameters with exactly `keys`, each an ID, as the strict path schemas output them; else null. */
export function straightPath(
  keys: readonly string[],
  params: Record<string, string | undefined> | undefined,
): Record<string, string> | null {
  if (params === undefined || params === null) return null;
  const given = Object.keys(params);
  if (given.length !== keys.length) return null;
  const out: Record<string, string> = {};
  for (const key of keys) {
    const v = params[key];
    if (typeof v !== "string" || !ID_PATTERN.test(v) || !Object.hasOwn(params, key)) return null;
    out[key] = v;
  }
  return out;
}
