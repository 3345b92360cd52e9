/**
 * P2 (docs/quality.md): every `hostile()` line (67 shapes, 32 KiB each), timed two ways: the redaction
 * chain alone on the raw line (the figure that compares across implementations), and the per-line
 * path strip → classify → redact (`classifyLine`, which withholds plain text over 4 KiB before
 * redaction). Per shape the median of 21 repetitions, taken in rounds over all the shapes; `worst_ms` and `median_ms` are the
 * larger of the two ways. The breakdown per way goes to stderr; the row keeps the contract's keys.
 */
import { performance } from "node:perf_hooks";
import { redactText } from "../lib/redact/index.ts";
import { classifyLine } from "../lib/runtime-logs/classify.ts";
import { loadCorpus } from "./corpus.ts";
import { median, round } from "./support/stats.ts";

export const id = "P2";

/**
 * Repetitions per shape, taken in rounds over all the shapes: a shape's samples are spread over the
 * whole run, so a pause of the machine (a GC, the VM descheduled for some milliseconds) touches one
 * of them, not a run of consecutive ones, and the median of 21 passes over it.
 */
const REPEATS = 21;

interface Way {
  worst: number;
  worstCase: string;
  median: number;
}

function time(lines: ReadonlyArray<{ name: string; line: string }>, once: (line: string) => void): Way {
  const samples: number[][] = lines.map(() => []);
  for (let r = 0; r < REPEATS; r++) {
    lines.forEach((l, i) => {
      const t = performance.now();
      once(l.line);
      samples[i]!.push(performance.now() - t);
    });
  }
  const perShape = samples.map((times) => median(times));
  let worst = 0;
  let worstCase = "";
  perShape.forEach((m, i) => {
    if (m > worst) {
      worst = m;
      worstCase = lines[i]!.name;
    }
  });
  return { worst, worstCase, median: median(perShape) };
}

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
  const chain = time(lines, redactOnly);
  const path = time(lines, perLine);
  const detail = {
    redact_worst_ms: round(chain.worst, 3),
    redact_worst_case: chain.worstCase,
    redact_median_ms: round(chain.median, 3),
    path_worst_ms: round(path.worst, 3),
    path_worst_case: path.worstCase,
    path_median_ms: round(path.median, 3),
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
