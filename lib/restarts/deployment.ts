/**
 * One deployment's restart observation for the health probe (docs/restarts.md): compare the runtime
 * with the last stored observation, read each running container's recent lines for in-process
 * restarts, record what was found and store the new observation, rolling back deferred transitions
 * so the next run detects them again.
 */
import { isServiceError } from "../api/errors.ts";
import type { DeploymentRecord } from "../domain.ts";
import type { KubeDriver } from "../kube/driver.ts";
import type { IdentityKey } from "../runtime-logs/types.ts";
import { detectBetween, detectInProcess } from "./detect.ts";
import { attributionDeps } from "./identity.ts";
import { compactObservation, toObservation } from "./observe.ts";
import { type RestartLine, readRestartLines } from "./parse.ts";
import { READ_BOUNDS, type RestartCache, type RestartLog, recordTransitions } from "./record.ts";
import type { ObservationStore, RestartStore } from "./store.ts";
import type { Observation, Transition } from "./types.ts";

/** Overlap of successive in-process reads, so a restart at a window edge is not lost. */
export const IN_PROCESS_OVERLAP_MS = 5 * 60_000;

export interface DeploymentRestartsDeps {
  driver: Pick<KubeDriver, "observeRuntime" | "readLog">;
  restarts: RestartStore;
  observations: ObservationStore;
  log: RestartLog;
  now: () => number;
  cache?: RestartCache;
  newId?: (timeMs: number) => string;
}

export interface DeploymentRestartsCall {
  signal: AbortSignal;
  deadline: number;
  /** Time left in the caller's budget; reads are skipped (and counted) once it is spent. */
  left(): number;
}

export interface DeploymentRestartsResult {
  /** Reads skipped because the budget ran out (the run is then partial). */
  skippedReads: number;
  /** Observed without Events (a permission gap): attribution has less evidence. */
  withoutEvents: boolean;
  transitions: number;
  written: number;
  existing: number;
  deferred: number;
}

const codeOf = (e: unknown): string => (isServiceError(e) ? e.code : "INTERNAL");

/**
 * What to store as the deployment's last observation: the new one, except that deferred
 * transitions are rolled back so the next run detects them again.
 */
export function pendingObservation(
  next: Observation,
  prev: Observation | null,
  deferred: Transition[],
): Observation {
  if (deferred.length === 0) return next;
  const pods = next.pods.map((p) => ({ ...p, containers: p.containers.map((c) => ({ ...c })) }));
  const dropUids = new Set<string>();
  for (const t of deferred) {
    if (t.scope === "container-restart") {
      const c = pods.find((p) => p.uid === t.next.podUid)?.containers.find((x) => x.name === t.container);
      if (c) c.restartCount = t.previous.restartCount;
    } else if (t.scope === "pod-replacement") {
      dropUids.add(t.next.podUid);
      const old = prev?.pods.find((p) => p.uid === t.previous.podUid);
      if (old && !pods.some((p) => p.uid === old.uid)) pods.push(old);
    }
  }
  return { observedAt: next.observedAt, pods: pods.filter((p) => !dropUids.has(p.uid)) };
}

/**
 * Observes one deployment and records its restarts (detected by the health probe). Throws what the
 * observation throws (the caller reports it); read failures are logged and skipped.
 */
export async function observeDeploymentRestarts(
  deps: DeploymentRestartsDeps,
  d: DeploymentRecord,
  call: DeploymentRestartsCall,
  identity: IdentityKey | null,
): Promise<DeploymentRestartsResult> {
  const prev = await deps.observations.get(d.namespaceId, d.agentId, d.deploymentId);
  const limits = { signal: call.signal, deadline: call.deadline };
  let withoutEvents = false;
  let runtime: Awaited<ReturnType<DeploymentRestartsDeps["driver"]["observeRuntime"]>>;
  try {
    runtime = await deps.driver.observeRuntime(d, { events: true, ...limits });
  } catch (e) {
    if (codeOf(e) !== "RUNTIME_LOGS_CLUSTER_RBAC") throw e;
    // Events denied (the clusters check names the permission): detect without them, attribute less.
    runtime = await deps.driver.observeRuntime(d, { events: false, ...limits });
    withoutEvents = true;
  }
  const observation = toObservation(runtime);
  const items: { transition: Transition; chain: RestartLine[] | null }[] = detectBetween(
    prev,
    observation,
  ).map((transition) => ({ transition, chain: null }));

  // In-process restarts are invisible to Kubernetes: read each running container's recent lines.
  const since = prev
    ? new Date(Date.parse(prev.observedAt) - IN_PROCESS_OVERLAP_MS).toISOString()
    : undefined;
  let skippedReads = 0;
  for (const pod of observation.pods) {
    for (const c of pod.containers) {
      if (c.init) continue;
      if (call.left() <= 0) {
        skippedReads++;
        continue;
      }
      try {
        const chunk = await deps.driver.readLog(d, {
          role: pod.role,
          pod: pod.name,
          podUid: pod.uid,
          container: c.name,
          previous: false,
          tailLines: READ_BOUNDS.tailLines,
          limitBytes: READ_BOUNDS.limitBytes,
          ...(since && !Number.isNaN(Date.parse(since)) ? { sinceTime: since } : {}),
          ...limits,
        });
        const text = chunk.truncated
          ? chunk.text.slice(0, Math.max(0, chunk.text.lastIndexOf("\n")))
          : chunk.text;
        for (const found of detectInProcess(pod, c, readRestartLines(text))) items.push(found);
      } catch (e) {
        deps.log.warn("in-process restart read failed", { code: codeOf(e), deployment: d.deploymentId });
      }
    }
  }

  const outcome = await recordTransitions(
    {
      deployment: d,
      driver: deps.driver,
      store: deps.restarts,
      attribution: attributionDeps(identity, d.namespaceId),
      detectedBy: "health-probe",
      now: deps.now,
      ...limits,
      log: deps.log,
      ...(deps.cache ? { cache: deps.cache } : {}),
      ...(deps.newId ? { newId: deps.newId } : {}),
    },
    items,
    new Set(observation.pods.map((p) => p.uid)),
  );
  await deps.observations.put(
    d.namespaceId,
    d.agentId,
    d.deploymentId,
    compactObservation(pendingObservation(observation, prev, outcome.deferred)),
  );
  return {
    skippedReads,
    withoutEvents,
    transitions: items.length,
    written: outcome.written,
    existing: outcome.existing,
    deferred: outcome.deferred.length,
  };
}
