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
  return timeWaysInRounds(shapes, [once], repeats)[0]!;
}

/**
 * `timeInRounds` for several ways of handling each shape, timed one after the other on the same
 * shape in every round: their samples come from the same moments of the run, so a ratio between
 * two ways holds while the machine's speed changes (this VM runs at half speed for stretches of
 * tens of milliseconds). Which way goes first alternates from round to round.
 */
export function timeWaysInRounds(
  shapes: ReadonlyArray<{ name: string; line: string }>,
  ways: ReadonlyArray<(line: string) => void>,
  repeats: number,
): RoundsResult[] {
  const samples: number[][][] = ways.map(() => shapes.map(() => []));
  for (let r = 0; r < repeats; r++) {
    shapes.forEach((s, i) => {
      for (let k = 0; k < ways.length; k++) {
        const w = (k + r) % ways.length;
        const t = performance.now();
        ways[w]!(s.line);
        samples[w]![i]!.push(performance.now() - t);
      }
    });
  }
  return samples.map((perWay) => {
    const perShape = perWay.map((times) => median(times));
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
  });
}
