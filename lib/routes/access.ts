/**
 * Steps 2–4 of docs/api.md § Order of checks, shared by every route: the feature switch, authorization
 * against the registry (denials audited before they are answered), deployment resolution and the
 * driver capability check.
 */
import { ServiceError } from "../api/errors.ts";
import type { AuditSink } from "../audit/sink.ts";
import {
  type AdmittingGrant,
  authorize,
  denialOutcome,
  grantsShowNamespaceAccess,
  type Route,
} from "../auth/policy.ts";
import type { AgentRecord, DeploymentRecord, SourceId } from "../domain.ts";
import type { RegistryStore } from "../registry/store.ts";

export interface AccessRequest {
  route: Route;
  principalId: string;
  namespaceId: string;
  agentId: string;
  requestId: string;
  deploymentId?: string;
  source?: SourceId;
}

export interface AccessGranted {
  agent: AgentRecord;
  /** For log reads and downloads: the action that admitted them (audited with the view). */
  grant: AdmittingGrant | null;
}

export function requireFeatureEnabled(enabled: boolean): void {
  if (!enabled) throw new ServiceError("NOT_IMPLEMENTED", { internal: "feature switch off" });
}

/** Authorizes the principal on the Agent, or throws FORBIDDEN (audited), NOT_FOUND or a 503. */
export async function authorizeAgent(
  deps: {
    registry: Pick<RegistryStore, "getAgent" | "grantsFor" | "hasGrantInNamespace">;
    audit: Pick<AuditSink, "recordDenial">;
  },
  request: AccessRequest,
): Promise<AccessGranted> {
  const [agent, grants] = await Promise.all([
    deps.registry.getAgent(request.namespaceId, request.agentId),
    deps.registry.grantsFor(request.principalId, request.namespaceId, request.agentId),
  ]);
  const decision = authorize({ route: request.route, agent, grants });
  if (decision.allowed) return { agent: agent as AgentRecord, grant: decision.grant };

  // Outsiders must not tell an unknown Agent from one they hold no grant on (docs/quality.md R12): every
  // denial asks the store the same question, whatever its reason, unless the grants already answer it.
  const namespaceAccess =
    grantsShowNamespaceAccess(grants, request.namespaceId) ||
    (await deps.registry.hasGrantInNamespace(request.principalId, request.namespaceId));
  const outcome = denialOutcome(decision, namespaceAccess);
  if (outcome.audit) {
    await deps.audit.recordDenial({
      namespaceId: request.namespaceId,
      agentId: request.agentId,
      principalId: request.principalId,
      requestId: request.requestId,
      route: request.route,
      action: decision.failedAction,
      reasonCode: decision.reason,
      ...(request.deploymentId ? { deploymentId: request.deploymentId } : {}),
      ...(request.source ? { source: request.source } : {}),
    });
  }
  throw new ServiceError(outcome.code, { internal: `denied: ${decision.reason}` });
}

/** The deployment of that Agent whose runtime this service reads (404, or 501 when it can't). */
export async function resolveDeployment(
  registry: Pick<RegistryStore, "getDeployment">,
  agent: AgentRecord,
  deploymentId: string,
): Promise<DeploymentRecord> {
  const deployment = await registry.getDeployment(agent.namespaceId, agent.agentId, deploymentId);
  if (!deployment) throw new ServiceError("NOT_FOUND");
  if (deployment.computeDriver !== "kubernetes" || deployment.runtimeLogging !== "service")
    throw new ServiceError("NOT_IMPLEMENTED", { internal: "driver owns runtime logging" });
  return deployment;
}
