/**
 * Benchmark runner (`npm run bench [-- ID…]`): runs each benchmark module in turn and prints one JSON
 * row per benchmark on stdout (quality.md). Add a benchmark by adding its module to `BENCHMARKS`.
 */
import * as p1 from "./p1-pipeline.ts";
import * as p2 from "./p2-hostile.ts";

export interface Benchmark {
  id: string;
  run(): Promise<Record<string, unknown>>;
}

const BENCHMARKS: Benchmark[] = [p1, p2];

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
