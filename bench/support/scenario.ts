/**
 * The scenario the local-stack benchmarks run (docs/kube.md § Scenario file): one cluster, one running
 * Gateway Pod of one Agent, one grant per benchmark principal, and the limiter raised so the load
 * itself, not the per-principal budget, is what gets measured.
 */
import { workloadLabels } from "../../test/support/scenario.ts";

export const TARGET = {
  clusterId: "bench",
  namespace: "tenant-a",
  pod: "gw-0",
  podUid: "6b0c2a4e-bench-4c1d-9e55-000000000001",
  container: "gateway",
  namespaceId: "acme",
  agentId: "support",
  deploymentId: "d1",
} as const;

/** Far above any load a benchmark here makes (the config accepts integers up to 9 digits). */
export const RAISED_LIMITS = {
  burst: 100_000_000,
  ratePerSecond: 100_000_000,
  principalInFlight: 100_000,
  agentInFlight: 100_000,
} as const;

export interface BenchScenarioOptions {
  principals: readonly string[];
  /** Lines already in the container's log at load time, one per 10 ms, ending 1 s ago. */
  initialLines: number;
  limits?: Partial<Record<keyof typeof RAISED_LIMITS, number>>;
}

/** A realistic Gateway line (about 120 bytes). */
export const gatewayLine = (n: number, tag = ""): string =>
  `INFO gateway request ${tag}method=POST path=/v1/chat/completions status=200 durationMs=${(n * 37) % 900} ` +
  `tokens=${(n * 13) % 4000} trace=${(n * 2654435761).toString(16).padStart(8, "0")}`;

export function benchScenario(opts: BenchScenarioOptions): Record<string, unknown> {
  const n = opts.initialLines;
  const current = Array.from({ length: n }, (_, i) => [
    `now-${((n - i) * 10 + 1000) / 1000}s`,
    gatewayLine(i),
  ]);
  return {
    limits: { ...RAISED_LIMITS, ...opts.limits },
    clusters: [
      {
        id: TARGET.clusterId,
        namespaces: [
          {
            name: TARGET.namespace,
            pods: [
              {
                name: TARGET.pod,
                uid: TARGET.podUid,
                createdAt: "now-1h",
                nodeName: "node-1",
                labels: workloadLabels("gateway", TARGET.deploymentId, TARGET.agentId),
                containers: [{ name: TARGET.container, logs: { current, previous: [] } }],
              },
            ],
          },
        ],
      },
    ],
    registry: {
      agents: [
        {
          namespaceId: TARGET.namespaceId,
          agentId: TARGET.agentId,
          deployments: [
            {
              deploymentId: TARGET.deploymentId,
              placement: {
                gateway: { clusterId: TARGET.clusterId, namespace: TARGET.namespace, plane: "control" },
              },
            },
          ],
        },
      ],
      grants: opts.principals.map((principalId) => ({
        principalId,
        namespaceId: TARGET.namespaceId,
        agentId: TARGET.agentId,
        actions: ["read", "read_logs"],
      })),
    },
  };
}

/** `bench-00`, `bench-01`, …: one principal per follower, like separate operators. */
export const principals = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `bench-${String(i).padStart(2, "0")}`);
