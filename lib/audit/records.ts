/**
 * Audit record shapes (docs/state.md § Audit table). Context only: every field is an enum, a number, a
 * boolean or an identifier checked against its grammar, so no log text, message or secret can ride
 * along. A record failing a check is refused (the write fails closed).
 */

import { DNS_LABEL, ID_PATTERN, isDnsSubdomain } from "../api/ids.ts";
import { MAX_TAIL_LINES, SOURCE_IDS } from "../api/values.ts";
import type { AdmittingGrant, DenialReason, Route } from "../auth/policy.ts";
import type { Action, SourceId } from "../domain.ts";

/**
 * Each route's event, for admitted and denied requests alike (the `outcome` tells them apart):
 * logs, downloads (also `logs?download=true`), and the status function's reads.
 */
export const AUDIT_EVENTS = {
  view: "openclaw.agents.runtime_logs.view",
  download: "openclaw.agents.runtime_logs.download",
  runtimeRead: "openclaw.agents.runtime.read",
} as const;

/** The event a route's requests are audited under. */
export function routeEvent(route: Route): AuditEventName {
  if (route === "logs") return AUDIT_EVENTS.view;
  if (route === "download") return AUDIT_EVENTS.download;
  return AUDIT_EVENTS.runtimeRead;
}

export type AuditEventName = (typeof AUDIT_EVENTS)[keyof typeof AUDIT_EVENTS];
export type AuditOutcome = "success" | "denied";

/** What every record names. */
export interface AuditSubject {
  namespaceId: string;
  agentId: string;
  principalId: string;
  /** `req_<uuid>`. */
  requestId: string;
}

/** A new log view or a download, written before any log byte is read. */
export interface ReadAudit extends AuditSubject {
  deploymentId: string;
  /** `rlv_<uuid>`. */
  viewId: string;
  /** The action that admitted the read. */
  grant: AdmittingGrant;
  source: SourceId;
  /** The Pod and container actually read (absent for the sandbox source). */
  pod?: string;
  container?: string;
  previous: boolean;
  tailLines: number;
}

export interface DenialAudit extends AuditSubject {
  route: Route;
  /** The action that failed (docs/state.md: `read_logs` is checked first, then `read`). */
  action: Action;
  reasonCode: DenialReason;
  deploymentId?: string;
  source?: SourceId;
}

/**
 * Denials of one principal on one Agent and route within one UTC minute, as one item (docs/state.md §
 * Audit table): sk `DENIED#{minute}#{route}#{principalId}`, updated with `ADD count 1`, so a flood
 * of denials never grows the table per request and every denial is still counted. The context
 * fields are the latest denial's.
 */
export interface DenialAggregate extends AuditSubject {
  event: AuditEventName;
  outcome: "denied";
  route: Route;
  /** The UTC minute, RFC 3339 to the minute: `2026-11-29T12:00Z`. */
  minute: string;
  count: number;
  /** RFC 3339 UTC with milliseconds: the first and the latest denial counted in the item. */
  firstAt: string;
  lastAt: string;
  action: Action;
  reasonCode: DenialReason;
  deploymentId?: string;
  source?: SourceId;
}

export const DENIED_PREFIX = "DENIED#";
const ROUTES = new Set<string>(["status", "deployments", "logs", "download"]);

/** `2026-11-29T12:00Z` for any instant of that minute. */
export const denialMinute = (timeMs: number): string => `${new Date(timeMs).toISOString().slice(0, 16)}Z`;

/** The aggregate's sort key; the principal goes last, since it may itself contain `#`. */
export const denialSk = (minute: string, route: Route, principalId: string): string =>
  `${DENIED_PREFIX}${minute}#${route}#${principalId}`;

const DENIAL_SK = /^DENIED#(\d{4}-\d\d-\d\dT\d\d:\d\dZ)#(status|deployments|logs|download)#(.+)$/s;

/** Minute, route and principal of a denial aggregate's sort key, or null for any other key. */
export function parseDenialSk(sk: string): { minute: string; route: Route; principalId: string } | null {
  const m = DENIAL_SK.exec(sk);
  return m ? { minute: m[1] as string, route: m[2] as Route, principalId: m[3] as string } : null;
}

/** One stored record, as written and as queried back. */
export interface AuditRecord extends AuditSubject {
  event: AuditEventName;
  outcome: AuditOutcome;
  /** RFC 3339 UTC with milliseconds. */
  time: string;
  /** ULID. */
  eventId: string;
  action?: Action;
  grant?: AdmittingGrant;
  deploymentId?: string;
  viewId?: string;
  source?: SourceId;
  pod?: string;
  container?: string;
  previous?: boolean;
  tailLines?: number;
  reasonCode?: DenialReason;
}

export type AuditFields = Omit<AuditRecord, "time" | "eventId">;

/** A record that does not pass its field checks. Names the field, never its value. */
export class AuditRecordError extends Error {
  override name = "AuditRecordError";
}

const PREFIXED_ID = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9-]{1,64}$`);
const REQUEST_ID = PREFIXED_ID("req");
const VIEW_ID = PREFIXED_ID("rlv");
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const ACTIONS = new Set<string>(["read", "operate", "read_logs", "administer"]);
const GRANTS = new Set<string>(["read_logs", "administer"]);
const SOURCES = new Set<string>(SOURCE_IDS);
const REASONS = new Set<string>(["unknown_agent", "no_grant", "missing_action", "restricted_tier"]);
const EVENTS = new Set<string>(Object.values(AUDIT_EVENTS));
const utf8 = new TextEncoder();

function check(ok: boolean, field: string): void {
  if (!ok) throw new AuditRecordError(`audit field ${field} is invalid`);
}

const optional = (v: unknown, test: (v: unknown) => boolean) => v === undefined || test(v);
const matches = (re: RegExp) => (v: unknown) => typeof v === "string" && re.test(v);
const oneOf = (set: Set<string>) => (v: unknown) => typeof v === "string" && set.has(v);

/** Checks every field of a record against its grammar. */
export function validateFields(f: AuditFields): void {
  check(EVENTS.has(f.event), "event");
  check(f.outcome === "success" || f.outcome === "denied", "outcome");
  check(ID_PATTERN.test(f.namespaceId), "namespaceId");
  check(ID_PATTERN.test(f.agentId), "agentId");
  check(
    typeof f.principalId === "string" &&
      f.principalId.length > 0 &&
      !CONTROL.test(f.principalId) &&
      utf8.encode(f.principalId).length <= 512,
    "principalId",
  );
  check(REQUEST_ID.test(f.requestId), "requestId");
  check(optional(f.action, oneOf(ACTIONS)), "action");
  check(optional(f.grant, oneOf(GRANTS)), "grant");
  check(optional(f.deploymentId, matches(ID_PATTERN)), "deploymentId");
  check(optional(f.viewId, matches(VIEW_ID)), "viewId");
  check(optional(f.source, oneOf(SOURCES)), "source");
  check(
    optional(f.pod, (v) => typeof v === "string" && isDnsSubdomain(v)),
    "pod",
  );
  check(optional(f.container, matches(DNS_LABEL)), "container");
  check(
    optional(f.previous, (v) => typeof v === "boolean"),
    "previous",
  );
  check(
    optional(
      f.tailLines,
      (v) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_TAIL_LINES,
    ),
    "tailLines",
  );
  check(optional(f.reasonCode, oneOf(REASONS)), "reasonCode");
}

function subject(s: AuditSubject) {
  return {
    namespaceId: s.namespaceId,
    agentId: s.agentId,
    principalId: s.principalId,
    requestId: s.requestId,
  };
}

export function readFields(kind: "view" | "download", r: ReadAudit): AuditFields {
  const fields: AuditFields = {
    ...subject(r),
    event: kind === "view" ? AUDIT_EVENTS.view : AUDIT_EVENTS.download,
    outcome: "success",
    action: "read_logs",
    grant: r.grant,
    deploymentId: r.deploymentId,
    viewId: r.viewId,
    source: r.source,
    previous: r.previous,
    tailLines: r.tailLines,
  };
  if (r.pod !== undefined) fields.pod = r.pod;
  if (r.container !== undefined) fields.container = r.container;
  return fields;
}

/** Checks a denial before it is counted (the same grammars as every record, plus the route). */
export function validateDenial(d: DenialAudit): void {
  check(ROUTES.has(d.route), "route");
  validateFields(denialFields(d));
}

export function denialFields(d: DenialAudit): AuditFields {
  const fields: AuditFields = {
    ...subject(d),
    event: routeEvent(d.route),
    outcome: "denied",
    action: d.action,
    reasonCode: d.reasonCode,
  };
  if (d.deploymentId !== undefined) fields.deploymentId = d.deploymentId;
  if (d.source !== undefined) fields.source = d.source;
  return fields;
}
