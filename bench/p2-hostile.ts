/**
 * P2 (docs/quality.md): every `hostile()` line (67 shapes, 32 KiB each), timed two ways: the redaction
 * chain alone on the raw line (the figure that compares across implementations), and the per-line
 * path strip → classify → redact (`classifyLine`, which withholds plain text over 4 KiB before
 * redaction). Per shape the median of 21 repetitions, taken in rounds over all the shapes; `worst_ms` and `median_ms` are the
 * larger of the two ways. The breakdown per way goes to stderr, with the corpus baseline timed beside
 * them as the machine's yardstick; the row keeps the contract's keys.
 */
import { redactText } from "../lib/redact/index.ts";
import { classifyLine } from "../lib/runtime-logs/classify.ts";
import { loadCorpus } from "./corpus.ts";
import { type RoundsResult, timeWaysInRounds } from "./support/rounds.ts";
import { round } from "./support/stats.ts";

export const id = "P2";

/**
 * Repetitions per shape, taken in rounds over all the shapes: a shape's samples are spread over the
 * whole run, so a pause of the machine (a GC, the VM descheduled for some milliseconds) touches one
 * of them, not a run of consecutive ones, and the median of 21 passes over it.
 */
const REPEATS = 21;

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const lines = corpus.hostile(1);
  const ctx = { identityKey: { id: "i1", secret: Buffer.alloc(32, 9) }, namespaceId: "ns" };
  const redactOnly = (line: string): void => {
    redactText(line);
  };
  const perLine = (line: string): void => {
    classifyLine(line, ctx, { depth: 0 });
  };
  for (let i = 0; i < 3; i++) {
    for (const l of lines) {
      redactOnly(l.line);
      perLine(l.line);
    }
  }
  /** The machine's yardstick, timed beside the two ways: the corpus baseline (SHA-256) of each line. */
  const yardstick = (line: string): void => {
    corpus.baseline(line);
  };
  const [chain, path, machine] = timeWaysInRounds(lines, [redactOnly, perLine, yardstick], REPEATS) as [
    RoundsResult,
    RoundsResult,
    RoundsResult,
  ];
  const detail = {
    redact_worst_ms: round(chain.worst, 3),
    redact_worst_case: chain.worstCase,
    redact_median_ms: round(chain.median, 3),
    path_worst_ms: round(path.worst, 3),
    path_worst_case: path.worstCase,
    path_median_ms: round(path.median, 3),
    // How fast the machine ran meanwhile: the row's milliseconds in units of the baseline's, which
    // stay put while the VM's speed halves for a stretch and every millisecond figure doubles.
    baseline_median_ms: round(machine.median, 3),
    worst_per_baseline: round(Math.max(chain.worst, path.worst) / machine.median, 2),
    median_per_baseline: round(Math.max(chain.median, path.median) / machine.median, 2),
    repeats: REPEATS,
  };
  process.stderr.write(`P2 detail ${JSON.stringify(detail)}\n`);
  return {
    bench: "P2 hostile 32KiB",
    worst_ms: round(Math.max(chain.worst, path.worst), 3),
    median_ms: round(Math.max(chain.median, path.median), 3),
    cases: lines.length,
  };
}
