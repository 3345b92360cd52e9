/**
 * Per-shape timing in rounds (P2, PH): every shape's repetitions are spread over the whole run, one
 * per round over all the shapes, so a pause of the machine (a GC, the VM descheduled for some
 * milliseconds) touches one sample of a shape, not a run of them, and the shape's median passes over it.
 */
import { performance } from "node:perf_hooks";
import { median } from "./stats.ts";

export interface RoundsResult {
  /** Median ms per shape, in the order given. */
  perShape: number[];
  worst: number;
  worstCase: string;
  /** Median over the shapes' medians. */
  median: number;
}

export function timeInRounds(
  shapes: ReadonlyArray<{ name: string; line: string }>,
  once: (line: string) => void,
  repeats: number,
): RoundsResult {
  const samples: number[][] = shapes.map(() => []);
  for (let r = 0; r < repeats; r++) {
    shapes.forEach((s, i) => {
      const t = performance.now();
      once(s.line);
      samples[i]!.push(performance.now() - t);
    });
  }
  const perShape = samples.map((times) => median(times));
  let worst = 0;
  perShape.forEach((m, i) => {
    if (m > perShape[worst]!) worst = i;
  });
  return {
    perShape,
    worst: perShape[worst] ?? 0,
    worstCase: shapes[worst]?.name ?? "",
    median: median(perShape),
  };
}
