/**
 * Reading one or more log streams (a source's container, or the sandbox) with one page each, or a
 * follow in which every stream keeps its own cursor, gaps and retry schedule. Records of one round
 * are merged by time across streams; a merged view prefixes each line with its stream, in its own
 * colour (stern-like). Each request passes the limiter on its own.
 */
import { fractionalMillis } from "../lib/rfc3339.ts";
import type { Ctx } from "./context.ts";
import { ApiError, EXIT, type ExitCode, Interrupted } from "./errors.ts";
import { escapeJsonText } from "./escape.ts";
import {
  formatLogLine,
  formatRecordNotice,
  isIncomplete,
  type LogPage,
  ndjsonRecords,
  noRunningPodNotice,
  toLogPage,
} from "./format/logs.ts";
import { isObject, type Query } from "./http.ts";
import { retryDelay } from "./retry.ts";
import { STREAM_COLORS } from "./style.ts";

export interface StreamSpec {
  /** `source/pod/container`, `source` (server's default Pod) or `sandbox`. */
  key: string;
  /** The query of a new view (everything the user asked for). */
  query: Query;
}

export interface ReadOptions {
  segments: string[];
  follow: boolean;
  timestamps: boolean;
  /** Prefix lines with their stream (a merged view's default; `--no-prefix` turns it off). */
  prefix: boolean;
  /** More than one stream may be read: unavailable ones are skipped, JSON records name their stream. */
  merged: boolean;
  /**
   * Called when a stream's first page has no line: explains why on stderr. Returns true when the
   * container never started (the command then exits 3 without --follow).
   */
  explainEmpty?: ((spec: StreamSpec, page: LogPage) => Promise<boolean>) | undefined;
  /** A merged follow re-reads which streams exist now and then (a replaced Pod is a new stream). */
  discover?: () => Promise<StreamSpec[]>;
}

/** Answers that make a merged view skip one stream instead of failing. */
const SKIPPABLE = new Set([
  "RUNTIME_LOGS_SOURCE_UNAVAILABLE",
  "RUNTIME_LOGS_POD_INVALID",
  "RUNTIME_LOGS_SANDBOX_NOT_FOUND",
  "NOT_IMPLEMENTED",
]);

/** Single reads without --follow retry a busy service this many times before giving up. */
const MAX_BUSY_RETRIES = 5;
/** A merged follow looks for new Pods every this many rounds. */
const DISCOVER_EVERY = 15;

class StreamState {
  cursor: string | undefined;
  first = true;
  /** A rejected cursor starts one new view; twice in a row ends the command. */
  rejected = 0;
  busyInARow = 0;
  notBefore = 0;
  waitingForPod = false;
  explained = false;
  dropped = false;
  stream: Record<string, unknown> | null = null;
  lastWait: string | undefined;
  constructor(
    readonly spec: StreamSpec,
    readonly color: (typeof STREAM_COLORS)[number],
  ) {}

  query(): Query {
    if (this.first) return this.spec.query;
    // A poll, or a view restarted mid-follow: never `--since` again.
    return { ...this.spec.query, sinceSeconds: undefined, sinceTime: undefined, cursor: this.cursor };
  }

  /** What a prefix shows: the stream as the server named it, else as asked. */
  label(): string {
    const s = this.stream;
    if (s !== null && s.source === "sandbox")
      return `sandbox/${typeof s.sandbox === "string" ? s.sandbox : "?"}`;
    if (s !== null && typeof s.pod === "string")
      return `${String(s.source)}/${s.pod}/${typeof s.container === "string" ? s.container : "?"}`;
    return this.spec.key;
  }
}

interface Entry {
  state: StreamState;
  record: Record<string, unknown>;
  json: string | undefined;
}

/** A record's time for merging (nanosecond digits order lines within one millisecond). */
const timeOf = (r: Record<string, unknown>): number | undefined =>
  typeof r.time === "string" ? (fractionalMillis(r.time) ?? undefined) : undefined;

/**
 * Merges per-stream record lists by time, each list's own order kept (an untimed record goes out
 * as soon as it is at the head of its list).
 */
export function mergeByTime<T>(lists: readonly T[][], time: (item: T) => number | undefined): T[] {
  const heads = lists.map(() => 0);
  const out: T[] = [];
  for (;;) {
    let best = -1;
    let bestTime = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i++) {
      const item = lists[i]![heads[i]!];
      if (item === undefined) continue;
      const t = time(item);
      if (t === undefined) {
        best = i;
        break;
      }
      if (best < 0 || t < bestTime) {
        best = i;
        bestTime = t;
      }
    }
    if (best < 0) return out;
    out.push(lists[best]![heads[best]!]!);
    heads[best]!++;
  }
}

function withStream(json: string, state: StreamState): string {
  const s = state.stream;
  const stream =
    s === null
      ? { key: state.spec.key }
      : s.source === "sandbox"
        ? { source: "sandbox", sandbox: s.sandbox }
        : { source: s.source, pod: s.pod, container: s.container };
  const head = `{"stream":${escapeJsonText(JSON.stringify(stream))}`;
  return json === "{}" ? `${head}}` : `${head},${json.slice(1)}`;
}

export async function readStreams(ctx: Ctx, specs: StreamSpec[], o: ReadOptions): Promise<ExitCode> {
  const states: StreamState[] = [];
  const add = (spec: StreamSpec) => {
    if (states.some((s) => s.spec.key === spec.key && !s.dropped)) return;
    states.push(new StreamState(spec, STREAM_COLORS[states.length % STREAM_COLORS.length]!));
  };
  for (const spec of specs) add(spec);
  const prefixed = o.prefix;
  // Notices of a merged view always name their stream, whatever the lines do.
  const noticeFor = (state: StreamState, message: string) =>
    ctx.notice(prefixed || o.merged ? `${state.label()}: ${message}` : message);

  let incomplete = false;
  let neverStarted = false;

  /** One request for a stream; returns its page, or undefined when it waits, is skipped or retried. */
  const poll = async (
    state: StreamState,
  ): Promise<{ page: LogPage; raw: string | undefined } | undefined> => {
    const query = state.query();
    const usedCursor = query.cursor !== undefined;
    try {
      const answer = await ctx.client.getJson(o.segments, query, ctx.signal);
      const page = toLogPage(answer.data);
      state.first = false;
      state.busyInARow = 0;
      state.lastWait = undefined;
      if (usedCursor) state.rejected = 0;
      state.cursor = page.cursor ?? undefined;
      if (page.stream !== null) state.stream = page.stream;
      return { page, raw: answer.rawData };
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const decision = retryDelay(e, {
        busyInARow: state.busyInARow,
        pollIntervalMs: ctx.deps.pollIntervalMs,
        random: ctx.deps.random,
      });
      const retries =
        o.follow || (decision?.kind === "busy" && state.busyInARow < MAX_BUSY_RETRIES) ? decision : undefined;
      if (retries !== undefined) {
        if (retries.kind === "busy") state.busyInARow++;
        const secs = Math.ceil(retries.waitMs / 1000);
        const what =
          retries.kind === "rate-limited"
            ? "rate limited"
            : retries.kind === "timeout"
              ? "the server timed out"
              : "the service is busy";
        // Said once per episode, not on every retry of it.
        if (state.lastWait !== retries.kind || retries.kind === "rate-limited")
          noticeFor(state, `${what}; retrying in ${secs}s`);
        state.lastWait = retries.kind;
        state.notBefore = ctx.deps.now() + retries.waitMs;
        return undefined;
      }
      if (e.code === "RUNTIME_LOGS_CURSOR_INVALID" && usedCursor && state.rejected === 0) {
        state.rejected++;
        state.cursor = undefined;
        state.first = false;
        noticeFor(state, "the server rejected the cursor; starting a new view (recent lines may repeat)");
        return undefined;
      }
      if (o.merged && e.code !== undefined && SKIPPABLE.has(e.code)) {
        state.dropped = true;
        noticeFor(state, `skipped: ${e.info.message ?? e.code} (${e.code})`);
        return undefined;
      }
      throw e;
    }
  };

  const print = async (results: { state: StreamState; page: LogPage; raw: string | undefined }[]) => {
    const lists: Entry[][] = [];
    for (const { state, page, raw } of results) {
      const noPod = page.stream === null && page.records.length === 0;
      if (isIncomplete(page) && !(noPod && state.waitingForPod)) incomplete = true;
      if (noPod) {
        if (!state.waitingForPod)
          noticeFor(state, noRunningPodNotice(page.source || String(state.spec.query.source)));
        state.waitingForPod = true;
      } else state.waitingForPod = false;
      const jsons = ctx.output === "json" ? ndjsonRecords(page, raw) : [];
      lists.push(page.records.map((record, i) => ({ state, record, json: jsons[i] })));
      if (ctx.output !== "json") {
        let inRecords = 0;
        for (const r of page.records)
          if (r.type === "withheld" && typeof r.count === "number") inRecords += r.count;
        if (page.withheld > inRecords)
          noticeFor(
            state,
            `withheld ${page.withheld - inRecords} more line(s); they are counted, never shown`,
          );
      }
      if (!state.explained && !page.records.some((r) => r.type === "line") && o.explainEmpty !== undefined) {
        state.explained = true;
        if (await o.explainEmpty(state.spec, page)) neverStarted = true;
      }
    }
    for (const { state, record, json } of mergeByTime(lists, (e) => timeOf(e.record))) {
      if (ctx.output === "json") {
        const line = json ?? escapeJsonText(JSON.stringify(record));
        ctx.out(o.merged ? withStream(line, state) : line);
      } else if (record.type === "line") {
        ctx.out(
          formatLogLine(record, {
            timestamps: o.timestamps,
            style: ctx.style,
            ...(prefixed ? { prefix: { text: state.label(), color: state.color } } : {}),
          }),
        );
      } else {
        const notice = formatRecordNotice(record);
        if (notice !== undefined) noticeFor(state, notice);
      }
    }
  };

  const live = () => states.filter((s) => !s.dropped);

  try {
    if (!o.follow) {
      const results: { state: StreamState; page: LogPage; raw: string | undefined }[] = [];
      for (const state of states) {
        for (;;) {
          const got = await poll(state);
          if (got !== undefined) {
            results.push({ state, ...got });
            break;
          }
          if (state.dropped) break;
          await ctx.deps.sleep(Math.max(0, state.notBefore - ctx.deps.now()), ctx.signal);
          if (ctx.signal.aborted) throw new Interrupted("interrupted");
        }
      }
      if (o.merged && live().length === 0) {
        ctx.notice("no source of this deployment could be read");
        return EXIT.requestFailed;
      }
      await print(results);
      if (neverStarted) return EXIT.incomplete;
      return incomplete && ctx.output !== "json" ? EXIT.incomplete : EXIT.ok;
    }

    let round = 0;
    while (!ctx.signal.aborted) {
      round++;
      if (o.discover !== undefined && round % DISCOVER_EVERY === 0)
        for (const spec of await o.discover()) add(spec);
      const results: { state: StreamState; page: LogPage; raw: string | undefined }[] = [];
      for (const state of live()) {
        if (state.notBefore > ctx.deps.now()) continue;
        const got = await poll(state);
        if (got !== undefined) {
          results.push({ state, ...got });
          state.notBefore = ctx.deps.now() + ctx.deps.pollIntervalMs;
        }
      }
      await print(results);
      if (live().length === 0) {
        ctx.notice("no source of this deployment can be read any more");
        return EXIT.requestFailed;
      }
      const next = Math.min(...live().map((s) => s.notBefore));
      const wait = next - ctx.deps.now();
      if (wait > 0) await ctx.deps.sleep(wait, ctx.signal);
    }
  } catch (e) {
    if (e instanceof Interrupted && o.follow) return EXIT.ok;
    throw e;
  }
  return EXIT.ok;
}

/** `source/pod/container` of a runtime source entry's Pod, for a merged view's stream keys. */
export function podKey(source: string, pod: Record<string, unknown>): string | undefined {
  if (!isObject(pod) || typeof pod.name !== "string" || typeof pod.container !== "string") return undefined;
  return `${source}/${pod.name}/${pod.container}`;
}
