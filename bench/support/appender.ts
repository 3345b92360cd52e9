/**
 * Appends lines with unique, increasing sequence numbers to the benchmark container through the
 * simulator's in-process admin operation, remembering each line's time so a lost line can be
 * checked against the gap that reports it. A batch shares one timestamp (kubelet groups).
 */
import type { KubeSim } from "../../local/kube-sim/index.ts";
import { sleep } from "./env.ts";
import { gatewayLine, TARGET } from "./scenario.ts";

export class SequencedAppender {
  #last = 0;
  readonly #times: number[] = [0];

  constructor(private readonly sim: KubeSim) {}

  /** The newest sequence number appended (0 before the first). */
  get last(): number {
    return this.#last;
  }

  /** Epoch ms a sequence number was appended with. */
  timeOf(seq: number): number | undefined {
    return seq >= 1 && seq <= this.#last ? this.#times[seq] : undefined;
  }

  /** Appends `size` lines at the simulator's current time; returns the last sequence number. */
  append(size: number): number {
    const timeMs = this.sim.now().getTime();
    const time = new Date(timeMs).toISOString();
    const lines: [string, string][] = [];
    for (let i = 0; i < size; i++) {
      const seq = ++this.#last;
      this.#times[seq] = timeMs;
      lines.push([time, gatewayLine(seq, `seq=${seq} `)]);
    }
    this.sim.append({
      cluster: TARGET.clusterId,
      namespace: TARGET.namespace,
      pod: TARGET.pod,
      container: TARGET.container,
      lines,
    });
    return this.#last;
  }
}

/**
 * Appends a batch every `everyMs` while `running()` holds, at most `maxBatches` times; batch sizes
 * cycle through `sizes` so some timestamps carry groups of identical times.
 */
export async function appendContinuously(
  appender: SequencedAppender,
  opts: { everyMs: number; maxBatches: number; sizes: readonly number[]; running: () => boolean },
): Promise<void> {
  for (let i = 0; i < opts.maxBatches && opts.running(); i++) {
    appender.append(opts.sizes[i % opts.sizes.length] ?? 1);
    await sleep(opts.everyMs);
  }
}
