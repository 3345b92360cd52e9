/**
 * Field schemas every part of the scenario uses. A time stays as written until the pass after
 * parsing resolves it against the scenario's `now` (`resolveTime`): the schema holds no clock.
 */
import { z } from "zod";
import { ID_PATTERN } from "../../lib/api/ids.ts";
import { formatKubeletTime, resolveScenarioTime } from "./time.ts";

export const TIME_HINT = "must be RFC 3339 or now / now-<decimal>(ms|s|m|h|d)";

/** RFC 3339 UTC with nine fraction digits (kubelet form). */
export type KubeTime = string;
/** A time in scenario grammar, checked but not yet resolved. */
export type ScenarioTimeText = string;

export const name = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !/[/\u0000-\u001f\u007f]/.test(s), "must not contain '/' or control characters");
/** docs/api.md: IDs in paths (namespaceId, agentId, deploymentId); also used for cluster IDs. */
export const id = z.string().regex(ID_PATTERN, `must match ${ID_PATTERN.source}`);
export const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** Whether a time resolves does not depend on the instant it resolves against. */
export const time = z.string().refine((s) => resolveScenarioTime(s, 0n) !== null, TIME_HINT);

/** Epoch nanoseconds of a time the schema accepted, against `nowNs`. */
export function resolveTime(text: ScenarioTimeText, nowNs: bigint): bigint {
  const ns = resolveScenarioTime(text, nowNs);
  if (ns === null) throw new Error(`unresolvable scenario time ${JSON.stringify(text)} passed the schema`);
  return ns;
}

/** A time the schema accepted, in kubelet form. */
export const kubeTime = (text: ScenarioTimeText, nowNs: bigint): KubeTime =>
  formatKubeletTime(resolveTime(text, nowNs));
