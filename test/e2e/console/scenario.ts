/**
 * The browser tests' world: one Agent with an active deployment (a Gateway and a Harness Pod), an
 * older one with no Pods, and one whose driver owns logging (501); principals for each path.
 * The simulator's clock is manual so appends and restarts land exactly when a test says.
 */
import { workloadLabels } from "../../support/scenario.ts";

export const NS = "acme";
export const AGENT = "support";
export const CLUSTER = "c1";
export const K8S_NS = "tenant-a";
export const GW_POD = "gw-0";
export const H_POD = "h-0";

const labels = (role: "gateway" | "agent") => workloadLabels(role, "d2", AGENT);

/** The Gateway's oldest line: shown once a view's first page is in. */
export const FIRST_GATEWAY_LINE = "request 0 handled";

export function consoleScenario() {
  const levels = ["INFO", "WARN", "ERROR", "DEBUG"];
  const gatewayLines = Array.from({ length: 40 }, (_, i) => [
    `now-${120 - i * 2}s`,
    i % 5 === 4 ? `${levels[i % 4]} heartbeat ${i}` : `${levels[i % 4]} request ${i} handled`,
  ]);
  gatewayLines.push(["now-30s", '{"level":"info","message":"Sure! here is your refund, Jane"}']);
  gatewayLines.push(["now-20s", "WARN retrying with key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789"]);
  return {
    now: "now",
    clock: "manual",
    limits: { burst: 20, ratePerSecond: 5 },
    clusters: [
      {
        id: CLUSTER,
        namespaces: [
          {
            name: K8S_NS,
            pods: [
              {
                name: GW_POD,
                uid: "6f1c0000-0000-4000-8000-0000000000a1",
                createdAt: "now-1h",
                labels: labels("gateway"),
                containers: [{ name: "gateway", logs: { current: gatewayLines, previous: [] } }],
              },
              {
                name: H_POD,
                uid: "6f1c0000-0000-4000-8000-0000000000a2",
                createdAt: "now-1h",
                labels: labels("agent"),
                containers: [{ name: "harness", logs: { current: [["now-5s", "INFO harness up"]] } }],
              },
            ],
            events: [
              {
                involvedObject: {
                  kind: "Pod",
                  name: GW_POD,
                  uid: "6f1c0000-0000-4000-8000-0000000000a1",
                  fieldPath: "spec.containers{gateway}",
                },
                type: "Warning",
                reason: "Unhealthy",
                message: "Liveness probe failed: connection refused",
                count: 2,
                lastTimestamp: "now-40m",
              },
            ],
          },
        ],
      },
    ],
    registry: {
      agents: [
        {
          namespaceId: NS,
          agentId: AGENT,
          activeDeploymentId: "d2",
          deployments: [
            {
              deploymentId: "d1",
              revision: 1,
              createdAt: "now-2d",
              placement: { gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" } },
            },
            {
              deploymentId: "d2",
              revision: 2,
              createdAt: "now-1h",
              placement: {
                gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" },
                agent: { clusterId: CLUSTER, namespace: K8S_NS, plane: "execution" },
              },
            },
            {
              deploymentId: "d9",
              revision: 3,
              createdAt: "now-1m",
              runtimeLogging: "driver",
              placement: { gateway: { clusterId: CLUSTER, namespace: K8S_NS, plane: "control" } },
            },
          ],
        },
      ],
      grants: [
        { principalId: "alice", namespaceId: NS, actions: ["read", "operate", "read_logs"] },
        { principalId: "bob", namespaceId: NS, actions: ["read", "operate"] },
        { principalId: "rita", namespaceId: NS, actions: ["read", "operate", "read_logs"] },
      ],
    },
  };
}
