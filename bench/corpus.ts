/**
 * The bench corpus: the seeded generator vendored unchanged as bench/corpus.mjs (a test pins its
 * bytes and the SHA-256 of its output, docs/quality.md § Bench corpus).
 */
import type { LogChunk } from "../lib/domain.ts";
import type { BuildLogPageInput } from "../lib/runtime-logs/index.ts";
import * as corpus from "./corpus.mjs";

export interface Corpus {
  realistic(seed?: number): string;
  realisticWithSecrets(seed?: number): { chunk: string; secrets: string[] };
  hostile(seed?: number): Array<{ name: string; line: string }>;
  baseline(chunk: string): number;
}

/** The corpus module (async for its callers' sake: it once lived outside the repository). */
export async function loadCorpus(): Promise<Corpus> {
  return corpus;
}

/**
 * What P1 and P6 feed the pipeline: a read of `text` (the realistic chunk) as the driver returns it,
 * for a new view of 1000 lines, with fixed keys and clock so runs compare.
 */
export function corpusPageInput(text: string): BuildLogPageInput {
  const podUid = "2b1f7c1e-8f0a-4c55-9d57-1a2b3c4d5e6f";
  const chunk: LogChunk = {
    text,
    truncated: false,
    limitBytes: 1_048_576,
    pod: "gateway-0",
    podUid,
    container: "gateway",
    restartCount: 0,
    previous: false,
    observedAfter: { podUid, restartCount: 0 },
  };
  const binding = {
    principalId: "p",
    namespaceId: "ns",
    agentId: "ag",
    deploymentId: "d1",
    source: "gateway",
  } as const;
  return {
    chunk,
    cursor: null,
    expired: false,
    view: { binding, tailLines: 1000, source: "gateway" },
    deploymentId: "d1",
    requestId: "req_00000000-0000-4000-8000-000000000000",
    now: Date.parse("2026-01-15T09:00:00Z"),
    keys: {
      cursor: { current: { id: "k1", secret: Buffer.alloc(32, 7) } },
      identity: { id: "i1", secret: Buffer.alloc(32, 9) },
    },
    namespaceId: "ns",
  };
}
