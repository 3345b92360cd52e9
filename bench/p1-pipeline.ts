/**
 * P1 (quality.md): the realistic 1 MiB chunk (seed 1) → a signed page, against the corpus's
 * baseline (split into lines and SHA-256 each) timed in the same run, interleaved.
 */
import { performance } from "node:perf_hooks";
import { buildLogPage } from "../lib/runtime-logs/index.ts";
import { corpusPageInput, loadCorpus, median, round } from "./corpus.ts";

export const id = "P1";

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const text = corpus.realistic(1);
  const bytes = Buffer.byteLength(text, "utf8");
  const input = corpusPageInput(text);
  const build = (): number => buildLogPage(input).body.length;
  // Warm up both, then interleave so machine noise hits both alike.
  for (let i = 0; i < 5; i++) {
    build();
    corpus.baseline(text);
  }
  const ours: number[] = [];
  const base: number[] = [];
  const runs = 25;
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    corpus.baseline(text);
    base.push(performance.now() - t);
    t = performance.now();
    build();
    ours.push(performance.now() - t);
  }
  const m = median(ours);
  const b = median(base);
  return {
    bench: "P1 pipeline 1MiB",
    median_ms: round(m),
    baseline_median_ms: round(b),
    ratio_to_baseline: round(m / b, 2),
    mib_per_s: round(bytes / (1024 * 1024) / (m / 1000), 1),
    runs,
  };
}
