/**
 * Test harness: a model container log and a kubelet that reads it the way the real one does
 * (tailLines → sinceTime/sinceSeconds → limitBytes cut), with `timestamps=true`.
 */
import type { LogChunk } from "../../../lib/domain.ts";
import type { CursorBinding, CursorKeys } from "../../../lib/runtime-logs/index.ts";

export const KEYS: CursorKeys = { current: { id: "k2", secret: Buffer.alloc(32, 0x42) } };
export const OLD_KEYS: CursorKeys = { current: { id: "k1", secret: Buffer.alloc(32, 0x41) } };
export const IDENTITY = { id: "id1", secret: Buffer.alloc(32, 0x17) };
export const BINDING: CursorBinding = {
  principalId: "user-1",
  namespaceId: "ns-a",
  agentId: "agent-a",
  deploymentId: "dep-1",
  source: "gateway",
};
/** The same view's binding on the sandbox source. */
export const SANDBOX_BINDING = { ...BINDING, source: "sandbox" } as const satisfies CursorBinding;
export const T0 = Date.parse("2026-01-15T08:00:00Z");

/** RFC 3339 with a 9-digit fraction from integer nanoseconds since the epoch. */
export function nanoTime(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const frac = String(ns % 1_000_000_000n).padStart(9, "0");
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac}Z`;
}

export interface Entry {
  /** Real time (ns) the kubelet filters on. */
  ns: bigint;
  text: string;
  /** Rendered without a valid timestamp (a hostile or broken runtime). */
  untimed: boolean;
  /** Dated before a line written earlier, or before the service's clock: the node's clock was behind. */
  behind?: boolean;
  /** Some read's tail held this line but its sinceTime withheld it. */
  hiddenBySince?: boolean;
}

export class ModelLog {
  entries: Entry[] = [];
  constructor(
    public readonly uid: string,
    public readonly restartCount: number,
  ) {}

  private newest: bigint | null = null;

  /** `lagging`: the node's clock is behind the service's when the line is written. */
  append(ns: bigint, text: string, untimed = false, lagging = false): void {
    const behind = lagging || (this.newest !== null && ns < this.newest);
    if (this.newest === null || ns > this.newest) this.newest = ns;
    this.entries.push(behind ? { ns, text, untimed, behind } : { ns, text, untimed });
  }

  render(e: Entry): string {
    return e.untimed ? `${nanoTime(e.ns).replace("T", " ")} ${e.text}` : `${nanoTime(e.ns)} ${e.text}`;
  }

  /** What the pipeline should show for an entry: time (or null) and message. */
  expected(e: Entry): { time: string | null; message: string } {
    return e.untimed ? { time: null, message: this.render(e) } : { time: nanoTime(e.ns), message: e.text };
  }

  read(opts: {
    tailLines: number;
    sinceTime?: string;
    sinceSeconds?: number;
    limitBytes: number;
    nowNs: bigint;
  }): {
    text: string;
    truncated: boolean;
  } {
    let list = this.entries.slice(Math.max(0, this.entries.length - opts.tailLines));
    let since: bigint | null = null;
    if (opts.sinceTime !== undefined) since = BigInt(Date.parse(opts.sinceTime)) * 1_000_000n;
    else if (opts.sinceSeconds !== undefined) since = opts.nowNs - BigInt(opts.sinceSeconds) * 1_000_000_000n;
    if (since !== null) {
      for (const e of list) if (e.ns < since) e.hiddenBySince = true;
      list = list.filter((e) => e.ns >= since);
    }
    const text = list.map((e) => `${this.render(e)}\n`).join("");
    const bytes = Buffer.from(text, "utf8");
    if (bytes.length <= opts.limitBytes) return { text, truncated: false };
    return { text: bytes.subarray(0, opts.limitBytes).toString("utf8"), truncated: true };
  }
}

export function chunkOf(
  log: ModelLog,
  read: { text: string; truncated: boolean },
  limitBytes: number,
  after: ModelLog | null = log,
  pod = "gateway-0",
): LogChunk {
  return {
    text: read.text,
    truncated: read.truncated,
    limitBytes,
    pod,
    podUid: log.uid,
    container: "gateway",
    restartCount: log.restartCount,
    previous: false,
    observedAfter: after === null ? null : { podUid: after.uid, restartCount: after.restartCount },
  };
}

/** Deterministic PRNG (mulberry32) for schedules driven by a fast-check seed. */
export function prng(seed: number): { next(): number; int(n: number): number } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n) };
}
