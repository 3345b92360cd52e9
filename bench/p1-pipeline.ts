/**
 * P1 (docs/quality.md): every line of the realistic 1 MiB chunk (seed 1) split, classified, redacted and
 * rendered to records — the page path with the tail cap and the page budget lifted (the bench-only
 * `uncapped` option and a budget larger than the chunk's page) — against the corpus's baseline
 * (split into lines and SHA-256 each) timed in the same run, interleaved. `bytes_processed` counts
 * the bytes of the lines the page accounted for (every line of the chunk, or the run fails).
 *
 * Neither side is billed for the other's garbage: an untimed young-generation collection follows
 * every timed run. Without it, the baseline's 7 900 dead hash objects (each holding a native digest
 * context freed by a weak callback) were collected by the first scavenge of our next run, and about
 * 7 ms of the baseline's cost showed up in ours. Each side still pays every collection its own
 * allocation sets off while it runs; what they leave behind is reported, not counted.
 */
import { performance } from "node:perf_hooks";
import { buildLogPage } from "../lib/runtime-logs/index.ts";
import { corpusPageInput, loadCorpus } from "./corpus.ts";
import { findGc } from "./support/heap.ts";
import { median, round } from "./support/stats.ts";

export const id = "P1";

/** Larger than any page the 1 MiB chunk can render to. */
const UNBOUNDED_BYTES = 64 * 1024 * 1024;
const RUNS = 21;

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const text = corpus.realistic(1);
  const input = { ...corpusPageInput(text), uncapped: true, maxBytes: UNBOUNDED_BYTES };
  const build = () => buildLogPage(input);
  const baseline = () => corpus.baseline(text);

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

  const { gc, source } = findGc();
  if (gc === null) throw new Error("P1 needs a collector it can call between runs (--expose-gc)");
  /** One timed run, then its leftovers collected untimed (that collection's time is returned apart). */
  const timed = (work: () => unknown): { ms: number; leftMs: number } => {
    const t = performance.now();
    work();
    const done = performance.now();
    gc({ type: "minor" });
    return { ms: done - t, leftMs: performance.now() - done };
  };

  // Warm up both, then interleave so machine noise hits both alike.
  for (let i = 0; i < 5; i++) {
    timed(build);
    timed(baseline);
  }
  const ours: number[] = [];
  const base: number[] = [];
  const oursLeft: number[] = [];
  const baseLeft: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const b = timed(baseline);
    base.push(b.ms);
    baseLeft.push(b.leftMs);
    const o = timed(build);
    ours.push(o.ms);
    oursLeft.push(o.leftMs);
  }
  const m = median(ours);
  const b = median(base);
  return {
    bench: "P1 pipeline 1MiB",
    median_ms: round(m, 3),
    baseline_median_ms: round(b, 3),
    ratio_to_baseline: round(m / b, 2),
    bytes_processed: bytesProcessed,
    mib_per_s: round(bytesProcessed / (1024 * 1024) / (m / 1000), 1),
    runs: RUNS,
    leftover_collection_ms: round(median(oursLeft), 3),
    baseline_leftover_collection_ms: round(median(baseLeft), 3),
    gc: source,
  };
}
