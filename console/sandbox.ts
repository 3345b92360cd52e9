/**
 * A sandbox line read at a glance: the supervisor's policy decisions carry `action`, `dst_host`,
 * `dst_port`, `binary`, `policy` and `reason` fields; the row shows them as an allow/deny badge, a
 * destination and short labelled parts, and every other field as `key=value`. Pure: the log pane
 * turns the result into text nodes.
 */
import type { LineRecord } from "./types.ts";

export type Verdict = "allow" | "deny" | "other";

export interface SandboxView {
  /** `supervisor` (the sandbox's own supervisor) or `gateway` (OpenShell's server about it). */
  origin: "supervisor" | "gateway" | null;
  /** The decision, when the line carries one. */
  action: { text: string; verdict: Verdict } | null;
  /** `host:port`, `host` or `:port`. */
  destination: string | null;
  /** Labelled parts in a fixed order: `binary …`, `policy …`, `reason …`. */
  details: string[];
  /** Any other field, as `key=value`, in the order received. */
  rest: string[];
  ocsf: boolean;
}

const DECISION_KEYS = new Set(["action", "dst_host", "dst_port", "binary", "policy", "reason"]);
const ALLOW = new Set(["allow", "allowed", "accept", "accepted", "permit", "permitted"]);
const DENY = new Set(["deny", "denied", "block", "blocked", "reject", "rejected", "drop", "dropped"]);

const text = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v);

export function sandboxView(line: Pick<LineRecord, "kind" | "fields" | "origin" | "format">): SandboxView {
  const fields = line.fields ?? {};
  const action = text(fields.action);
  const host = text(fields.dst_host);
  const port = text(fields.dst_port);
  const details: string[] = [];
  for (const key of ["binary", "policy", "reason"] as const) {
    const value = text(fields[key]);
    if (value !== null && value !== "") details.push(`${key} ${value}`);
  }
  const verdict: Verdict | null = action === null ? null : classify(action);
  return {
    origin: line.origin === "sandbox" ? "supervisor" : line.origin === "gateway" ? "gateway" : null,
    action: action === null || action === "" ? null : { text: action, verdict: verdict ?? "other" },
    destination: host || port ? `${host ?? ""}${port ? `:${port}` : ""}` : null,
    details,
    rest: Object.entries(fields)
      .filter(([k]) => !DECISION_KEYS.has(k))
      .map(([k, v]) => `${k}=${text(v) ?? ""}`),
    ocsf: line.format === "ocsf",
  };
}

function classify(action: string): Verdict {
  const a = action.trim().toLowerCase();
  if (ALLOW.has(a)) return "allow";
  if (DENY.has(a)) return "deny";
  return "other";
}
