/** Scenario builders and wiring shared by the driver's integration tests (simulator over real HTTP). */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DeploymentRecord } from "../../../lib/domain.ts";
import type { createKubeDriver, KubeDriverOptions } from "../../../lib/kube/driver.ts";
import type { CallOptions } from "../../../lib/kube/types.ts";
import { type KubeSim, startKubeSim } from "../../../local/kube-sim/index.ts";
import { driverOverFiles } from "../../support/kube-driver.ts";
import { workloadLabels } from "../../support/scenario.ts";

export const NOW = "2026-11-29T12:00:00Z";
export const AGENT = "support";
export const DEPLOYMENT = "d3";

export const labels = (role: "gateway" | "agent", deploymentId = DEPLOYMENT, agent = AGENT) =>
  workloadLabels(role, deploymentId, agent);

export const uid = (n: number) => `00000000-0000-4000-a000-${String(n).padStart(12, "0")}`;

export type Json = Record<string, unknown>;

export function pod(name: string, n: number, role: "gateway" | "agent", extra: Json = {}): Json {
  return {
    name,
    uid: uid(n),
    labels: labels(role),
    createdAt: "now-1h",
    nodeName: "node-1",
    containers: [{ name: role === "gateway" ? "gateway" : "harness" }],
    ...extra,
  };
}

export function scenario(clusters: Json[], placement: Json, extraDeployment: Json = {}): Json {
  return {
    now: NOW,
    clock: "manual",
    clusters,
    registry: {
      agents: [
        {
          namespaceId: "acme",
          agentId: AGENT,
          deployments: [{ deploymentId: DEPLOYMENT, revision: 3, placement, ...extraDeployment }],
        },
      ],
      grants: [],
    },
  };
}

export function deployment(
  placement: DeploymentRecord["placement"],
  extra: Partial<DeploymentRecord> = {},
): DeploymentRecord {
  return {
    namespaceId: "acme",
    agentId: AGENT,
    deploymentId: DEPLOYMENT,
    revision: 3,
    createdAt: NOW,
    computeDriver: "kubernetes",
    runtimeLogging: "service",
    placement,
    ...extra,
  };
}

export interface Harness {
  sim: KubeSim;
  driver: ReturnType<typeof createKubeDriver>;
  kubeconfigs: Record<string, string>;
  call: (overrides?: Partial<CallOptions>) => CallOptions;
  close: () => Promise<void>;
}

/** Starts the simulator, writes real kubeconfigs and builds a driver over them. */
export async function harness(raw: Json, options: Partial<KubeDriverOptions> = {}): Promise<Harness> {
  const sim = await startKubeSim({ scenario: raw });
  const dir = mkdtempSync(path.join(tmpdir(), "kube-it-"));
  const kubeconfigs = await sim.writeKubeconfigs(dir);
  const driver = driverOverFiles(kubeconfigs, options);
  const call = (overrides: Partial<CallOptions> = {}): CallOptions => ({
    signal: new AbortController().signal,
    deadline: Date.now() + 10_000,
    ...overrides,
  });
  return { sim, driver, kubeconfigs, call, close: () => sim.close() };
}
