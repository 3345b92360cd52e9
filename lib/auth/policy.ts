/**
 * The authorization policy of docs/state.md § Authorization, as a pure function of the route, the Agent
 * and the principal's grants (the Agent-specific one and the namespace-wide `*` one).
 *
 * - status needs `read` and `operate`; the deployments list needs `read`;
 * - logs and downloads need `read_logs`, then `read`. `administer` stands in for `read_logs` unless
 *   the Agent's tier is `sensitive`: then only a grant listing `read_logs` admits (Agent-specific
 *   or `*` alike).
 * Actions are the union over the applicable grants. A deleted Agent counts as unknown.
 */
import type { Action, AgentRecord, GrantRecord } from "../domain.ts";

export type Route = "status" | "deployments" | "logs" | "download";
export type AdmittingGrant = "read_logs" | "administer";

/**
 * Why a request was denied (audit `reasonCode`):
 * - `unknown_agent`: no such Agent (or deleted); 404 or 403 depending on namespace access;
 * - `no_grant`: no grant of the principal applies to this Agent;
 * - `missing_action`: the grants lack `failedAction`;
 * - `restricted_tier`: only `administer` was offered for `read_logs` on a sensitive Agent.
 */
export type DenialReason = "unknown_agent" | "no_grant" | "missing_action" | "restricted_tier";

export type Decision =
  | {
      allowed: true;
      /** The action that admitted a log read or download (audited); null for status and deployments. */
      grant: AdmittingGrant | null;
      /** The Agent ID of the grant that decided, or `*`. */
      grantScope: string;
    }
  | { allowed: false; failedAction: Action; reason: DenialReason };

export interface AuthorizeInput {
  route: Route;
  agent: AgentRecord | null;
  /** The principal's grants as RegistryStore.grantsFor returns them. */
  grants: readonly GrantRecord[];
}

export const ALL_AGENTS = "*";

/** The actions a route needs, in the order they are checked. */
export const REQUIRED_ACTIONS: Record<Route, readonly Action[]> = {
  status: ["read", "operate"],
  deployments: ["read"],
  logs: ["read_logs", "read"],
  download: ["read_logs", "read"],
};

const isLogRoute = (route: Route) => route === "logs" || route === "download";

export function authorize(input: AuthorizeInput): Decision {
  const { route, agent } = input;
  const required = REQUIRED_ACTIONS[route];
  const first = required[0] as Action;
  if (!agent || agent.state === "deleted")
    return { allowed: false, failedAction: first, reason: "unknown_agent" };

  // Only grants on this Agent or on its whole namespace apply; specific before `*`.
  const applicable = input.grants
    .filter(
      (g) => g.namespaceId === agent.namespaceId && (g.agentId === agent.agentId || g.agentId === ALL_AGENTS),
    )
    .sort((a, b) => Number(a.agentId === ALL_AGENTS) - Number(b.agentId === ALL_AGENTS));
  if (applicable.length === 0) return { allowed: false, failedAction: first, reason: "no_grant" };

  const holding = (action: Action) => applicable.find((g) => g.actions.includes(action));

  let admitting: { grant: AdmittingGrant; scope: string } | null = null;
  const contributors = new Set<string>();
  for (const action of required) {
    if (action === "read_logs") {
      const direct = holding("read_logs");
      const standIn = agent.tier === "sensitive" ? undefined : holding("administer");
      if (direct) admitting = { grant: "read_logs", scope: direct.agentId };
      else if (standIn) admitting = { grant: "administer", scope: standIn.agentId };
      else {
        const blocked = agent.tier === "sensitive" && holding("administer") !== undefined;
        return {
          allowed: false,
          failedAction: "read_logs",
          reason: blocked ? "restricted_tier" : "missing_action",
        };
      }
      contributors.add(admitting.scope);
      continue;
    }
    const grant = holding(action);
    if (!grant) return { allowed: false, failedAction: action, reason: "missing_action" };
    contributors.add(grant.agentId);
  }

  if (isLogRoute(route) && admitting)
    return { allowed: true, grant: admitting.grant, grantScope: admitting.scope };
  return {
    allowed: true,
    grant: null,
    grantScope: contributors.has(agent.agentId) ? agent.agentId : ALL_AGENTS,
  };
}

/**
 * Whether the grants alone prove namespace access (a `*` grant, or any grant in the namespace);
 * when false, ask RegistryStore.hasGrantInNamespace before answering an unknown Agent.
 */
export const grantsShowNamespaceAccess = (grants: readonly GrantRecord[], namespaceId: string) =>
  grants.some((g) => g.namespaceId === namespaceId);

/**
 * The answer to a denial. Unknown Agents are 404 only for principals with a grant somewhere in the
 * namespace; outsiders always get 403, indistinguishable from "no grant". Every 403 is audited;
 * a 404 is deployment resolution, not a denial.
 */
export function denialOutcome(
  decision: Extract<Decision, { allowed: false }>,
  hasNamespaceAccess: boolean,
): { code: "NOT_FOUND" | "FORBIDDEN"; audit: boolean } {
  if (decision.reason === "unknown_agent" && hasNamespaceAccess) return { code: "NOT_FOUND", audit: false };
  return { code: "FORBIDDEN", audit: true };
}
