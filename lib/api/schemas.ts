/**
 * The HTTP contract as data (docs/api.md): path IDs, the closed log query, and how a zod failure becomes
 * `details` items. Handlers validate with these; tests draw cases from them.
 */
import { z } from "zod";
import { isRfc3339Utc } from "../rfc3339.ts";
import { type ErrorDetail, ServiceError } from "./errors.ts";
import { DNS_LABEL, DNS_SUBDOMAIN, ID_PATTERN, MAX_DNS_SUBDOMAIN } from "./ids.ts";
import { straightLogQuery, straightPath } from "./query-parse.ts";
import { MAX_SINCE_SECONDS, MAX_TAIL_LINES, MIN_LEVELS, SOURCE_IDS } from "./values.ts";

const MAX_DETAILS = 32;

const id = z.string().regex(ID_PATTERN);

export const agentPathSchema = z.strictObject({ namespaceId: id, agentId: id });
export const deploymentPathSchema = z.strictObject({ namespaceId: id, agentId: id, deploymentId: id });

export type AgentPath = z.infer<typeof agentPathSchema>;
export type DeploymentPath = z.infer<typeof deploymentPathSchema>;

const bool = z.enum(["true", "false"]).transform((v) => v === "true");
/** Integer without sign or leading zeros, within bounds. */
const boundedInt = (max: number) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,5}$/)
    .transform(Number)
    .refine((n) => n <= max);

const logQueryFields = {
  source: z.enum(SOURCE_IDS),
  pod: z.string().min(1).max(MAX_DNS_SUBDOMAIN).regex(DNS_SUBDOMAIN).optional(),
  /** An init or regular container of the chosen Pod; default the source's main container. */
  container: z.string().min(1).max(63).regex(DNS_LABEL).optional(),
  previous: bool.optional(),
  tailLines: boundedInt(MAX_TAIL_LINES).optional(),
  sinceSeconds: boundedInt(MAX_SINCE_SECONDS).optional(),
  sinceTime: z.string().refine(isRfc3339Utc).optional(),
  minLevel: z.enum(MIN_LEVELS).optional(),
  cursor: z
    .string()
    .min(1)
    .max(2048)
    .regex(/^[A-Za-z0-9._-]+$/)
    .optional(),
  download: bool.optional(),
};

/** The parameters the log query knows (docs/api.md § Log query); tests draw their cases from it. */
export const LOG_QUERY_PARAMETERS = Object.keys(logQueryFields) as (keyof typeof logQueryFields)[];

export const logQuerySchema = z.strictObject(logQueryFields);
export const downloadQuerySchema = z.strictObject({
  ...logQueryFields,
  cursor: z.never().optional(),
  download: z.never().optional(),
});

/** Optional fields present only with a value (parseLogQuery copies just the defined ones). */
type Defined<T> = { [K in keyof T]: Exclude<T[K], undefined> };

/** A parsed log query: the schema's output, with `download` settled by the route. */
export type ParsedLogQuery = Defined<Omit<z.output<typeof logQuerySchema>, "download">> & {
  download: boolean;
};

function issuesToDetails(error: z.ZodError, prefix: string, input: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        details.push({ path: `${prefix}.${safeName(key)}`, code: "unknown_parameter" });
    } else {
      const field = issue.path.length > 0 ? `${prefix}.${issue.path.map(String).join(".")}` : prefix;
      const given = issue.path.length > 0 && input[String(issue.path[0])] !== undefined;
      details.push({ path: field, code: given ? "invalid_value" : "required" });
    }
  }
  return details.slice(0, MAX_DETAILS);
}

/**
 * Echo a client's parameter name only when it is a near miss of a contract parameter (a typo such
 * as `tailLine`, at most two edits away), so a typo is easy to spot while nothing else a client
 * sends as a name, a secret pasted by mistake included, is ever reflected.
 */
export function safeName(key: string): string {
  if (key.length > 32) return "?";
  const lower = key.toLowerCase();
  return LOG_QUERY_PARAMETERS.some((name) => withinTwoEdits(lower, name.toLowerCase())) ? key : "?";
}

/** Levenshtein distance ≤ 2, by the banded dynamic programme (both strings are ≤ 32 characters). */
function withinTwoEdits(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? Number.POSITIVE_INFINITY) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const deletion = (previous[j] ?? Number.POSITIVE_INFINITY) + 1;
      const insertion = (current[j - 1] ?? Number.POSITIVE_INFINITY) + 1;
      current.push(Math.min(substitution, deletion, insertion));
    }
    previous = current;
  }
  return (previous[b.length] ?? Number.POSITIVE_INFINITY) <= 2;
}

export function invalidRequest(details: ErrorDetail[]): ServiceError {
  return new ServiceError("INVALID_REQUEST", { details: details.slice(0, MAX_DETAILS) });
}

/** The strict path schemas' keys in shape order, for the straight-code path check. */
const PATH_KEYS = new Map<unknown, readonly string[]>([
  [agentPathSchema, Object.keys(agentPathSchema.shape)],
  [deploymentPathSchema, Object.keys(deploymentPathSchema.shape)],
]);

export function parsePath<T>(
  schema: z.ZodType<T>,
  params: Record<string, string | undefined> | undefined,
): T {
  const keys = PATH_KEYS.get(schema);
  const straight = keys && straightPath(keys, params);
  if (straight) return straight as T;
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error, "path", params ?? {}));
  return parsed.data;
}

/** The status routes take no query at all. */
export function requireNoQuery(query: Record<string, string | undefined> | undefined): void {
  const keys = Object.keys(query ?? {});
  if (keys.length > 0)
    throw invalidRequest(keys.map((k) => ({ path: `query.${safeName(k)}`, code: "unknown_parameter" })));
}

function zodLogQuery(
  query: Record<string, string | undefined> | undefined,
  route: "logs" | "download",
): z.output<typeof logQuerySchema> {
  const parsed = (route === "logs" ? logQuerySchema : downloadQuerySchema).safeParse(query ?? {});
  if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error, "query", query ?? {}));
  return parsed.data;
}

/**
 * Parses the log query strictly (valid queries in straight code, query-parse.ts; the rest by zod). `route` is `logs` (`…/runtime/logs`) or `download`
 * (`…/runtime/logs/download`, same query minus `cursor`/`download`). `now` decides "not in the future".
 */
export function parseLogQuery(
  query: Record<string, string | undefined> | undefined,
  route: "logs" | "download",
  now: number,
): ParsedLogQuery {
  const q = straightLogQuery(query, route) ?? zodLogQuery(query, route);
  const conflicts: ErrorDetail[] = [];
  if (q.sinceTime !== undefined && q.sinceSeconds !== undefined)
    conflicts.push({ path: "query.sinceTime", code: "conflict" });
  if (q.sinceTime !== undefined && Date.parse(q.sinceTime) > now)
    conflicts.push({ path: "query.sinceTime", code: "in_future" });
  if (q.cursor !== undefined && q.download === true)
    conflicts.push({ path: "query.cursor", code: "conflict" });
  if (q.cursor !== undefined && (q.sinceSeconds !== undefined || q.sinceTime !== undefined))
    conflicts.push({
      path: q.sinceTime !== undefined ? "query.sinceTime" : "query.sinceSeconds",
      code: "conflict",
    });
  if (conflicts.length > 0) throw invalidRequest(conflicts);
  if (q.source === "sandbox" && (q.pod !== undefined || q.container !== undefined || q.previous === true))
    throw new ServiceError("RUNTIME_LOGS_POD_INVALID");
  const result: ParsedLogQuery = { source: q.source, download: route === "download" || q.download === true };
  if (q.pod !== undefined) result.pod = q.pod;
  if (q.container !== undefined) result.container = q.container;
  if (q.previous !== undefined) result.previous = q.previous;
  if (q.tailLines !== undefined) result.tailLines = q.tailLines;
  if (q.sinceSeconds !== undefined) result.sinceSeconds = q.sinceSeconds;
  if (q.sinceTime !== undefined) result.sinceTime = q.sinceTime;
  if (q.minLevel !== undefined) result.minLevel = q.minLevel;
  if (q.cursor !== undefined) result.cursor = q.cursor;
  return result;
}
