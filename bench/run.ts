/**
 * Benchmark runner (`npm run bench [-- ID…]`): runs each benchmark module in turn and prints one JSON
 * row per benchmark on stdout (quality.md). Add a benchmark by adding its module to `BENCHMARKS`.
 */

import { benchKube } from "./p-kube.ts";
import * as pOcc from "./p-occ-help.ts";
import * as p1 from "./p1-pipeline.ts";
import * as p2 from "./p2-hostile.ts";
import { runP3ColdStart } from "./p3-cold-start.ts";
import * as p4 from "./p4-local-e2e.ts";
import * as p5 from "./p5-dynamo-calls.ts";
import * as p6 from "./p6-memory.ts";
import * as p7 from "./p7-sustained.ts";
import * as p8 from "./p8-hostile-bodies.ts";
import * as pc from "./pc-connections.ts";
import * as ph from "./ph-floods.ts";

export interface Benchmark {
  id: string;
  run(): Promise<Record<string, unknown>>;
}

const p3: Benchmark = { id: "P3", run: async () => ({ ...(await runP3ColdStart()) }) };

/** The driver's own costs (kube.md): one describe and one 1 MiB read against the simulator, in one row. */
const pk: Benchmark = {
  id: "PK",
  run: async () => {
    const [describe, read] = await benchKube();
    return {
      bench: "PK kube driver (describe 1 Pod + 40 Events; read 1 MiB)",
      describe_median_ms: describe?.median_ms,
      read_median_ms: read?.median_ms,
      read_baseline_median_ms: read?.baseline_median_ms,
      read_ratio_to_baseline: read?.ratio_to_baseline,
      read_mib_per_s: read?.mib_per_s,
      runs: read?.runs,
    };
  },
};

const BENCHMARKS: Benchmark[] = [p1, p2, p3, p4, p5, p6, p7, p8, pk, pc, ph, pOcc];

const filters = process.argv.slice(2).map((f) => f.toUpperCase());
const selected = BENCHMARKS.filter(
  (b) => filters.length === 0 || filters.some((f) => b.id.toUpperCase() === f),
);
if (selected.length === 0) {
  process.stderr.write(
    `no benchmark matches ${filters.join(" ")}; known: ${BENCHMARKS.map((b) => b.id).join(" ")}\n`,
  );
  process.exitCode = 2;
}
for (const b of selected) {
  const row = await b.run();
  process.stdout.write(`${JSON.stringify(row)}\n`);
}
