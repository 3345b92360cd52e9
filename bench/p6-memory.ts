/**
 * P6 (docs/quality.md): peak heap growth of one 1 MiB read through the pipeline — the corpus's realistic
 * 1 MiB chunk (seed 1) as the driver's LogChunk → buildLogPage → the serialized page. Budget 32 MiB.
 * The baseline, measured the same way in the same run, is the corpus's `baseline` (split into lines
 * and SHA-256 each). Each figure is the median of repeated runs; the worst run is reported too.
 */
import { loadavg } from "node:os";
import { buildLogPage } from "../lib/runtime-logs/index.ts";
import { corpusPageInput, loadCorpus } from "./corpus.ts";
import { findGc, measureHeap } from "./support/heap.ts";
import { median, round } from "./support/stats.ts";

export const id = "P6";

const BUDGET_MIB = 32;
const RUNS = 9;
const MIB = 1024 * 1024;

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const text = corpus.realistic(1);
  const input = corpusPageInput(text);
  const page = () => buildLogPage(input);

  const { gc, source } = findGc();
  // Warm up, so compiled code and lazily built tables are not counted as the read's growth.
  for (let i = 0; i < 3; i++) {
    page();
    corpus.baseline(text);
  }
  const ours: number[] = [];
  const retained: number[] = [];
  const base: number[] = [];
  let collections = 0;
  for (let i = 0; i < RUNS; i++) {
    const b = measureHeap(() => corpus.baseline(text), gc);
    base.push(b.peakGrowth);
    const m = measureHeap(page, gc);
    ours.push(m.peakGrowth);
    collections += m.collections;
    if (m.retainedGrowth !== null) retained.push(m.retainedGrowth);
  }
  const peak = median(ours);
  const worst = Math.max(...ours);
  return {
    bench: "P6 memory 1MiB read",
    peak_heap_growth_mib: round(peak / MIB),
    worst_peak_heap_growth_mib: round(worst / MIB),
    baseline_peak_heap_growth_mib: round(median(base) / MIB),
    ratio_to_baseline: round(peak / median(base)),
    retained_growth_mib: retained.length > 0 ? round(median(retained) / MIB) : null,
    input_mib: round(Buffer.byteLength(text, "utf8") / MIB),
    gc_during_read: round(collections / RUNS, 1),
    gc: source,
    method:
      source === "unavailable"
        ? "heapUsed before vs. V8 GC records and heapUsed after, no full GC before (less exact)"
        : "full GC, then heapUsed before vs. peak from V8 GC records and heapUsed after",
    runs: RUNS,
    budget_mib: BUDGET_MIB,
    load_avg_1m: round(loadavg()[0] ?? 0),
    pass: worst <= BUDGET_MIB * MIB,
  };
}
