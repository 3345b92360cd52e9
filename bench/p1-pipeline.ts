/**
 * P1 (quality.md): the realistic 1 MiB chunk (seed 1) → a signed page, against the corpus's
 * baseline (split into lines and SHA-256 each) timed in the same run, interleaved.
 */
import { performance } from "node:perf_hooks";
import type { LogChunk } from "../lib/domain.ts";
import { buildLogPage } from "../lib/runtime-logs/index.ts";
import { loadCorpus, median, round } from "./corpus.ts";

export const id = "P1";

export async function run(): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  const text = corpus.realistic(1);
  const bytes = Buffer.byteLength(text, "utf8");
  const chunk: LogChunk = {
    text,
    truncated: false,
    limitBytes: 1_048_576,
    pod: "gateway-0",
    podUid: "2b1f7c1e-8f0a-4c55-9d57-1a2b3c4d5e6f",
    container: "gateway",
    restartCount: 0,
    previous: false,
    observedAfter: { podUid: "2b1f7c1e-8f0a-4c55-9d57-1a2b3c4d5e6f", restartCount: 0 },
  };
  const keys = { current: { id: "k1", secret: Buffer.alloc(32, 7) } };
  const identity = { id: "i1", secret: Buffer.alloc(32, 9) };
  const now = Date.parse("2026-01-15T09:00:00Z");
  const build = (): number => {
    const out = buildLogPage({
      chunk,
      cursor: null,
      expired: false,
      view: {
        binding: {
          principalId: "p",
          namespaceId: "ns",
          agentId: "ag",
          deploymentId: "d1",
          source: "gateway",
        },
        tailLines: 1000,
        source: "gateway",
      },
      deploymentId: "d1",
      requestId: "req_00000000-0000-4000-8000-000000000000",
      now,
      keys: { cursor: keys, identity },
      namespaceId: "ns",
    });
    return out.body.length;
  };
  // Warm up both, then interleave so machine noise hits both alike.
  for (let i = 0; i < 5; i++) {
    build();
    corpus.baseline(text);
  }
  const ours: number[] = [];
  const base: number[] = [];
  const runs = 25;
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
    mib_per_s: round(bytes / (1024 * 1024) / (m / 1000), 1),
    runs,
  };
}
