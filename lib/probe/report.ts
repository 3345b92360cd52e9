/**
 * The health probe's report (docs/surfaces.md § Health probe, docs/sandbox.md for the OpenShell
 * gateways) and its CloudWatch metrics (through
 * Powertools Metrics, which writes Embedded Metric Format).
 */
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";

export type CheckStatus = "ok" | "degraded" | "failed";

export interface TableCheck {
  table: "registry" | "state" | "audit";
  status: CheckStatus;
  latencyMs: number;
  errorCode?: string;
}

export interface StoresCheck {
  status: CheckStatus;
  tables: TableCheck[];
  /** Cursor-signing and identity keys. */
  keys: { status: CheckStatus; errorCode?: string };
}

export interface PermissionCheck {
  verb: string;
  resource: string;
  allowed: boolean | null;
}

export interface NamespaceCheck {
  namespace: string;
  status: CheckStatus;
  /** Permissions the cluster denies, exactly as `verb resource` (e.g. `get pods/log`). */
  missing: string[];
  permissions: PermissionCheck[];
  errorCode?: string;
}

export interface ClusterCheck {
  clusterId: string;
  status: CheckStatus;
  /** `GET /version` latency in milliseconds; null when it was not reached. */
  latencyMs: number | null;
  versionOk: boolean;
  namespaces: NamespaceCheck[];
  errorCode?: string;
}

export interface ClustersCheck {
  status: CheckStatus;
  clusters: ClusterCheck[];
  partial: boolean;
  /** Cluster namespaces not checked because the time budget ran out. */
  skipped: number;
}

/** One OpenShell gateway's `Health` answer (docs/sandbox.md § Surfaces). */
export interface GatewayCheck {
  gatewayId: string;
  status: CheckStatus;
  /** `Health` latency in milliseconds; null when it was not reached. */
  latencyMs: number | null;
  /** What the gateway says of itself (`healthy`, `degraded`, `unhealthy`, …); null when unreached. */
  serving: string | null;
  version: string | null;
  /** How the service proves itself to this gateway: `mtls`, `token` or `plaintext`. */
  auth: "mtls" | "token" | "plaintext" | null;
  errorCode?: string;
}

export interface GatewaysCheck {
  status: CheckStatus;
  gateways: GatewayCheck[];
  partial: boolean;
  /** Gateways not checked because the time budget ran out. */
  skipped: number;
}

export interface DeploymentFailure {
  namespaceId: string;
  agentId: string;
  deploymentId: string;
  errorCode: string;
}

export interface RestartsCheck {
  status: CheckStatus;
  deployments: number;
  observed: number;
  transitions: number;
  recorded: number;
  existing: number;
  deferred: number;
  /** Deployments observed without Events because listing them was denied. */
  withoutEvents: number;
  failures: DeploymentFailure[];
  partial: boolean;
  /** Deployments not observed because the time budget ran out. */
  skipped: number;
  errorCode?: string;
}

export interface ProbeReport {
  report: "runtime-logs.health-probe";
  status: CheckStatus;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  budgetMs: number;
  /** True when any check ran out of time: its figures cover only what was done. */
  partial: boolean;
  checks: { stores: StoresCheck; clusters: ClustersCheck; restarts: RestartsCheck; gateways: GatewaysCheck };
}

const RANK: Record<CheckStatus, number> = { ok: 0, degraded: 1, failed: 2 };

export const worst = (statuses: readonly CheckStatus[]): CheckStatus =>
  statuses.reduce<CheckStatus>((a, b) => (RANK[b] > RANK[a] ? b : a), "ok");

/**
 * Status of a group whose members are independent (clusters): all failed → failed, some failed or
 * degraded → degraded; an empty group is ok.
 */
export function groupStatus(statuses: readonly CheckStatus[]): CheckStatus {
  if (statuses.length === 0) return "ok";
  if (statuses.every((s) => s === "failed")) return "failed";
  return statuses.some((s) => s !== "ok") ? "degraded" : "ok";
}

export const METRIC_NAMESPACE = "RuntimeLogs";
/** The probe's one metric dimension (the alarms select on it): `Function` = its function name. */
export const PROBE_DIMENSION = { Function: "health-probe" } as const;
/** Failed checks of one run (0 when healthy): the metric the probe alarm watches. */
export const PROBE_FAILURES_METRIC = "ProbeFailures";

/**
 * The probe's metrics (Powertools Metrics, flushed as Embedded Metric Format on stdout), in
 * namespace RuntimeLogs with only the `Function` dimension: Powertools' default `service`
 * dimension would change the metric identity the alarms watch.
 */
export function createProbeMetrics(): Metrics {
  const metrics = new Metrics({ namespace: METRIC_NAMESPACE });
  metrics.clearDefaultDimensions();
  metrics.setDefaultDimensions({ ...PROBE_DIMENSION });
  return metrics;
}

/** Adds one report's figures to `metrics` (published by the handler's `logMetrics`). */
export function recordProbeMetrics(metrics: Metrics, report: ProbeReport): void {
  const checks = Object.values(report.checks);
  const clusters = report.checks.clusters.clusters;
  const latencies = clusters.map((c) => c.latencyMs).filter((n): n is number => n !== null);
  const count = (name: string, value: number) => metrics.addMetric(name, MetricUnit.Count, value);
  count(PROBE_FAILURES_METRIC, checks.filter((c) => c.status === "failed").length);
  count("ProbeDegraded", checks.filter((c) => c.status === "degraded").length);
  count("ProbePartial", report.partial ? 1 : 0);
  metrics.addMetric("ProbeDurationMs", MetricUnit.Milliseconds, report.durationMs);
  count("RestartsRecorded", report.checks.restarts.recorded);
  count("RestartsDeferred", report.checks.restarts.deferred);
  count("ClusterFailures", clusters.filter((c) => c.status === "failed").length);
  count(
    "ClusterPermissionsMissing",
    clusters.reduce((n, c) => n + c.namespaces.reduce((m, ns) => m + ns.missing.length, 0), 0),
  );
  if (latencies.length > 0) {
    metrics.addMetric("ClusterLatencyMs", MetricUnit.Milliseconds, Math.max(...latencies));
  }
  const gateways = report.checks.gateways.gateways;
  count("GatewayFailures", gateways.filter((g) => g.status === "failed").length);
  const gatewayLatencies = gateways.map((g) => g.latencyMs).filter((n): n is number => n !== null);
  if (gatewayLatencies.length > 0) {
    metrics.addMetric("GatewayLatencyMs", MetricUnit.Milliseconds, Math.max(...gatewayLatencies));
  }
  // Version and auth are words, not figures: metadata of the EMF line (searchable in Logs
  // Insights), so the metrics keep their one `Function` dimension.
  if (gateways.length > 0) {
    metrics.addMetadata(
      "gateways",
      JSON.stringify(
        gateways.map((g) => ({
          gatewayId: g.gatewayId,
          latencyMs: g.latencyMs,
          version: g.version,
          auth: g.auth,
        })),
      ),
    );
  }
}
