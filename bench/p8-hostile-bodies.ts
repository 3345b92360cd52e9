/**
 * P8 (docs/quality.md): hostile cluster bodies. The simulator's `rawLog` fault serves 1 MiB of `\n`, of
 * `{\n`, of `x\n` and of `-----BEGIN PRIVATE KEY-----\n`, ignoring the query; each is read through
 * the Kubernetes driver (`readLog`, tailLines=1000) and built into a page (`buildLogPage`). The row
 * compares each case's median with a plain 1 MiB of `.\n` through the same path in the same run,
 * interleaved so machine noise hits all alike; `worst_ratio` is the largest case ÷ plain.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import type { DeploymentRecord } from "../lib/domain.ts";
import { buildLogPage } from "../lib/runtime-logs/index.ts";
import { startKubeSim } from "../local/kube-sim/index.ts";
import { driverOverFiles } from "../test/support/kube-driver.ts";
import { oneClusterScenario, workloadLabels } from "../test/support/scenario.ts";
import { corpusPageInput } from "./corpus.ts";
import { median, round } from "./support/stats.ts";

export const id = "P8";

const MIB = 1024 * 1024;
const UID = "00000000-0000-4000-a000-000000000008";
const PLAIN = { name: "plain", unit: ".\n" };
const CASES = [
  { name: "newlines", unit: "\n" },
  { name: "open braces", unit: "{\n" },
  { name: "one character", unit: "x\n" },
  { name: "PEM markers", unit: "-----BEGIN PRIVATE KEY-----\n" },
];
const ALL = [PLAIN, ...CASES];
const container = (i: number): string => `c${i}`;

function scenario(): Record<string, unknown> {
  return oneClusterScenario({
    now: "2026-11-29T12:00:00Z",
    clusterId: "bench",
    namespace: "tenant-a",
    pods: [
      {
        name: "gw-0",
        uid: UID,
        labels: workloadLabels("gateway", "d8"),
        containers: ALL.map((_, i) => ({ name: container(i) })),
      },
    ],
  });
}

export async function run(
  options: { runs?: number; warmup?: number } = {},
): Promise<Record<string, unknown>> {
  const runs = options.runs ?? 15;
  const warmup = options.warmup ?? 3;
  const sim = await startKubeSim({ scenario: scenario() });
  try {
    ALL.forEach((c, i) => {
      sim.setFault({
        cluster: "bench",
        rawLog: {
          namespace: "tenant-a",
          pod: "gw-0",
          container: container(i),
          body: c.unit,
          repeat: Math.floor(MIB / c.unit.length),
        },
      });
    });
    const files = await sim.writeKubeconfigs(mkdtempSync(path.join(tmpdir(), "bench-p8-")));
    const driver = driverOverFiles(files);
    const deployment: DeploymentRecord = {
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d8",
      revision: 1,
      createdAt: "2026-11-29T11:00:00Z",
      computeDriver: "kubernetes",
      runtimeLogging: "service",
      placement: { gateway: { clusterId: "bench", namespace: "tenant-a", plane: "control" } },
    };
    const base = corpusPageInput("");
    /** One read and page of container `i`; a refused body (an error) is timed the same way. */
    const once = async (i: number): Promise<number> => {
      const t0 = performance.now();
      try {
        const chunk = await driver.readLog(deployment, {
          role: "gateway",
          pod: "gw-0",
          podUid: UID,
          container: container(i),
          previous: false,
          tailLines: 1000,
          signal: new AbortController().signal,
          deadline: Date.now() + 10_000,
        });
        buildLogPage({ ...base, chunk });
      } catch {
        // 503 RUNTIME_LOGS_UNAVAILABLE in the service: still bounded work.
      }
      return performance.now() - t0;
    };
    for (let w = 0; w < warmup; w++) for (let i = 0; i < ALL.length; i++) await once(i);
    const times: number[][] = ALL.map(() => []);
    for (let r = 0; r < runs; r++) for (let i = 0; i < ALL.length; i++) times[i]!.push(await once(i));
    const plain = median(times[0]!);
    const cases: Record<string, { median_ms: number | null; ratio: number | null }> = {};
    let worst = { name: "", ratio: 0 };
    CASES.forEach((c, k) => {
      const m = median(times[k + 1]!);
      const ratio = m / plain;
      cases[c.name] = { median_ms: round(m, 3), ratio: round(ratio, 2) };
      if (ratio > worst.ratio) worst = { name: c.name, ratio };
    });
    return {
      bench: "P8 hostile bodies",
      worst_ratio: round(worst.ratio, 2),
      worst_case: worst.name,
      plain_median_ms: round(plain, 3),
      cases,
      runs,
    };
  } finally {
    await sim.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await run()));
}
