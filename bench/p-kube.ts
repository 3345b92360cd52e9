/**
 * Kubernetes driver cost against the simulator over real HTTP (docs/quality.md style rows):
 * one runtime description (with Events) and one 1 MiB log read, each the median of repeated runs;
 * the read also reports a bare GET of the same log as its baseline (driver overhead = the ratio).
 * `npm run bench` calls `benchKube()`; `tsx bench/p-kube.ts` runs it alone.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { DeploymentRecord } from "../lib/domain.ts";
import { startKubeSim } from "../local/kube-sim/index.ts";
import { driverOverFiles } from "../test/support/kube-driver.ts";
import { oneClusterScenario, workloadLabels } from "../test/support/scenario.ts";

export interface BenchRow {
  bench: string;
  [key: string]: unknown;
}

const NOW = Date.parse("2026-11-29T12:00:00Z");
const UID = "00000000-0000-4000-a000-000000000001";
const LABELS = workloadLabels("gateway", "d3");

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const round = (n: number) => Math.round(n * 100) / 100;

function benchScenario(): Record<string, unknown> {
  // ≈ 1.2 MiB of log: 12 000 lines of ~100 bytes, one per 5 ms.
  const current = Array.from({ length: 12_000 }, (_, i) => [
    new Date(NOW - 60_000 + i * 5).toISOString(),
    `INFO gateway request ${i} method=GET path=/v1/chat status=200 durationMs=${i % 97} trace=abcdef${i}`,
  ]);
  const events = Array.from({ length: 40 }, (_, i) => ({
    involvedObject: { kind: "Pod", name: "gw-0", uid: UID, fieldPath: "spec.containers{gateway}" },
    type: i % 3 ? "Normal" : "Warning",
    reason: i % 3 ? "Pulled" : "BackOff",
    message: `event ${i}`,
    lastTimestamp: `now-${i}m`,
  }));
  return oneClusterScenario({
    now: new Date(NOW).toISOString(),
    clusterId: "bench",
    namespace: "tenant-a",
    pods: [
      {
        name: "gw-0",
        uid: UID,
        labels: LABELS,
        createdAt: "now-1h",
        nodeName: "node-1",
        containers: [{ name: "gateway", restartCount: 1, logs: { current, previous: [] } }],
      },
    ],
    events,
  });
}

export async function benchKube(options: { runs?: number; warmup?: number } = {}): Promise<BenchRow[]> {
  const runs = options.runs ?? 30;
  const warmup = options.warmup ?? 5;
  const sim = await startKubeSim({ scenario: benchScenario() });
  try {
    const files = await sim.writeKubeconfigs(mkdtempSync(path.join(tmpdir(), "bench-kube-")));
    const driver = driverOverFiles(files);
    const placement = { clusterId: "bench", namespace: "tenant-a", plane: "control" as const };
    const deployment: DeploymentRecord = {
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d3",
      revision: 3,
      createdAt: new Date(NOW).toISOString(),
      computeDriver: "kubernetes",
      runtimeLogging: "service",
      placement: { gateway: placement },
    };
    const call = () => ({ signal: new AbortController().signal, deadline: Date.now() + 10_000 });

    const time = async (fn: () => Promise<unknown>): Promise<number[]> => {
      for (let i = 0; i < warmup; i++) await fn();
      const out: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await fn();
        out.push(performance.now() - t0);
      }
      return out;
    };

    const describeMs = await time(() => driver.describeRuntime(deployment, { events: true, ...call() }));
    let bytes = 0;
    const readMs = await time(async () => {
      const chunk = await driver.readLog(deployment, {
        role: "gateway",
        pod: "gw-0",
        podUid: UID,
        container: "gateway",
        previous: false,
        tailLines: 20_000,
        ...call(),
      });
      bytes = Buffer.byteLength(chunk.text);
    });
    const logUrl = `${sim.clusterUrl("bench")}/api/v1/namespaces/tenant-a/pods/gw-0/log?container=gateway&timestamps=true&tailLines=20000&limitBytes=1048576`;
    const bareMs = await time(async () => {
      const res = await fetch(logUrl, { headers: { authorization: `Bearer ${sim.token("bench")}` } });
      await res.arrayBuffer();
    });
    const read = median(readMs);
    const bare = median(bareMs);
    return [
      { bench: "P-kube describe (1 Pod, 40 Events)", median_ms: round(median(describeMs)), runs },
      {
        bench: "P-kube read 1MiB",
        median_ms: round(read),
        baseline_median_ms: round(bare),
        ratio_to_baseline: round(read / bare),
        mib_per_s: round(bytes / 1_048_576 / (read / 1000)),
        bytes,
        runs,
      },
    ];
  } finally {
    await sim.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const row of await benchKube()) console.log(JSON.stringify(row));
}
