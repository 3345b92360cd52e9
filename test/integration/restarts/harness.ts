/**
 * Restart tests on real parts: dynalite over HTTP with the service's tables, the kube API simulator
 * over HTTP through the real driver and client-node with a written kubeconfig, the registry loaded
 * from the scenario. The driver and the probe run on the simulator's (manual) clock.
 */

import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { DeploymentRecord } from "../../../lib/domain.ts";
import { createKubeDriver, type KubeDriver } from "../../../lib/kube/driver.ts";
import type { ProbeDeps } from "../../../lib/probe/probe.ts";
import { DynamoRegistryStore } from "../../../lib/registry/store.ts";
import { RestartCache } from "../../../lib/restarts/record.ts";
import { DynamoObservationStore, DynamoRestartStore } from "../../../lib/restarts/store.ts";
import type { IdentityKey } from "../../../lib/runtime-logs/types.ts";
import { type KubeSim, startKubeSim } from "../../../local/kube-sim/index.ts";
import { loadRegistry, localCluster } from "../../../local/registry-loader.ts";
import { type LocalDynamo, startDynalite } from "../../support/dynalite.ts";
import { localKubeconfigStore } from "../../support/kube-driver.ts";
import { oneClusterScenario, workloadLabels } from "../../support/scenario.ts";

export const NOW = "2026-11-29T12:00:00.000Z";
export const GW_UID = "6f1c0000-0000-4000-a000-000000000001";
export const CLUSTER = "demo";
export const NS = "tenant-a";
/** Raw identifiers the agent logs; they must never appear in any record or log line. */
export const RAW_SENDER = "tg-user-8812345";
export const RAW_SESSION = "agent:main:telegram:dm:8812345-secret-session";

export interface ScenarioOptions {
  rbacDeny?: { namespace: string; resource: string }[];
  annotations?: Record<string, string>;
  currentLines?: [string, string][];
  /** Scenario `now` (default NOW). */
  now?: string;
  /** Replaces the namespace's Pods (default: gw-0). */
  pods?: unknown[];
  events?: unknown[];
}

export const GATEWAY_LABELS = workloadLabels("gateway", "d3");

/** A running gateway Pod for `pods`. */
export function gatewayPod(name: string, uid: string, annotations: Record<string, string> = {}, extra = {}) {
  return {
    name,
    uid,
    createdAt: "now-1m",
    nodeName: "node-1",
    annotations,
    labels: GATEWAY_LABELS,
    containers: [{ name: "gateway", state: { running: { startedAt: "now-1m" } } }],
    ...extra,
  };
}

export function scenario(options: ScenarioOptions = {}) {
  return oneClusterScenario({
    now: options.now ?? NOW,
    clusterId: CLUSTER,
    namespace: NS,
    cluster: { token: "sim-token-restarts", rbac: { deny: options.rbacDeny ?? [] } },
    events: options.events ?? [],
    pods: options.pods ?? [
      {
        name: "gw-0",
        uid: GW_UID,
        createdAt: "now-1h",
        nodeName: "node-1",
        annotations: options.annotations ?? {},
        labels: GATEWAY_LABELS,
        containers: [
          {
            name: "gateway",
            state: { running: { startedAt: "now-1h" } },
            logs: {
              current: options.currentLines ?? [
                [
                  "now-59m",
                  "gateway restart-completed signal=boot source=external new_pid=1 first_start=true",
                ],
                ["now-58m", "INFO gateway ready"],
              ],
              previous: [],
            },
          },
        ],
      },
    ],
    registry: {
      agents: [
        {
          namespaceId: "acme",
          agentId: "support",
          deployments: [
            {
              deploymentId: "d3",
              revision: 3,
              placement: { gateway: { clusterId: CLUSTER, namespace: NS, plane: "control" } },
            },
          ],
        },
      ],
      grants: [],
    },
  });
}

export interface Harness {
  sim: KubeSim;
  dynamo: LocalDynamo;
  driver: KubeDriver;
  deployment: DeploymentRecord;
  restarts: DynamoRestartStore;
  observations: DynamoObservationStore;
  identityKey: IdentityKey;
  now: () => number;
  /** Warnings and infos logged by the code under test. */
  logs: string[];
  probeDeps(overrides?: Partial<ProbeDeps>): ProbeDeps;
  /** Every item of the Audit and State tables, as JSON text. */
  dump(): Promise<string>;
  restartItems(): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function startHarness(options: ScenarioOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), "restarts-"));
  const dynamo = await startDynalite();
  const sim = await startKubeSim({ scenario: scenario(options) });
  const paths = await sim.writeKubeconfigs(dir);
  await loadRegistry({ doc: dynamo.doc, tableName: dynamo.tableNames.registry }, sim.scenario.registry, [
    localCluster(CLUSTER, paths[CLUSTER] as string),
  ]);
  const registry = new DynamoRegistryStore({
    doc: dynamo.doc,
    client: dynamo.client,
    tableName: dynamo.tableNames.registry,
    cacheTtlMs: 0,
  });
  const now = () => sim.now().getTime();
  const driver = createKubeDriver({
    kubeconfigs: localKubeconfigStore(),
    getCluster: async (id) => (await registry.getCluster(id)) ?? undefined,
    now,
  });
  const deployment = (await registry.getDeployment("acme", "support", "d3")) as DeploymentRecord;
  const restarts = new DynamoRestartStore({ doc: dynamo.doc, tableName: dynamo.tableNames.audit, now });
  const observations = new DynamoObservationStore({ doc: dynamo.doc, tableName: dynamo.tableNames.state });
  const identityKey: IdentityKey = { id: "idk-1", secret: randomBytes(32) };
  const logs: string[] = [];
  const log = {
    info: (m: string, f?: Record<string, unknown>) => logs.push(JSON.stringify({ m, f })),
    warn: (m: string, f?: Record<string, unknown>) => logs.push(JSON.stringify({ m, f })),
  };
  const scan = async (table: string) =>
    (await dynamo.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
  return {
    sim,
    dynamo,
    driver,
    deployment,
    restarts,
    observations,
    identityKey,
    now,
    logs,
    probeDeps: (overrides = {}) => ({
      registry,
      driver,
      tables: [],
      keys: async () => ({ cursor: { current: identityKey }, identity: { current: identityKey } }),
      restarts,
      observations,
      log,
      now,
      cache: new RestartCache(),
      ...overrides,
    }),
    dump: async () =>
      JSON.stringify([...(await scan(dynamo.tableNames.audit)), ...(await scan(dynamo.tableNames.state))]),
    restartItems: async () =>
      (await scan(dynamo.tableNames.audit)).filter((i) => String(i.pk).startsWith("RESTART#")),
    close: async () => {
      await sim.close();
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const gw = { cluster: CLUSTER, namespace: NS, pod: "gw-0", container: "gateway" };

/** Appends lines at the simulator's current time (one millisecond apart). */
export function say(h: Harness, pod: string, ...texts: string[]): void {
  const base = h.now();
  h.sim.append({
    ...gw,
    pod,
    lines: texts.map((t, i) => [new Date(base + i).toISOString(), t] as [string, string]),
  });
  h.sim.advanceClock(texts.length + 1);
}
