/**
 * Scenario builders for tests and benches: the workload labels the driver selects Pods by (from the
 * driver's own constants) and a manual-clock scenario of one cluster and one namespace.
 */
import { LABEL_AGENT, LABEL_REVISION, LABEL_ROLE } from "../../lib/kube/describe.ts";

type Json = Record<string, unknown>;

/** The labels of a workload Pod of `agent`'s deployment `revision` in `role`. */
export const workloadLabels = (role: "gateway" | "agent", revision: string, agent = "support") => ({
  [LABEL_AGENT]: agent,
  [LABEL_REVISION]: revision,
  [LABEL_ROLE]: role,
});

export interface OneClusterScenario {
  now: string;
  clusterId: string;
  namespace: string;
  pods: unknown[];
  events?: unknown[];
  /** Fields of the cluster beside `id` and `namespaces` (token, rbac, faults). */
  cluster?: Json;
  registry?: { agents: unknown[]; grants: unknown[] };
}

/** A manual-clock scenario with one cluster of one namespace. */
export function oneClusterScenario(s: OneClusterScenario): Json {
  return {
    now: s.now,
    clock: "manual",
    clusters: [
      {
        id: s.clusterId,
        ...s.cluster,
        namespaces: [{ name: s.namespace, pods: s.pods, ...(s.events ? { events: s.events } : {}) }],
      },
    ],
    registry: s.registry ?? { agents: [], grants: [] },
  };
}
