/**
 * Peak heap growth of a synchronous piece of work. A synchronous call cannot be sampled from a
 * timer, so the peak is read from V8's own GC records: the heap in use right before each collection
 * during the work is where it peaked, and the heap in use right after the work is the last peak.
 * A full collection first (when `gc` is reachable) makes the starting point the live heap only.
 */
import { GCProfiler, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export type GcSource = "expose-gc" | "runtime-flag" | "unavailable";

/** V8's collector: a full collection, or with `{type: "minor"}` the young generation only. */
export type Collect = (options?: { type: "major" | "minor" }) => void;

/** `global.gc` when the process was started with `--expose-gc`, else one enabled at run time. */
export function findGc(): { gc: Collect | null; source: GcSource } {
  const exposed = (globalThis as { gc?: Collect }).gc;
  if (typeof exposed === "function") return { gc: exposed, source: "expose-gc" };
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    if (typeof gc === "function") return { gc: gc as Collect, source: "runtime-flag" };
  } catch {
    // fall through: heap figures are then sampled without a full collection first
  }
  return { gc: null, source: "unavailable" };
}

export interface HeapSample {
  /** Peak heap in use during the work minus the heap in use before it, in bytes. */
  peakGrowth: number;
  /** Heap still in use after the work and a full collection, minus the start (result dropped). */
  retainedGrowth: number | null;
  /** Collections V8 ran during the work. */
  collections: number;
}

export function measureHeap(work: () => unknown, gc: (() => void) | null): HeapSample {
  gc?.();
  const start = process.memoryUsage().heapUsed;
  const profiler = new GCProfiler();
  profiler.start();
  let result: unknown = work();
  const end = process.memoryUsage().heapUsed;
  const records = profiler.stop()?.statistics ?? [];
  let peak = end;
  for (const r of records) peak = Math.max(peak, r.beforeGC.heapStatistics.usedHeapSize);
  result = null;
  let retainedGrowth: number | null = null;
  if (gc) {
    gc();
    retainedGrowth = process.memoryUsage().heapUsed - start;
  }
  void result;
  return { peakGrowth: peak - start, retainedGrowth, collections: records.length };
}
