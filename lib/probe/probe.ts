/**
 * The scheduled health probe (docs/surfaces.md § Health probe): stores, clusters, OpenShell gateways
 * (docs/sandbox.md) and restarts, within a time budget. Partial results are marked, never silent. Never throws: every failure becomes a
 * figure in the report.
 */

import { isServiceError } from "../api/errors.ts";
import { mapLimited } from "../concurrency.ts";
import type { DeploymentRecord } from "../domain.ts";
import type { KeyProvider, ServiceKeys } from "../keys.ts";
import type { KubeDriver } from "../kube/driver.ts";
import type { SandboxDriver } from "../openshell/driver.ts";
import type { RegistryStore } from "../registry/store.ts";
// The module itself, not the restarts index: the index also holds the DynamoDB stores, which the
// probe's entry must not load at cold start (P3; its stores come with the first invocation).
import { type DeploymentRestartsDeps, observeDeploymentRestarts } from "../restarts/deployment.ts";
import type { RestartLog } from "../restarts/record.ts";
import {
  type CheckStatus,
  type ClusterCheck,
  type ClustersCheck,
  type DeploymentFailure,
  type GatewayCheck,
  type GatewaysCheck,
  groupStatus,
  type NamespaceCheck,
  type ProbeReport,
  type RestartsCheck,
  type StoresCheck,
  type TableCheck,
  worst,
} from "./report.ts";

/** A table's cheap call (a GetItem of a key that never exists). */
export interface TablePing {
  table: TableCheck["table"];
  ping(signal: AbortSignal): Promise<void>;
}

export interface ProbeLog extends RestartLog {
  info(message: string, fields?: Record<string, unknown>): void;
}

/** What the restart observation of each deployment needs (lib/restarts), and the probe's own checks. */
export interface ProbeDeps extends DeploymentRestartsDeps {
  registry: Pick<RegistryStore, "listRunningAgents" | "getDeployment">;
  driver: DeploymentRestartsDeps["driver"] & Pick<KubeDriver, "checkAccess">;
  /** `Health` per OpenShell gateway; absent, the gateways check has nothing to check. */
  sandbox?: Pick<SandboxDriver, "health">;
  tables: TablePing[];
  keys: KeyProvider;
  log: ProbeLog;
}

export interface ProbeOptions {
  /** Time budget in ms (default 50 s, under the 60 s function timeout). */
  budgetMs?: number;
  /** Deployments observed at once (default 4). */
  concurrency?: number;
}

export const DEFAULT_BUDGET_MS = 50_000;
/** `GET /version` slower than this marks the cluster degraded. */
export const SLOW_CLUSTER_MS = 2_000;
/** `Health` slower than this marks the gateway degraded. */
export const SLOW_GATEWAY_MS = 2_000;

const codeOf = (e: unknown): string => (isServiceError(e) ? e.code : "INTERNAL");

interface Budget {
  deadline: number;
  signal: AbortSignal;
  left(): number;
}

async function checkStores(deps: ProbeDeps, budget: Budget): Promise<StoresCheck> {
  const tables = await Promise.all(
    deps.tables.map(async (t): Promise<TableCheck> => {
      const started = deps.now();
      try {
        await t.ping(budget.signal);
        return { table: t.table, status: "ok", latencyMs: deps.now() - started };
      } catch (e) {
        return { table: t.table, status: "failed", latencyMs: deps.now() - started, errorCode: codeOf(e) };
      }
    }),
  );
  let keys: StoresCheck["keys"];
  try {
    await deps.keys();
    // Requests are served with the last good keys while their store fails: the probe must not be.
    keys = deps.keys.refreshFailing?.()
      ? { status: "degraded", errorCode: "KEY_REFRESH_FAILING" }
      : { status: "ok" };
  } catch {
    keys = { status: "failed", errorCode: "KEY_UNAVAILABLE" };
  }
  return { status: worst([...tables.map((t) => t.status), keys.status]), tables, keys };
}

/** Running deployments: the active deployment of every running Agent, kubernetes-driven only. */
async function runningDeployments(deps: ProbeDeps): Promise<DeploymentRecord[]> {
  const agents = await deps.registry.listRunningAgents();
  const out: DeploymentRecord[] = [];
  await mapLimited(agents, 8, async (a) => {
    const d = await deps.registry.getDeployment(a.namespaceId, a.agentId, a.activeDeploymentId);
    if (d && d.computeDriver === "kubernetes" && d.runtimeLogging === "service") out.push(d);
  });
  return out.sort((x, y) =>
    `${x.namespaceId}/${x.agentId}/${x.deploymentId}`.localeCompare(
      `${y.namespaceId}/${y.agentId}/${y.deploymentId}`,
    ),
  );
}

/** The order of clusters and gateways in the report. */
const byId = (a: string, b: string): number => a.localeCompare(b);

async function checkClusters(
  deps: ProbeDeps,
  deployments: DeploymentRecord[],
  budget: Budget,
): Promise<ClustersCheck> {
  const namespaces = new Map<string, Set<string>>();
  for (const d of deployments) {
    for (const p of Object.values(d.placement)) {
      if (!p) continue;
      const set = namespaces.get(p.clusterId) ?? new Set<string>();
      set.add(p.namespace);
      namespaces.set(p.clusterId, set);
    }
  }
  let skipped = 0;
  // Sorted once: mapLimited keeps this order, so the report lists the clusters in it.
  const clusterIds = [...namespaces.keys()].sort(byId);
  const clusters = await mapLimited(clusterIds, 4, async (clusterId): Promise<ClusterCheck> => {
    const checks: NamespaceCheck[] = [];
    let latencyMs: number | null = null;
    let versionOk = false;
    let versionError: string | undefined;
    for (const namespace of [...(namespaces.get(clusterId) ?? [])].sort()) {
      if (budget.left() <= 0) {
        skipped++;
        continue;
      }
      try {
        const report = await deps.driver.checkAccess(clusterId, namespace, {
          signal: budget.signal,
          deadline: budget.deadline,
        });
        if (report.version.ok) {
          versionOk = true;
          latencyMs =
            latencyMs === null ? report.version.latencyMs : Math.min(latencyMs, report.version.latencyMs);
        } else {
          versionError = report.version.errorCode ?? "RUNTIME_LOGS_UNAVAILABLE";
        }
        const missing = report.checks
          .filter((c) => c.allowed === false)
          .map((c) => `${c.verb} ${c.resource}`);
        const unknown = report.checks.some((c) => c.allowed === null);
        const status: CheckStatus =
          !report.version.ok || missing.length > 0 ? "failed" : unknown ? "degraded" : "ok";
        const reviewError = report.checks.find((c) => c.errorCode)?.errorCode;
        checks.push({
          namespace,
          status,
          missing,
          permissions: report.checks.map((c) => ({ verb: c.verb, resource: c.resource, allowed: c.allowed })),
          ...(reviewError ? { errorCode: reviewError } : {}),
        });
      } catch (e) {
        checks.push({ namespace, status: "failed", missing: [], permissions: [], errorCode: codeOf(e) });
      }
    }
    const slow = latencyMs !== null && latencyMs > SLOW_CLUSTER_MS;
    const status = worst([...checks.map((c) => c.status), slow ? "degraded" : "ok"]);
    const errorCode = versionError ?? checks.find((c) => c.errorCode)?.errorCode;
    return {
      clusterId,
      status: checks.length === 0 ? "degraded" : status,
      latencyMs,
      versionOk,
      namespaces: checks,
      ...(errorCode && !versionOk ? { errorCode } : {}),
    };
  });
  const partial = skipped > 0;
  const status = groupStatus(clusters.map((c) => c.status));
  return { status: partial ? worst([status, "degraded"]) : status, clusters, partial, skipped };
}

/**
 * Every OpenShell gateway a running deployment's sandbox names (as clusters are found through
 * placements): one `Health` call each, its latency, what the gateway says of itself, its version
 * and the auth the service uses. Not serving, or slower than 2 s, is degraded; no answer is failed.
 */
async function checkGateways(
  deps: ProbeDeps,
  deployments: DeploymentRecord[],
  budget: Budget,
): Promise<GatewaysCheck> {
  const ids = [...new Set(deployments.flatMap((d) => (d.sandbox ? [d.sandbox.endpointRef] : [])))].sort(byId);
  const sandbox = deps.sandbox;
  if (!sandbox) return emptyGateways("ok");
  let skipped = 0;
  // Sorted once, as the clusters are; a gateway the budget skipped leaves a null.
  const checked = await mapLimited(ids, 4, async (gatewayId): Promise<GatewayCheck | null> => {
    if (budget.left() <= 0) {
      skipped++;
      return null;
    }
    try {
      const h = await sandbox.health(gatewayId, { signal: budget.signal, deadline: budget.deadline });
      const status: CheckStatus =
        h.status === "unhealthy"
          ? "failed"
          : h.status !== "healthy" || h.latencyMs > SLOW_GATEWAY_MS
            ? "degraded"
            : "ok";
      return {
        gatewayId,
        status,
        latencyMs: h.latencyMs,
        serving: h.status,
        version: h.version,
        auth: h.auth,
      };
    } catch (e) {
      return {
        gatewayId,
        status: "failed",
        latencyMs: null,
        serving: null,
        version: null,
        auth: null,
        errorCode: codeOf(e),
      };
    }
  });
  const gateways = checked.filter((g) => g !== null);
  const partial = skipped > 0;
  const status = groupStatus(gateways.map((g) => g.status));
  return { status: partial ? worst([status, "degraded"]) : status, gateways, partial, skipped };
}

async function checkRestarts(
  deps: ProbeDeps,
  deployments: DeploymentRecord[],
  budget: Budget,
  concurrency: number,
): Promise<RestartsCheck> {
  let identity: ServiceKeys["identity"]["current"] | null = null;
  try {
    identity = (await deps.keys()).identity.current;
  } catch {
    identity = null; // pseudonyms are then withheld (fail closed), attribution still runs
  }
  const check: RestartsCheck = { ...emptyRestarts("ok"), deployments: deployments.length };
  await mapLimited(deployments, concurrency, async (d) => {
    if (budget.left() <= 0) {
      check.skipped++;
      return;
    }
    try {
      const r = await observeDeploymentRestarts(deps, d, budget, identity);
      check.observed++;
      check.transitions += r.transitions;
      check.recorded += r.written;
      check.existing += r.existing;
      check.deferred += r.deferred;
      if (r.skippedReads > 0) check.partial = true;
      if (r.withoutEvents) check.withoutEvents++;
    } catch (e) {
      const failure: DeploymentFailure = {
        namespaceId: d.namespaceId,
        agentId: d.agentId,
        deploymentId: d.deploymentId,
        errorCode: codeOf(e),
      };
      check.failures.push(failure);
      // The error's class only: its message may carry cluster text.
      deps.log.warn("deployment probe failed", {
        ...failure,
        error: e instanceof Error ? e.name : typeof e,
      });
    }
  });
  check.failures.sort((a, b) => a.deploymentId.localeCompare(b.deploymentId));
  check.partial ||= check.skipped > 0;
  check.status =
    deployments.length > 0 && check.failures.length === deployments.length
      ? "failed"
      : check.failures.length > 0 || check.deferred > 0 || check.partial || check.withoutEvents > 0
        ? "degraded"
        : "ok";
  return check;
}

const emptyClusters = (status: CheckStatus): ClustersCheck => ({
  status,
  clusters: [],
  partial: false,
  skipped: 0,
});
const emptyGateways = (status: CheckStatus): GatewaysCheck => ({
  status,
  gateways: [],
  partial: false,
  skipped: 0,
});
const emptyRestarts = (status: CheckStatus, errorCode?: string): RestartsCheck => ({
  status,
  deployments: 0,
  observed: 0,
  transitions: 0,
  recorded: 0,
  existing: 0,
  deferred: 0,
  withoutEvents: 0,
  failures: [],
  partial: false,
  skipped: 0,
  ...(errorCode ? { errorCode } : {}),
});

export async function runHealthProbe(deps: ProbeDeps, options: ProbeOptions = {}): Promise<ProbeReport> {
  const startedMs = deps.now();
  const budgetMs = Math.max(0, options.budgetMs ?? DEFAULT_BUDGET_MS);
  const deadline = startedMs + budgetMs;
  const controller = new AbortController();
  // Stop in-flight cluster and store calls when the budget is spent.
  const timer = setTimeout(() => controller.abort(), budgetMs);
  timer.unref?.();
  const budget: Budget = { deadline, signal: controller.signal, left: () => deadline - deps.now() };
  try {
    const storesP = checkStores(deps, budget);
    let deployments: DeploymentRecord[] | null = null;
    let registryError: string | undefined;
    try {
      deployments = await runningDeployments(deps);
    } catch (e) {
      registryError = codeOf(e);
    }
    const [stores, clusters, gateways, restarts] = await Promise.all([
      storesP,
      deployments ? checkClusters(deps, deployments, budget) : Promise.resolve(emptyClusters("failed")),
      deployments ? checkGateways(deps, deployments, budget) : Promise.resolve(emptyGateways("failed")),
      deployments
        ? checkRestarts(deps, deployments, budget, options.concurrency ?? 4)
        : Promise.resolve(emptyRestarts("failed", registryError)),
    ]);
    const finishedMs = deps.now();
    return {
      report: "runtime-logs.health-probe",
      status: worst([stores.status, clusters.status, gateways.status, restarts.status]),
      startedAt: new Date(startedMs).toISOString(),
      finishedAt: new Date(finishedMs).toISOString(),
      durationMs: finishedMs - startedMs,
      budgetMs,
      partial: clusters.partial || gateways.partial || restarts.partial,
      checks: { stores, clusters, restarts, gateways },
    };
  } finally {
    clearTimeout(timer);
  }
}
