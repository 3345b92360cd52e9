/**
 * Recording restart transitions: read the agent's restart lines around each transition (bounded),
 * attribute, and write the record best-effort. Shared by the status read and the health probe.
 */
import { isServiceError } from "../api/errors.ts";
import { ulid } from "../audit/ulid.ts";
import type { DeploymentRecord, LogChunk } from "../domain.ts";
import type { KubeDriver } from "../kube/driver.ts";
import { type AttributionDeps, attribute, transitionTime } from "./attribute.ts";
import { detectInProcess, instanceKey } from "./detect.ts";
import { type RestartLine, readRestartLines } from "./parse.ts";
import type { RestartStore } from "./store.ts";
import type { DetectedBy, ObservedPod, Transition } from "./types.ts";

/** Bounds of the reads around one transition. */
export const READ_BOUNDS = {
  /** Tail of the previous instance's log. */
  tailLines: 200,
  limitBytes: 64 * 1024,
  /** Head of the new instance's log (from its start, no tail). */
  headBytes: 16 * 1024,
} as const;

/** Reads are not started with less time than this left before the deadline. */
export const MIN_TIME_LEFT_MS = 1_000;

/** Minimal structured logger (Powertools' Logger fits). Fields never carry log text or identifiers. */
export interface RestartLog {
  warn(message: string, fields?: Record<string, unknown>): void;
}

export const silentLog: RestartLog = { warn() {} };

/**
 * Transitions already recorded by this Lambda container, keyed by instance key and finish time, so
 * a second status read does not read the same logs again. Bounded, oldest evicted first.
 */
export class RestartCache {
  readonly #keys = new Set<string>();
  constructor(private readonly maxEntries = 2_000) {}

  static keyOf(t: Transition): string {
    return `${t.scope}|${instanceKey(t.next)}|${t.previous.finishedAt ?? ""}|${t.next.startedAt ?? ""}`;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  add(key: string): void {
    this.#keys.delete(key);
    this.#keys.add(key);
    while (this.#keys.size > this.maxEntries) {
      const oldest = this.#keys.values().next().value as string;
      this.#keys.delete(oldest);
    }
  }
}

export interface RecordContext {
  deployment: DeploymentRecord;
  driver: Pick<KubeDriver, "readLog">;
  store: RestartStore;
  attribution: AttributionDeps;
  detectedBy: DetectedBy;
  now: () => number;
  signal: AbortSignal;
  deadline: number;
  log: RestartLog;
  cache?: RestartCache;
  newId?: (timeMs: number) => string;
}

export interface RecordOutcome {
  written: number;
  /** Already recorded (by another observer, or earlier by this container). */
  existing: number;
  /** Transitions left for a later observation (a read or a write failed). */
  deferred: Transition[];
}

type ReadOutcome = { lines: RestartLine[] } | { failed: true };

const errorCode = (e: unknown): string => (isServiceError(e) ? e.code : "INTERNAL");

async function readLines(
  ctx: RecordContext,
  pod: ObservedPod,
  container: string,
  request: { previous: boolean; tailLines?: number; sinceTime?: string; limitBytes: number },
): Promise<ReadOutcome> {
  let chunk: LogChunk;
  try {
    chunk = await ctx.driver.readLog(ctx.deployment, {
      role: pod.role,
      pod: pod.name,
      podUid: pod.uid,
      container,
      signal: ctx.signal,
      deadline: ctx.deadline,
      ...request,
    });
  } catch (e) {
    const code = errorCode(e);
    // A permission gap will not heal by retrying: attribute without lines rather than never.
    if (code === "RUNTIME_LOGS_CLUSTER_RBAC") return { lines: [] };
    ctx.log.warn("restart log read failed", { code, previous: request.previous });
    return { failed: true };
  }
  let text = chunk.text;
  // A body cut at limitBytes ends with a partial line, whose values would be wrong: drop it.
  if (chunk.truncated) text = text.slice(0, Math.max(0, text.lastIndexOf("\n")));
  return { lines: readRestartLines(text) };
}

const isCurrent = (pod: ObservedPod, t: Transition): boolean =>
  pod.containers.some((c) => c.name === t.container && c.restartCount === t.next.restartCount);

/** The previous-log tail and the next instance's head for a container-level transition. */
async function linesFor(
  ctx: RecordContext,
  t: Transition,
  listed: ReadonlySet<string>,
): Promise<ReadOutcome[]> {
  const reads: Promise<ReadOutcome>[] = [];
  const tail = { tailLines: READ_BOUNDS.tailLines, limitBytes: READ_BOUNDS.limitBytes };
  if (t.scope === "container-restart") {
    reads.push(readLines(ctx, t.nextPod, t.container, { previous: true, ...tail }));
  } else if (t.previousPod && listed.has(t.previousPod.uid)) {
    // A replaced Pod that is still listed (evicted, terminal): its last instance is its current log.
    reads.push(readLines(ctx, t.previousPod, t.container, { previous: false, ...tail }));
  } else {
    reads.push(Promise.resolve({ lines: [] }));
  }
  if (isCurrent(t.nextPod, t)) {
    reads.push(
      readLines(ctx, t.nextPod, t.container, {
        previous: false,
        limitBytes: READ_BOUNDS.headBytes,
        ...(t.next.startedAt ? { sinceTime: t.next.startedAt } : {}),
      }),
    );
  } else {
    reads.push(Promise.resolve({ lines: [] }));
  }
  return Promise.all(reads);
}

/**
 * Attributes and writes one transition. `chain` is given for in-process transitions (their lines
 * were already read); container-level ones read their own lines here.
 */
type Outcome = "written" | "exists" | "deferred" | "cached";

async function put(
  ctx: RecordContext,
  t: Transition,
  previousLines: RestartLine[],
  currentLines: RestartLine[],
) {
  const nowMs = ctx.now();
  const record = attribute(
    {
      namespaceId: ctx.deployment.namespaceId,
      agentId: ctx.deployment.agentId,
      deploymentId: ctx.deployment.deploymentId,
      transition: t,
      previousLines,
      currentLines,
      restartId: (ctx.newId ?? ((ms: number) => ulid(ms)))(nowMs),
      detectedAt: new Date(nowMs).toISOString(),
      detectedBy: ctx.detectedBy,
    },
    ctx.attribution,
  );
  return ctx.store.put(record, transitionTime(record, t));
}

/**
 * Attributes and writes one transition. `chain` is given for in-process transitions (their lines
 * were already read); container-level ones read their own lines here. In-process restarts found in
 * the previous instance's tail (read anyway) are recorded too, at no extra read.
 */
async function recordOne(
  ctx: RecordContext,
  t: Transition,
  chain: RestartLine[] | null,
  listed: ReadonlySet<string>,
): Promise<{ outcome: Outcome; extra: { written: number; existing: number } }> {
  const extra = { written: 0, existing: 0 };
  const cacheKey = RestartCache.keyOf(t);
  if (ctx.cache?.has(cacheKey)) return { outcome: "cached", extra };
  // Never start reads the caller's deadline cannot wait for: leave the transition for later.
  if (ctx.deadline - ctx.now() < MIN_TIME_LEFT_MS) return { outcome: "deferred", extra };
  let previousLines: RestartLine[] = [];
  let currentLines: RestartLine[] = [];
  if (chain) {
    currentLines = chain;
  } else {
    const [prev, head] = await linesFor(ctx, t, listed);
    if (!prev || "failed" in prev || !head || "failed" in head) return { outcome: "deferred", extra };
    previousLines = prev.lines;
    currentLines = head.lines;
  }
  try {
    const outcome = await put(ctx, t, previousLines, currentLines);
    if (t.scope === "container-restart") {
      const before = {
        name: t.container,
        init: false,
        restartCount: t.previous.restartCount,
        startedAt: t.previous.startedAt,
        lastTermination: null,
      };
      for (const found of detectInProcess(t.nextPod, before, previousLines)) {
        if ((await put(ctx, found.transition, [], found.chain)) === "written") extra.written++;
        else extra.existing++;
      }
    }
    ctx.cache?.add(cacheKey);
    return { outcome: outcome === "written" ? "written" : "exists", extra };
  } catch (e) {
    // Best-effort: a failed write is logged and swallowed; a later observation tries again.
    ctx.log.warn("restart record write failed", { code: errorCode(e), scope: t.scope });
    return { outcome: "deferred", extra };
  }
}

/**
 * Records transitions with at most `concurrency` in flight. Never throws for a read or write
 * failure (those transitions are `deferred`).
 */
export async function recordTransitions(
  ctx: RecordContext,
  items: readonly { transition: Transition; chain: RestartLine[] | null }[],
  listedPodUids: ReadonlySet<string>,
  concurrency = 4,
): Promise<RecordOutcome> {
  const out: RecordOutcome = { written: 0, existing: 0, deferred: [] };
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      if (!item) continue;
      const { outcome: r, extra } = await recordOne(ctx, item.transition, item.chain, listedPodUids);
      out.written += extra.written;
      out.existing += extra.existing;
      if (r === "written") out.written++;
      else if (r === "exists" || r === "cached") out.existing++;
      else out.deferred.push(item.transition);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}
