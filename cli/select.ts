/**
 * Which deployment a command reads when `--deployment` is not given (docs/: the same one curl and
 * the console use): the deployment the API marks active. A newer deployment that already runs a
 * container of the requested source is announced, never silently switched to. No active
 * deployment stops the command (exit 1) unless `--deployment` is given.
 */
import { ID_PATTERN } from "../lib/api/ids.ts";
import { agentSegments, type Ctx, deploymentSegments } from "./context.ts";
import { ApiError, Interrupted, TransportError } from "./errors.ts";
import { deploymentList } from "./format/runtime.ts";
import { isObject, type JsonAnswer } from "./http.ts";

export interface DeploymentRef {
  deploymentId: string;
  active: boolean;
}

export interface Selection {
  deploymentId: string;
  /** Listed deployments, newest first (empty when `--deployment` was given). */
  listed: DeploymentRef[];
  /** Runtime descriptions fetched so far, by deployment, so nobody asks twice. */
  runtimes: Map<string, JsonAnswer | null>;
}

/** At most this many other deployments are checked (each check is one admitted request). */
const MAX_PROBES = 3;

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** What a source's container is doing in a runtime description. */
export interface ContainerInfo {
  pod: string;
  container: string;
  state: string;
  reason: string | null;
  restartCount: number;
}

/**
 * The containers that carry `source`'s logs: the source's Pods with their container (or
 * `container` when given), as the runtime description lists them.
 */
export function sourceContainers(runtime: unknown, source: string, container?: string): ContainerInfo[] {
  if (!isObject(runtime)) return [];
  const src = objects(runtime.sources).find((s) => s.id === source);
  const pods = objects(runtime.pods);
  const out: ContainerInfo[] = [];
  for (const ref of objects(src?.pods)) {
    const pod = pods.find((p) => p.name === ref.name);
    const name = container ?? (typeof ref.container === "string" ? ref.container : undefined);
    const c = objects(pod?.containers).find((x) => x.name === name);
    if (typeof ref.name !== "string" || name === undefined) continue;
    out.push({
      pod: ref.name,
      container: name,
      state: typeof c?.state === "string" ? c.state : "unknown",
      reason: typeof c?.reason === "string" ? c.reason : null,
      restartCount: typeof c?.restartCount === "number" ? c.restartCount : 0,
    });
  }
  return out;
}

/** True when the description shows a running container of `source` (the sandbox: available). */
export function hasRunning(runtime: unknown, source: string | undefined): boolean {
  if (!isObject(runtime)) return false;
  if (source === "sandbox")
    return objects(runtime.sources).some((s) => s.id === "sandbox" && s.available === true);
  const sources = source === undefined || source === "all" ? ["gateway", "agent"] : [source];
  return sources.some((s) => sourceContainers(runtime, s).some((c) => c.state === "running"));
}

export async function runtimeOf(ctx: Ctx, agent: string, sel: Selection, deploymentId: string) {
  if (sel.runtimes.has(deploymentId)) return sel.runtimes.get(deploymentId) ?? null;
  let answer: JsonAnswer | null;
  try {
    answer = await ctx.client.getJson(
      [...deploymentSegments(ctx, agent, deploymentId), "runtime"],
      {},
      ctx.signal,
    );
  } catch (e) {
    if (e instanceof Interrupted) throw e;
    answer = null;
  }
  sel.runtimes.set(deploymentId, answer);
  return answer;
}

async function listDeployments(ctx: Ctx, agent: string): Promise<DeploymentRef[]> {
  const listed = await ctx.client.getJson([...agentSegments(ctx, agent), "deployments"], {}, ctx.signal);
  return deploymentList(listed.data)
    .filter((d) => typeof d.deploymentId === "string" && ID_PATTERN.test(d.deploymentId))
    .map((d) => ({ deploymentId: d.deploymentId as string, active: d.active === true }));
}

/**
 * Picks the deployment. `source` is what the command reads (`undefined` for runtime/restarts: any
 * running container); newer deployments are checked for a running one only when there are any.
 */
export async function selectDeployment(
  ctx: Ctx,
  agent: string,
  explicit: string | undefined,
  source?: string,
): Promise<Selection> {
  const runtimes = new Map<string, JsonAnswer | null>();
  if (explicit !== undefined) return { deploymentId: explicit, listed: [], runtimes };
  const listed = await listDeployments(ctx, agent);
  if (listed.length === 0) throw new TransportError(`agent ${agent} has no deployments`);
  const activeIndex = listed.findIndex((d) => d.active);
  if (activeIndex < 0)
    throw new TransportError(
      `agent ${agent} has no active deployment; pass --deployment (newest first: ${listed
        .slice(0, 5)
        .map((d) => d.deploymentId)
        .join(", ")})`,
    );
  const active = listed[activeIndex]!.deploymentId;
  const sel: Selection = { deploymentId: active, listed, runtimes };
  for (const newer of listed.slice(0, activeIndex).slice(0, MAX_PROBES)) {
    const answer = await runtimeOf(ctx, agent, sel, newer.deploymentId);
    if (answer !== null && hasRunning(answer.data, source)) {
      const what = source === undefined || source === "all" ? "running containers" : `a running ${source}`;
      ctx.notice(
        `reading the active deployment ${active}; the newer deployment ${newer.deploymentId} has ${what} (pass --deployment ${newer.deploymentId} to read it)`,
      );
      break;
    }
  }
  return sel;
}

/** Another listed deployment (newer first) that runs a container of `source`, if any. */
export async function runningElsewhere(
  ctx: Ctx,
  agent: string,
  sel: Selection,
  source: string,
): Promise<string | undefined> {
  let listed = sel.listed;
  if (listed.length === 0) {
    try {
      listed = await listDeployments(ctx, agent);
    } catch (e) {
      if (e instanceof Interrupted) throw e;
      if (e instanceof ApiError || e instanceof TransportError) return undefined;
      throw e;
    }
  }
  let probed = 0;
  for (const d of listed) {
    if (d.deploymentId === sel.deploymentId) continue;
    if (!sel.runtimes.has(d.deploymentId) && probed++ >= MAX_PROBES) break;
    const answer = await runtimeOf(ctx, agent, sel, d.deploymentId);
    if (answer !== null && hasRunning(answer.data, source)) return d.deploymentId;
  }
  return undefined;
}
