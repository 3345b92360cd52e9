/**
 * IAM statements of a synthesized template, read the one way every infra test reads them: a role's
 * statements are those of every `AWS::IAM::Policy` whose `Roles` list names it, alone or beside
 * other roles (a policy shared by several roles grants each of them).
 */
import type { FunctionName } from "../../infra/functions.ts";
import { resources, type Synthesized } from "./synth.ts";

export type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };

/** A statement's actions, as a list whether the template holds one or many. */
export const actionsOf = (st: Statement): string[] => (Array.isArray(st.Action) ? st.Action : [st.Action]);

/** Every statement of the policies attached to the role construct `role` (Allow and Deny). */
export function policyStatements(s: Synthesized, role: { node: { defaultChild?: unknown } }): Statement[] {
  const ref = JSON.stringify({ Ref: s.stack.getLogicalId(role.node.defaultChild as never) });
  return resources(s.template, "AWS::IAM::Policy")
    .filter(([, r]) =>
      ((r.Properties.Roles as unknown[] | undefined) ?? []).some((x) => JSON.stringify(x) === ref),
    )
    .flatMap(([, r]) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** Every statement of the policies attached to function `name`'s role (Allow and Deny). */
export const roleStatements = (s: Synthesized, name: FunctionName): Statement[] =>
  policyStatements(s, s.stack.functions[name].role);
