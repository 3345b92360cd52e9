/** A small scenario for the local-stack tests: one cluster, one Agent, two granted principals. */
import { workloadLabels } from "../../support/scenario.ts";

export const SMALL_SCENARIO = {
  now: "now",
  clusters: [
    {
      id: "kind-a",
      namespaces: [
        {
          name: "tenant-a",
          pods: [
            {
              name: "gw-0",
              uid: "0a1b2c3d-0000-4000-8000-000000000001",
              createdAt: "now-10m",
              labels: workloadLabels("gateway", "r1", "helper"),
              containers: [
                {
                  name: "gateway",
                  logs: {
                    current: [
                      ["now-2m", "INFO gateway started"],
                      ["now-1m", "WARN slow upstream"],
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    },
  ],
  registry: {
    agents: [
      {
        namespaceId: "lab",
        agentId: "helper",
        deployments: [
          {
            deploymentId: "r1",
            placement: { gateway: { clusterId: "kind-a", namespace: "tenant-a", plane: "control" } },
          },
        ],
      },
    ],
    grants: [
      { principalId: "alice", namespaceId: "lab", actions: ["read", "operate", "read_logs"] },
      { principalId: "bob", namespaceId: "lab", agentId: "helper", actions: ["read"] },
      { principalId: "alice", namespaceId: "other", actions: ["read"] },
    ],
  },
};
