/** Scenario problems as `path: message` lists, from zod failures and from the checks after parsing. */
import type { z } from "zod";

export interface ScenarioIssue {
  path: string;
  message: string;
}

export class ScenarioError extends Error {
  readonly issues: ScenarioIssue[];
  constructor(issues: ScenarioIssue[]) {
    super(`invalid scenario:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`);
    this.name = "ScenarioError";
    this.issues = issues;
  }
}

/** Formats a zod-style path as `clusters[0].namespaces[1].name`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}

/** `schema`'s output for `input`; a ScenarioError listing every issue (under `prefix`) otherwise. */
export function parseStrict<T extends z.ZodType>(
  schema: T,
  input: unknown,
  prefix: ReadonlyArray<PropertyKey> = [],
): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ScenarioError(zodIssues(result.error, prefix));
  return result.data;
}

/** A zod failure as `path: message` issues: one per unknown key, a union's most telling branch. */
export function zodIssues(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): ScenarioIssue[] {
  const out: ScenarioIssue[] = [];
  for (const issue of error.issues) {
    const base = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ path: formatPath([...base, key]), message: "unknown field" });
    } else if (issue.code === "invalid_union") {
      out.push(describeUnion(issue, base));
    } else {
      out.push({ path: formatPath(base), message: issue.message });
    }
  }
  return out;
}

/** A union failure (container states) names the offending key instead of zod's generic text. */
function describeUnion(issue: z.core.$ZodIssueInvalidUnion, base: PropertyKey[]): ScenarioIssue {
  const inner = issue.errors.flat();
  const unknown = inner.find((i) => i.code === "unrecognized_keys" && i.path.length === 0);
  if (unknown && unknown.code === "unrecognized_keys" && unknown.keys[0] !== undefined) {
    return {
      path: formatPath([...base, unknown.keys[0]]),
      message: "unknown field (expected one of running, waiting, terminated)",
    };
  }
  const first = inner.find((i) => i.path.length > 0) ?? inner[0];
  if (!first) return { path: formatPath(base), message: issue.message };
  return { path: formatPath([...base, ...first.path]), message: first.message };
}
