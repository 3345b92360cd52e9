/**
 * The status function's dependencies: the service's, plus restart attribution (docs/restarts.md) with
 * its store over the Audit table and one per-container cache of transitions already recorded.
 */
import { DynamoRestartStore, RestartCache, recordAndListRestarts } from "../restarts/index.ts";
import type { ServiceDeps } from "../service/deps.ts";
import type { StatusDeps } from "./status.ts";

export function statusDeps(deps: ServiceDeps): StatusDeps {
  const store = new DynamoRestartStore({
    doc: deps.dynamo.doc,
    tableName: deps.config.tables.audit,
    retentionDays: deps.config.auditRetentionDays,
  });
  const cache = new RestartCache();
  return {
    ...deps,
    restarts: async ({ deployment, runtime, scope }) => {
      // A key that cannot be loaded withholds actor references (fail closed) but never fails the read.
      const identityKey = await deps.keys().then(
        (keys) => keys.identity.current,
        () => null,
      );
      return recordAndListRestarts({
        deployment,
        runtime,
        driver: deps.driver,
        store,
        identityKey,
        cache,
        now: scope.now,
        signal: scope.deadline.signal,
        deadline: scope.deadline.at,
        log: {
          warn: (message, fields) => deps.logger.warn(message, { requestId: scope.requestId, ...fields }),
        },
      });
    },
  };
}
