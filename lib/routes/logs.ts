/**
 * The logs and download routes (docs/api.md § Order of checks), one pass over narrow ports:
 * feature switch → authorize → verify the cursor (the source reader's) → resolve the deployment →
 * admit through the limiter → describe the source and decide the view → audit a new view → read
 * once and build the page (or the attachment). The HTTP adapter has parsed and validated the
 * event into a `LogsRequest` before this runs.
 */
import { randomUUID } from "node:crypto";
import { ServiceError } from "../api/errors.ts";
import type { DeploymentPath, ParsedLogQuery } from "../api/schemas.ts";
import type { AuditSink } from "../audit/sink.ts";
import type { ServiceKeys } from "../keys.ts";
import type { Limiter } from "../limiter/limiter.ts";
import type { RegistryStore } from "../registry/store.ts";
import type { CursorBinding } from "../runtime-logs/index.ts";
import { authorizeAgent, requireFeatureEnabled, resolveDeployment } from "./access.ts";
import { withLease } from "./lease.ts";
import type { RequestScope } from "./scope.ts";
import { readerFor, type SourceReaders, type SourceResult } from "./sources/port.ts";

/** A logs or download request as the HTTP adapter parsed it. */
export interface LogsRequest {
  principalId: string;
  path: DeploymentPath;
  /** `download` is true for `…/logs/download` and for `…/logs?download=true`. */
  query: ParsedLogQuery;
}

export interface LogsDeps {
  config: { enabled: boolean; limits: { downloadCost: number } };
  registry: Pick<RegistryStore, "getAgent" | "grantsFor" | "hasGrantInNamespace" | "getDeployment">;
  audit: Pick<AuditSink, "recordView" | "recordDownload" | "recordDenial">;
  limiter: Limiter;
  keys: () => Promise<ServiceKeys>;
  readers: SourceReaders;
}

export async function readLogs(
  request: LogsRequest,
  scope: RequestScope,
  deps: LogsDeps,
): Promise<SourceResult> {
  const { principalId, path, query } = request;
  const download = query.download;
  // 2. Feature switch, before authorization.
  requireFeatureEnabled(deps.config.enabled);
  // 3. Authorization, re-checked on every poll.
  const { agent, grant } = await authorizeAgent(deps, {
    route: download ? "download" : "logs",
    principalId,
    namespaceId: path.namespaceId,
    agentId: path.agentId,
    deploymentId: path.deploymentId,
    source: query.source,
    requestId: scope.requestId,
  });
  // The cursor is verified right after authorization: a bad one spends no token and reads nothing.
  const reader = readerFor(deps.readers, query.source);
  const keys = await deps.keys();
  const binding: CursorBinding = {
    principalId,
    namespaceId: path.namespaceId,
    agentId: path.agentId,
    deploymentId: path.deploymentId,
    source: query.source,
  };
  const prepared = reader?.prepare({ query, binding, cursorKeys: keys.cursor, now: scope.now() });
  // 4. Deployment resolution, capability and the source.
  const deployment = await resolveDeployment(deps.registry, agent, path.deploymentId);
  if (!reader?.available(deployment, query.source)) throw new ServiceError("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
  // 5. Limiter, then 6–7 under the lease.
  const cost = download ? deps.config.limits.downloadCost : 1;
  return withLease(deps, scope, { principalId, agent, cost }, async () => {
    const view = await reader.open({
      prepared,
      deployment,
      agentId: path.agentId,
      namespaceId: path.namespaceId,
      binding,
      // Pseudonyms are made with the current identity key (lib/keys.ts).
      keys: { cursor: keys.cursor, identity: keys.identity.current },
      requestId: scope.requestId,
      signal: scope.deadline.signal,
      deadline: scope.deadline.at,
      now: scope.now,
      checkDeadline: () => scope.deadline.check(),
    });
    if (view.newView) {
      // Written before any log byte is read; a failed write answers 503 and reads nothing.
      const audit = {
        namespaceId: path.namespaceId,
        agentId: path.agentId,
        principalId,
        requestId: scope.requestId,
        deploymentId: deployment.deploymentId,
        viewId: `rlv_${randomUUID()}`,
        grant: grant ?? "read_logs",
        source: query.source,
        ...view.newView,
      };
      if (download) await deps.audit.recordDownload(audit);
      else await deps.audit.recordView(audit);
    }
    return view.read();
  });
}
