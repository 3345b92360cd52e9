/**
 * The logs and download routes (api.md): validate, authorize, verify the cursor, resolve the
 * deployment, admit through the limiter, describe the source, audit a new view before any log
 * byte is read, read once, and build the page (or the attachment) with the pure pipeline.
 */
import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { ServiceError } from "../api/errors.ts";
import { deploymentPathSchema, type LogQuery, parseLogQuery, parsePath } from "../api/schemas.ts";
import { type AuthorizerEvent, requirePrincipal } from "../auth/principal.ts";
import type { DeploymentRecord, Role } from "../domain.ts";
import type { RequestScope } from "../http/handler.ts";
import { attachmentResult, type HttpResult, serializedJsonResult } from "../http/response.ts";
import type { SourcePod } from "../kube/types.ts";
import {
  buildLogPage,
  type CursorBinding,
  type CursorState,
  cursorTargets,
  DOWNLOAD_BUDGET_BYTES,
  downloadFileName,
  type LogPage,
  planLogRead,
  renderDownload,
  verifyCursor,
} from "../runtime-logs/index.ts";
import type { ServiceDeps } from "../service/deps.ts";
import { authorizeAgent, requireFeatureEnabled, resolveDeployment } from "./access.ts";
import { withLease } from "./lease.ts";

const DEFAULT_TAIL_LINES = 200;
const DOWNLOAD_TAIL_LINES = 1000;

export const readLogs = (event: APIGatewayProxyEventV2, scope: RequestScope, deps: ServiceDeps) =>
  serveLogs(event, scope, deps, "logs");

export const downloadLogs = (event: APIGatewayProxyEventV2, scope: RequestScope, deps: ServiceDeps) =>
  serveLogs(event, scope, deps, "download");

async function serveLogs(
  event: APIGatewayProxyEventV2,
  scope: RequestScope,
  deps: ServiceDeps,
  route: "logs" | "download",
): Promise<HttpResult> {
  // 1. Authentication and contract validation.
  const principal = requirePrincipal(event as AuthorizerEvent);
  scope.principalId = principal.id;
  const path = parsePath(deploymentPathSchema, event.pathParameters);
  const query = parseLogQuery(event.queryStringParameters, route, scope.now());
  const download = query.download;
  // 2. Feature switch, before authorization.
  requireFeatureEnabled(deps.config.enabled);
  // 3. Authorization (re-checked on every poll).
  const { agent, grant } = await authorizeAgent(deps, {
    route: download ? "download" : "logs",
    principalId: principal.id,
    namespaceId: path.namespaceId,
    agentId: path.agentId,
    deploymentId: path.deploymentId,
    source: query.source,
    requestId: scope.requestId,
  });
  // The cursor is verified right after authorization: a bad one spends no token and reads nothing.
  const keys = await deps.keys();
  const binding: CursorBinding = {
    principalId: principal.id,
    namespaceId: path.namespaceId,
    agentId: path.agentId,
    deploymentId: path.deploymentId,
    source: query.source,
  };
  const verified = query.cursor
    ? verifyCursor(query.cursor, { binding, keys: keys.cursor, now: scope.now() })
    : null;
  // 4. Deployment resolution and capability.
  const deployment = await resolveDeployment(deps.registry, agent, path.deploymentId);
  const role = sourceRole(deployment, query);
  // 5. Limiter, then 6–7 under the lease.
  const cost = download ? deps.config.limits.downloadCost : 1;
  return withLease(deps, scope, { principalId: principal.id, agent, cost }, async () => {
    const description = await deps.driver.describeRuntime(deployment, {
      roles: [role],
      events: false,
      signal: scope.deadline.signal,
      deadline: scope.deadline.at,
    });
    const pods = description.sources.find((s) => s.id === query.source)?.pods ?? [];
    const cursor = verified?.status === "valid" ? verified.state : null;
    // An expired cursor still says which Pod and instance the user was following.
    const hint = verified?.state ?? null;
    const target = choosePod(pods, query, hint);
    const previous = query.previous ?? (hint && target?.name === hint.pod ? hint.previous : false);
    const pageContext = {
      binding,
      deploymentId: deployment.deploymentId,
      requestId: scope.requestId,
      namespaceId: path.namespaceId,
      now: scope.now(),
      keys: { cursor: keys.cursor, identity: keys.identity },
    };

    if (!target) {
      // No running Pod: nothing to read, nothing to audit.
      const built = buildLogPage({
        ...pageContext,
        chunk: null,
        cursor: null,
        expired: false,
        view: {
          binding,
          tailLines: query.tailLines ?? DEFAULT_TAIL_LINES,
          source: query.source,
          ...level(query),
        },
      });
      return download
        ? attachment(built.page, { agentId: agent.agentId, query, pod: null, previous }, scope.requestId)
        : serializedJsonResult(200, built.body, scope.requestId);
    }

    // A view continues only on the same Pod name and `previous`; anything else starts a new one. When
    // the cursor's Pod is gone, the new view still carries the old cursor so the page opens with a
    // `stream_replaced` gap instead of switching Pods silently.
    const podGone = cursor !== null && query.pod === undefined && !pods.some((p) => p.name === cursor.pod);
    const continuing =
      !download &&
      cursor !== null &&
      cursorTargets(cursor).pod === target.name &&
      cursor.previous === previous;
    const carried = !download && (continuing || (podGone && cursor?.previous === previous)) ? cursor : null;
    const tailLines = download
      ? DOWNLOAD_TAIL_LINES
      : (carried?.tailLines ?? query.tailLines ?? DEFAULT_TAIL_LINES);

    if (!continuing) {
      const audit = {
        namespaceId: path.namespaceId,
        agentId: path.agentId,
        principalId: principal.id,
        requestId: scope.requestId,
        deploymentId: deployment.deploymentId,
        viewId: `rlv_${randomUUID()}`,
        grant: grant ?? "read_logs",
        source: query.source,
        pod: target.name,
        container: target.container,
        previous,
        tailLines,
      } as const;
      if (download) await deps.audit.recordDownload(audit);
      else await deps.audit.recordView(audit);
    }

    const plan = planLogRead({
      cursor: carried,
      pod: target.name,
      podUid: target.uid,
      restartCount: target.restartCount,
      previous,
      tailLines,
      ...(!carried && query.sinceSeconds !== undefined ? { sinceSeconds: query.sinceSeconds } : {}),
      ...(!carried && query.sinceTime !== undefined ? { sinceTime: query.sinceTime } : {}),
      now: scope.now(),
    });
    const chunk = await deps.driver.readLog(deployment, {
      role,
      pod: target.name,
      podUid: target.uid,
      container: target.container,
      tailLines: plan.tailLines,
      ...(plan.sinceTime !== undefined ? { sinceTime: plan.sinceTime } : {}),
      ...(plan.sinceSeconds !== undefined ? { sinceSeconds: plan.sinceSeconds } : {}),
      previous,
      limitBytes: plan.limitBytes,
      signal: scope.deadline.signal,
      deadline: scope.deadline.at,
    });
    scope.deadline.check();
    const built = buildLogPage({
      ...pageContext,
      chunk,
      cursor: carried,
      expired: !download && verified?.status === "expired",
      view: { binding, tailLines, source: query.source, ...level(query) },
      ...(download ? { maxBytes: DOWNLOAD_BUDGET_BYTES } : {}),
    });
    return download
      ? attachment(built.page, { agentId: agent.agentId, query, pod: target.name, previous }, scope.requestId)
      : serializedJsonResult(200, built.body, scope.requestId);
  });
}

function attachment(
  page: LogPage,
  meta: { agentId: string; query: LogQuery; pod: string | null; previous: boolean },
  requestId: string,
): HttpResult {
  const fileName = downloadFileName({
    agentId: meta.agentId,
    deploymentId: page.deploymentId,
    source: meta.query.source,
    pod: meta.pod,
    previous: meta.previous,
  });
  return attachmentResult(renderDownload({ agentId: meta.agentId }, page), fileName, requestId);
}

const level = (query: LogQuery) => (query.minLevel ? { minLevel: query.minLevel } : {});

/** The role a source reads, or 400 when the deployment has no such source. */
function sourceRole(deployment: DeploymentRecord, query: LogQuery): Role {
  // Sandbox reads (OpenShell) are not wired yet: every sandbox request is "no such source".
  if (query.source === "sandbox") throw new ServiceError("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
  if (!deployment.placement[query.source]) throw new ServiceError("RUNTIME_LOGS_SOURCE_UNAVAILABLE");
  return query.source;
}

/**
 * The Pod to read: the one asked for (400 when it is not a current Pod of the source), else the
 * cursor's when it is still there (a gone Pod starts a new view on the first), else the first.
 */
function choosePod(
  pods: readonly SourcePod[],
  query: LogQuery,
  cursor: CursorState | null,
): SourcePod | null {
  if (query.pod !== undefined) {
    const asked = pods.find((p) => p.name === query.pod);
    if (!asked) throw new ServiceError("RUNTIME_LOGS_POD_INVALID");
    return asked;
  }
  if (cursor) {
    const same = pods.find((p) => p.name === cursor.pod);
    if (same) return same;
  }
  return pods[0] ?? null;
}
