/**
 * P2 (quality.md): every `hostile()` line (32 KiB each) through the whole redaction chain, as the
 * pipeline runs it on a line (control stripping, pseudonyms, redaction). Worst and median per line.
 */
import { performance } from "node:perf_hooks";
import { classifyLine } from "../lib/runtime-logs/classify.ts";
import { redactText } from "../lib/runtime-logs/index.ts";
import { loadCorpus, median, round } from "./corpus.ts";

export const id = "P2";

/** Repetitions per shape: the median of 21 is robust to a stray GC pause on a noisy machine. */
const REPEATS = 21;

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const lines = corpus.hostile(1);
  const ctx = { identityKey: { id: "i1", secret: Buffer.alloc(32, 9) }, namespaceId: "ns" };
  const once = (line: string): void => {
    redactText(line);
    classifyLine(line, ctx, { depth: 0 });
  };
  for (let i = 0; i < 3; i++) for (const l of lines) once(l.line);
  // Per shape: the median of several repetitions (noise), then worst and median across shapes.
  const perShape: number[] = [];
  let worstName = "";
  let worst = 0;
  for (const l of lines) {
    const times: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t = performance.now();
      redactText(l.line);
      times.push(performance.now() - t);
    }
    const m = median(times);
    perShape.push(m);
    if (m > worst) {
      worst = m;
      worstName = l.name;
    }
  }
  return {
    bench: "P2 hostile 32KiB",
    worst_ms: round(worst),
    median_ms: round(median(perShape)),
    cases: lines.length,
    repeats: REPEATS,
    worst_case: worstName,
  };
}
