/**
 * Restart attribution (restarts.md). Entry point for the status route:
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
 *   (tail 200 lines, ≤ 64 KiB) and one head read of the new instance (≤ 16 KiB), up to 4 at a time.
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
import { type RestartCache, type RestartLog, recordTransitions, silentLog } from "./record.ts";
import { RESTART_LIST_LIMIT, type RestartStore } from "./store.ts";
import type { RestartRecord } from "./types.ts";

export { attribute } from "./attribute.ts";
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
}

export async function recordAndListRestarts(input: StatusRestartsInput): Promise<RestartRecord[]> {
  const log = input.log ?? silentLog;
  const { namespaceId, agentId, deploymentId } = input.deployment;
  try {
    const observation = toObservation(input.runtime);
    const transitions = detectSingle(observation);
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
    return await input.store.list(namespaceId, agentId, deploymentId, RESTART_LIST_LIMIT);
  } catch (e) {
    log.warn("restart records could not be listed", { code: (e as { code?: string }).code ?? "INTERNAL" });
    return [];
  }
}
