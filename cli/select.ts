/**
 * Which deployment a command reads when `--deployment` is not given (surfaces.md § occ): the active
 * one, unless a newer deployment already has Pods (a rollout in progress), which is then used and
 * announced. A check that is denied or fails falls back to the active deployment, saying why.
 */
import { ID_PATTERN } from "./args.ts";
import { agentSegments, type Ctx, deploymentSegments } from "./context.ts";
import { ApiError, Interrupted, TransportError } from "./errors.ts";
import { deploymentList } from "./format/runtime.ts";
import { isObject, type JsonAnswer } from "./http.ts";

export interface Selection {
  deploymentId: string;
  /** The runtime description already fetched while checking, so the caller need not ask again. */
  runtime?: JsonAnswer;
}

/** At most this many newer deployments are probed, newest first (each probe costs a token). */
const MAX_PROBES = 3;

function describeFailure(e: unknown): string {
  if (e instanceof ApiError) return `HTTP ${e.status}${e.code === undefined ? "" : ` ${e.code}`}`;
  if (e instanceof Error) return e.message;
  return "unknown error";
}

export async function selectDeployment(
  ctx: Ctx,
  agent: string,
  explicit: string | undefined,
): Promise<Selection> {
  if (explicit !== undefined) return { deploymentId: explicit };
  const listed = await ctx.client.getJson([...agentSegments(ctx, agent), "deployments"], {}, ctx.signal);
  const ids = deploymentList(listed.data).filter(
    (d): d is Record<string, unknown> & { deploymentId: string } =>
      typeof d.deploymentId === "string" && ID_PATTERN.test(d.deploymentId),
  );
  if (ids.length === 0) throw new TransportError(`agent ${agent} has no deployments`);
  const activeIndex = ids.findIndex((d) => d.active === true);
  if (activeIndex < 0) {
    const newest = ids[0]!.deploymentId;
    ctx.notice(`no deployment is marked active; using the newest, ${newest}`);
    return { deploymentId: newest };
  }
  const active = ids[activeIndex]!.deploymentId;
  for (const candidate of ids.slice(0, activeIndex).slice(0, MAX_PROBES)) {
    let answer: JsonAnswer;
    try {
      answer = await ctx.client.getJson(
        [...deploymentSegments(ctx, agent, candidate.deploymentId), "runtime"],
        {},
        ctx.signal,
      );
    } catch (e) {
      if (e instanceof Interrupted) throw e;
      const why = e instanceof ApiError && e.status === 403 ? "access denied" : "the check failed";
      ctx.notice(
        `could not check whether the newer deployment ${candidate.deploymentId} has Pods (${why}: ${describeFailure(e)}); using the active deployment ${active}`,
      );
      return { deploymentId: active };
    }
    const pods = isObject(answer.data) && Array.isArray(answer.data.pods) ? answer.data.pods : [];
    if (pods.length > 0) {
      ctx.notice(
        `using deployment ${candidate.deploymentId}: it is newer than the active deployment ${active} and already has Pods (pass --deployment ${active} for the active one)`,
      );
      return { deploymentId: candidate.deploymentId, runtime: answer };
    }
  }
  return { deploymentId: active };
}
