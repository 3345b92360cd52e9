/**
 * Audit record shapes (state.md § Audit table). Context only: every field is an enum, a number, a
 * boolean or an identifier checked against its grammar, so no log text, message or secret can ride
 * along. A record failing a check is refused (the write fails closed).
 */

import type { AdmittingGrant, DenialReason, Route } from "../auth/policy.ts";
import type { Action, SourceId } from "../domain.ts";

export const AUDIT_EVENTS = {
  view: "openclaw.agents.runtime_logs.view",
  download: "openclaw.agents.runtime_logs.download",
  logsDenied: "openclaw.agents.runtime_logs.denied",
  runtimeDenied: "openclaw.agents.runtime.denied",
} as const;

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
  /** The action that failed (state.md: `read_logs` is checked first, then `read`). */
  action: Action;
  reasonCode: DenialReason;
  deploymentId?: string;
  source?: SourceId;
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

const ID = /^[a-z0-9]([a-z0-9_-]{0,62}[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const PREFIXED_ID = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9-]{1,64}$`);
const REQUEST_ID = PREFIXED_ID("req");
const VIEW_ID = PREFIXED_ID("rlv");
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const ACTIONS = new Set<string>(["read", "operate", "read_logs", "administer"]);
const GRANTS = new Set<string>(["read_logs", "administer"]);
const SOURCES = new Set<string>(["gateway", "agent", "sandbox"]);
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
  check(ID.test(f.namespaceId), "namespaceId");
  check(ID.test(f.agentId), "agentId");
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
  check(optional(f.deploymentId, matches(ID)), "deploymentId");
  check(optional(f.viewId, matches(VIEW_ID)), "viewId");
  check(optional(f.source, oneOf(SOURCES)), "source");
  check(optional(f.pod, matches(DNS_SUBDOMAIN)), "pod");
  check(optional(f.container, matches(DNS_LABEL)), "container");
  check(
    optional(f.previous, (v) => typeof v === "boolean"),
    "previous",
  );
  check(
    optional(f.tailLines, (v) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 1000),
    "tailLines",
  );
  check(optional(f.reasonCode, oneOf(REASONS)), "reasonCode");
}

const deniedEvent = (route: Route): AuditEventName =>
  route === "logs" || route === "download" ? AUDIT_EVENTS.logsDenied : AUDIT_EVENTS.runtimeDenied;

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

export function denialFields(d: DenialAudit): AuditFields {
  const fields: AuditFields = {
    ...subject(d),
    event: deniedEvent(d.route),
    outcome: "denied",
    action: d.action,
    reasonCode: d.reasonCode,
  };
  if (d.deploymentId !== undefined) fields.deploymentId = d.deploymentId;
  if (d.source !== undefined) fields.source = d.source;
  return fields;
}
