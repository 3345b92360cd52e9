/**
 * Restart attribution (docs/restarts.md). Entry point for the status route:
 *
 *   const runtime = await driver.observeRuntime(deployment, { events: true, signal, deadline });
 *   const restarts = await recordAndListRestarts({
 *     deployment, runtime, driver, store, identityKey, cache, now, signal, deadline, log,
 *   });
 *   // data = { ...runtime.description, restarts }
 *
 * - `runtime`: the driver's `observeRuntime` result (description + per-Pod extras); the status
 *   route answers with `runtime.description`.
 * - `store`: a `DynamoRestartStore` over the Audit table (built once per container).
 * - `identityKey`: the identity (pseudonym) key, or null when it could not be loaded: actor and
 *   session references are then withheld (fail closed), never raw.
 * - `cache`: one `RestartCache` per Lambda container (not per request), so a transition already
 *   recorded is not read again.
 * - Bounded: only container restarts visible in this one observation (`restartCount > 0` with
 *   `lastState.terminated`) are recorded; per restarted container at most one previous-log read
 *   (tail 200 lines, ≤ 64 KiB) and one head read of the new instance (≤ 16 KiB), up to 4 at a time,
 *   at most 8 uncached transitions per call (newest first), none started within 1 s of `deadline`.
 *   Pod replacements need two observations and are the health probe's.
 * - Never throws: read and write failures are logged and leave the transition for a later
 *   observation; a failed list returns `[]` (logged). Returns the 20 newest records, newest first.
 */
import type { DeploymentRecord } from "../domain.ts";
import type { KubeDriver } from "../kube/driver.ts";
import type { RuntimeObservation } from "../kube/types.ts";
import type { IdentityKey } from "../runtime-logs/types.ts";
import { detectSingle } from "./detect.ts";
import { attributionDeps } from "./identity.ts";
import { toObservation } from "./observe.ts";
import { RestartCache, type RestartLog, recordTransitions, silentLog } from "./record.ts";
import { RESTART_LIST_LIMIT, type RestartStore } from "./store.ts";
import type { RestartRecord, Transition } from "./types.ts";

export { attribute } from "./attribute.ts";
export {
  type DeploymentRestartsCall,
  type DeploymentRestartsDeps,
  type DeploymentRestartsResult,
  IN_PROCESS_OVERLAP_MS,
  observeDeploymentRestarts,
  pendingObservation,
} from "./deployment.ts";
export { detectBetween, detectInProcess, detectSingle, instanceKey } from "./detect.ts";
export { attributionDeps } from "./identity.ts";
export { compactObservation, toObservation } from "./observe.ts";
export { formatRestartLine, parseRestartLine, readRestartLine, readRestartLines } from "./parse.ts";
export { READ_BOUNDS, RestartCache, type RestartLog, recordTransitions } from "./record.ts";
export {
  DynamoObservationStore,
  DynamoRestartStore,
  type ObservationStore,
  observationPk,
  RESTART_LIST_LIMIT,
  type RestartStore,
} from "./store.ts";
export type * from "./types.ts";

export interface StatusRestartsInput {
  deployment: DeploymentRecord;
  runtime: RuntimeObservation;
  driver: Pick<KubeDriver, "readLog">;
  store: RestartStore;
  identityKey: IdentityKey | null;
  cache: RestartCache;
  now: () => number;
  signal: AbortSignal;
  deadline: number;
  log?: RestartLog;
  /** Transitions attributed per call, newest first (default 8); the rest wait for a later read. */
  maxTransitions?: number;
}

/** Transitions one status read attributes at most (each may cost two log reads). */
export const STATUS_READ_MAX_TRANSITIONS = 8;

/** The newest records of a deployment, newest first (at most 20). */
export function listRestarts(
  store: RestartStore,
  namespaceId: string,
  agentId: string,
  deploymentId: string,
  limit = RESTART_LIST_LIMIT,
): Promise<RestartRecord[]> {
  return store.list(namespaceId, agentId, deploymentId, limit);
}

export async function recordAndListRestarts(input: StatusRestartsInput): Promise<RestartRecord[]> {
  const log = input.log ?? silentLog;
  const { namespaceId, agentId, deploymentId } = input.deployment;
  try {
    const observation = toObservation(input.runtime);
    const newestFirst = (t: Transition) => t.previous.finishedAt ?? "";
    const transitions = detectSingle(observation)
      .filter((t) => !input.cache.has(RestartCache.keyOf(t)))
      .sort((a, b) => newestFirst(b).localeCompare(newestFirst(a)))
      .slice(0, input.maxTransitions ?? STATUS_READ_MAX_TRANSITIONS);
    if (transitions.length > 0) {
      await recordTransitions(
        {
          deployment: input.deployment,
          driver: input.driver,
          store: input.store,
          attribution: attributionDeps(input.identityKey, namespaceId),
          detectedBy: "status-read",
          now: input.now,
          signal: input.signal,
          deadline: input.deadline,
          log,
          cache: input.cache,
        },
        transitions.map((transition) => ({ transition, chain: null })),
        new Set(observation.pods.map((p) => p.uid)),
      );
    }
  } catch (e) {
    log.warn("restart recording failed", { code: (e as { code?: string }).code ?? "INTERNAL" });
  }
  try {
    return await listRestarts(input.store, namespaceId, agentId, deploymentId, RESTART_LIST_LIMIT);
  } catch (e) {
    log.warn("restart records could not be listed", { code: (e as { code?: string }).code ?? "INTERNAL" });
    return [];
  }
}
