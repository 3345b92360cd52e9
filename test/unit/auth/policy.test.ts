import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  authorize,
  type Decision,
  denialOutcome,
  grantsShowNamespaceAccess,
  type Route,
} from "../../../lib/auth/policy.ts";
import type { Action, AgentRecord, GrantRecord, Tier } from "../../../lib/domain.ts";

const ACTIONS: Action[] = ["read", "operate", "read_logs", "administer"];
const ROUTES: Route[] = ["status", "deployments", "logs", "download"];
const TIERS: Tier[] = ["standard", "sensitive"];

const subsets = (): Action[][] =>
  Array.from({ length: 16 }, (_, mask) => ACTIONS.filter((_a, i) => (mask >> i) & 1));

const agent = (tier: Tier, state: AgentRecord["state"] = "running"): AgentRecord => ({
  namespaceId: "acme",
  agentId: "support",
  tier,
  state,
  activeDeploymentId: "d1",
  stateVersion: 1,
});

const grant = (agentId: string, actions: Action[], namespaceId = "acme"): GrantRecord => ({
  principalId: "alice",
  namespaceId,
  agentId,
  actions,
});

/** The rules of docs/state.md § Authorization, written as a table rather than as the implementation's loop. */
function expected(route: Route, tier: Tier, specific: Action[] | null, star: Action[] | null) {
  if (specific === null && star === null) return { allowed: false, reason: "no_grant" } as const;
  const has = (a: Action) => Boolean(specific?.includes(a) || star?.includes(a));
  const need = {
    status: [
      ["read", has("read")],
      ["operate", has("operate")],
    ],
    deployments: [["read", has("read")]],
    logs: [
      ["read_logs", has("read_logs") || (tier === "standard" && has("administer"))],
      ["read", has("read")],
    ],
  } as const;
  const checks = need[route === "download" ? "logs" : route];
  const failed = checks.find(([, ok]) => !ok);
  if (failed) {
    const restricted = failed[0] === "read_logs" && tier === "sensitive" && has("administer");
    return {
      allowed: false,
      failedAction: failed[0],
      reason: restricted ? "restricted_tier" : "missing_action",
    } as const;
  }
  const logRoute = route === "logs" || route === "download";
  const admitting = !logRoute ? null : has("read_logs") ? "read_logs" : "administer";
  return { allowed: true, grant: admitting } as const;
}

describe("authorization matrix", () => {
  // 16 × 16 grant combinations (an absent grant is distinct from an empty one) × 4 routes × 2 tiers.
  const options = [null, ...subsets()];
  for (const route of ROUTES) {
    for (const tier of TIERS) {
      it(`${route} on a ${tier} Agent: every Agent-specific × namespace-wide grant combination`, () => {
        let allowedCount = 0;
        for (const specific of options) {
          for (const star of options) {
            const grants = [
              ...(specific ? [grant("support", specific)] : []),
              ...(star ? [grant("*", star)] : []),
            ];
            const decision = authorize({ route, agent: agent(tier), grants });
            const want = expected(route, tier, specific, star);
            expect(decision.allowed, JSON.stringify({ specific, star })).toBe(want.allowed);
            if (decision.allowed && want.allowed) {
              allowedCount++;
              expect(decision.grant).toBe(want.grant);
            } else if (!decision.allowed && !want.allowed) {
              expect(decision.reason).toBe(want.reason);
              if ("failedAction" in want) expect(decision.failedAction).toBe(want.failedAction);
            }
          }
        }
        expect(allowedCount).toBeGreaterThan(0);
      });

      it(`${route} on a ${tier} Agent: grants of a foreign namespace or another Agent count for nothing`, () => {
        for (const actions of subsets()) {
          const grants = [
            grant("support", actions, "other"),
            grant("*", actions, "other"),
            grant("billing", actions),
          ];
          const decision = authorize({ route, agent: agent(tier), grants });
          expect(decision).toMatchObject({ allowed: false, reason: "no_grant" });
        }
      });
    }
  }

  it("read_logs is checked before read, and the denial names it", () => {
    expect(
      authorize({ route: "logs", agent: agent("standard"), grants: [grant("support", ["operate"])] }),
    ).toEqual({
      allowed: false,
      failedAction: "read_logs",
      reason: "missing_action",
    });
    expect(
      authorize({ route: "logs", agent: agent("standard"), grants: [grant("support", ["read_logs"])] }),
    ).toEqual({
      allowed: false,
      failedAction: "read",
      reason: "missing_action",
    });
  });

  it("administer alone never reads a sensitive Agent's logs, Agent-specific or namespace-wide", () => {
    for (const scope of ["support", "*"]) {
      const d = authorize({
        route: "logs",
        agent: agent("sensitive"),
        grants: [grant(scope, ["read", "administer"])],
      });
      expect(d).toEqual({ allowed: false, failedAction: "read_logs", reason: "restricted_tier" });
      const ok = authorize({
        route: "download",
        agent: agent("standard"),
        grants: [grant(scope, ["read", "administer"])],
      });
      expect(ok).toEqual({ allowed: true, grant: "administer", grantScope: scope });
    }
  });

  it("a namespace-wide read_logs grant admits a sensitive Agent; the decision names its scope", () => {
    const grants = [grant("support", ["read", "administer"]), grant("*", ["read_logs"])];
    expect(authorize({ route: "logs", agent: agent("sensitive"), grants })).toEqual({
      allowed: true,
      grant: "read_logs",
      grantScope: "*",
    });
  });

  it("prefers read_logs over administer, and the Agent-specific grant over the `*` one", () => {
    const both = [grant("*", ["read", "read_logs", "administer"]), grant("support", ["read", "read_logs"])];
    expect(authorize({ route: "logs", agent: agent("standard"), grants: both })).toEqual({
      allowed: true,
      grant: "read_logs",
      grantScope: "support",
    });
    expect(
      authorize({ route: "status", agent: agent("standard"), grants: [grant("*", ["read", "operate"])] }),
    ).toEqual({ allowed: true, grant: null, grantScope: "*" });
  });

  it("unknown and deleted Agents are denied as unknown, before any grant is looked at", () => {
    const grants = [grant("*", ACTIONS)];
    for (const route of ROUTES) {
      const first = route === "logs" || route === "download" ? "read_logs" : "read";
      expect(authorize({ route, agent: null, grants })).toEqual({
        allowed: false,
        failedAction: first,
        reason: "unknown_agent",
      });
      expect(authorize({ route, agent: agent("standard", "deleted"), grants })).toMatchObject({
        reason: "unknown_agent",
      });
    }
    // Stopped Agents stay authorizable (their logs may still be read).
    expect(authorize({ route: "status", agent: agent("standard", "stopped"), grants }).allowed).toBe(true);
  });

  it("outsiders get 403 for unknown Agents; principals with namespace access get 404 (not audited)", () => {
    const unknown = { allowed: false, failedAction: "read", reason: "unknown_agent" } as const;
    expect(denialOutcome(unknown, false)).toEqual({ code: "FORBIDDEN", audit: true });
    expect(denialOutcome(unknown, true)).toEqual({ code: "NOT_FOUND", audit: false });
    for (const reason of ["no_grant", "missing_action", "restricted_tier"] as const) {
      for (const access of [true, false]) {
        expect(denialOutcome({ allowed: false, failedAction: "read", reason }, access)).toEqual({
          code: "FORBIDDEN",
          audit: true,
        });
      }
    }
    expect(grantsShowNamespaceAccess([grant("billing", ["read"])], "acme")).toBe(true);
    expect(grantsShowNamespaceAccess([grant("billing", ["read"], "other")], "acme")).toBe(false);
    expect(grantsShowNamespaceAccess([], "acme")).toBe(false);
  });
});

describe("authorization properties", () => {
  const actionSet = fc.subarray(ACTIONS);
  const grantArb = fc.record({
    principalId: fc.constant("alice"),
    namespaceId: fc.constantFrom("acme", "other"),
    agentId: fc.constantFrom("support", "*", "billing"),
    actions: actionSet,
  });
  const input = fc.record({
    route: fc.constantFrom(...ROUTES),
    tier: fc.constantFrom(...TIERS),
    grants: fc.array(grantArb, { maxLength: 6 }),
  });

  it("does not depend on the order of grants", () => {
    fc.assert(
      fc.property(input, ({ route, tier, grants }) => {
        const a = authorize({ route, agent: agent(tier), grants });
        const b = authorize({ route, agent: agent(tier), grants: [...grants].reverse() });
        expect(b).toEqual(a);
      }),
    );
  });

  it("is monotone: more grants or more actions never turn an admission into a denial", () => {
    fc.assert(
      fc.property(input, grantArb, ({ route, tier, grants }, extra) => {
        const before: Decision = authorize({ route, agent: agent(tier), grants });
        const after = authorize({ route, agent: agent(tier), grants: [...grants, extra] });
        if (before.allowed) expect(after.allowed).toBe(true);
      }),
    );
  });
});
