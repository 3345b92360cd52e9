/**
 * P1 (docs/quality.md): every line of the realistic 1 MiB chunk (seed 1) split, classified, redacted and
 * rendered to records — the page path with the tail cap and the page budget lifted (the bench-only
 * `uncapped` option and a budget larger than the chunk's page) — against the corpus's baseline
 * (split into lines and SHA-256 each) timed in the same run, interleaved. `bytes_processed` counts
 * the bytes of the lines the page accounted for (every line of the chunk, or the run fails).
 */
import { performance } from "node:perf_hooks";
import { buildLogPage } from "../lib/runtime-logs/index.ts";
import { corpusPageInput, loadCorpus, median, round } from "./corpus.ts";

export const id = "P1";

/** Larger than any page the 1 MiB chunk can render to. */
const UNBOUNDED_BYTES = 64 * 1024 * 1024;

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const text = corpus.realistic(1);
  const input = { ...corpusPageInput(text), uncapped: true, maxBytes: UNBOUNDED_BYTES };
  const build = () => buildLogPage(input);

  // Every line must have gone through every stage: count what the page accounted for.
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const page = build().page;
  let accounted = 0;
  for (const r of page.records) {
    if (r.type === "line") accounted++;
    else if (r.type === "withheld") accounted += r.count;
  }
  if (page.truncated || accounted !== lines.length) {
    throw new Error(`P1 accounted for ${accounted} of ${lines.length} lines`);
  }
  const bytesProcessed = Buffer.byteLength(text, "utf8");

  // Warm up both, then interleave so machine noise hits both alike.
  for (let i = 0; i < 5; i++) {
    build();
    corpus.baseline(text);
  }
  const ours: number[] = [];
  const base: number[] = [];
  const runs = 21;
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
    bytes_processed: bytesProcessed,
    mib_per_s: round(bytesProcessed / (1024 * 1024) / (m / 1000), 1),
    runs,
  };
}
