/**
 * `occ agent logs`: one page, a follow (polling with the cursor), or a download.
 */
import type { MinLevel, Source } from "../args.ts";
import { type Ctx, deploymentSegments } from "../context.ts";
import { ApiError, EXIT, type ExitCode, Interrupted } from "../errors.ts";
import {
  formatLogLine,
  formatRecordNotice,
  isIncomplete,
  type LogPage,
  ndjsonRecords,
  noRunningPodNotice,
  toLogPage,
} from "../format/logs.ts";
import type { Query } from "../http.ts";
import { selectDeployment } from "../select.ts";
import { downloadLogs } from "./download.ts";

export interface LogsOptions {
  source: Source;
  deployment?: string;
  pod?: string;
  previous: boolean;
  tail?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  level?: MinLevel;
  follow: boolean;
  /** `true` for `--download` without FILE. */
  download?: string | true;
}

/** The poll interval of `--follow` (surfaces.md: every 2 s). */
export const DEFAULT_POLL_MS = 2000;
/** The least wait before retrying a 429 (with Retry-After) or a 504; not shortened by the test hook. */
export const RETRY_FLOOR_MS = 2000;

export function pollIntervalMs(env: Ctx["deps"]["env"]): number {
  // Test hook (undocumented): OCC_POLL_INTERVAL_MS changes the interval between polls.
  const v = env.OCC_POLL_INTERVAL_MS;
  if (v !== undefined && /^[0-9]{1,6}$/.test(v)) return Number(v);
  return DEFAULT_POLL_MS;
}

/** The query of a new view: everything the user asked for. */
export function firstQuery(o: LogsOptions): Query {
  return {
    source: o.source,
    pod: o.pod,
    previous: o.previous ? "true" : undefined,
    tailLines: o.tail === undefined ? undefined : String(o.tail),
    sinceSeconds: o.sinceSeconds === undefined ? undefined : String(o.sinceSeconds),
    sinceTime: o.sinceTime,
    minLevel: o.level,
  };
}

/** The query of a poll (or of a view restarted mid-follow): never `--since` again. */
export function pollQuery(o: LogsOptions, cursor: string | undefined): Query {
  return { ...firstQuery(o), sinceSeconds: undefined, sinceTime: undefined, cursor };
}

/** Prints one page; returns whether it was complete. */
function printPage(ctx: Ctx, page: LogPage, rawData: string | undefined): boolean {
  if (ctx.output === "json") {
    for (const line of ndjsonRecords(page, rawData)) ctx.out(line);
  } else {
    let withheldInRecords = 0;
    for (const rec of page.records) {
      if (rec.type === "line") {
        ctx.out(formatLogLine(rec));
        continue;
      }
      if (rec.type === "withheld" && typeof rec.count === "number") withheldInRecords += rec.count;
      const notice = formatRecordNotice(rec);
      if (notice !== undefined) ctx.notice(notice);
    }
    if (page.withheld > withheldInRecords)
      ctx.notice(`withheld ${page.withheld - withheldInRecords} more line(s); they are counted, never shown`);
  }
  if (page.stream === null && page.records.length === 0) ctx.notice(noRunningPodNotice(page.source));
  return !isIncomplete(page);
}

export async function logsCommand(ctx: Ctx, agent: string, o: LogsOptions): Promise<ExitCode> {
  const selection = await selectDeployment(ctx, agent, o.deployment);
  const segments = [...deploymentSegments(ctx, agent, selection.deploymentId), "runtime", "logs"];
  if (o.download !== undefined)
    return downloadLogs(ctx, [...segments, "download"], firstQuery(o), {
      file: o.download === true ? undefined : o.download,
      fallbackName: `${agent}-${selection.deploymentId}-${o.source}.log`,
    });
  if (o.follow) return follow(ctx, segments, o);
  const answer = await ctx.client.getJson(segments, firstQuery(o), ctx.signal);
  const complete = printPage(ctx, toLogPage(answer.data), answer.rawData);
  return complete || ctx.output === "json" ? EXIT.ok : EXIT.incomplete;
}

/**
 * Polls until interrupted. 429 waits for Retry-After (at least 2 s), 504 retries after 2 s, a rejected cursor starts one new view (twice in a row ends the command); anything
 * else ends it with the error.
 */
async function follow(ctx: Ctx, segments: string[], o: LogsOptions): Promise<ExitCode> {
  const interval = pollIntervalMs(ctx.deps.env);
  const sleep = (ms: number) => ctx.deps.sleep(ms, ctx.signal);
  let cursor: string | undefined;
  let first = true;
  /** Rejected cursors since the last poll that a cursor carried through. */
  let rejected = 0;
  let waitingForPod = false;
  try {
    while (!ctx.signal.aborted) {
      const query = first ? firstQuery(o) : pollQuery(o, cursor);
      const usedCursor = query.cursor !== undefined;
      let page: LogPage;
      let rawData: string | undefined;
      try {
        const answer = await ctx.client.getJson(segments, query, ctx.signal);
        page = toLogPage(answer.data);
        rawData = answer.rawData;
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        if (e.status === 429) {
          const wait = Math.max(RETRY_FLOOR_MS, (e.info.retryAfterSeconds ?? 0) * 1000);
          ctx.notice(`rate limited; retrying in ${Math.ceil(wait / 1000)}s`);
          await sleep(wait);
          continue;
        }
        if (e.status === 504) {
          ctx.notice(`the server timed out; retrying in ${RETRY_FLOOR_MS / 1000}s`);
          await sleep(RETRY_FLOOR_MS);
          continue;
        }
        if (e.code === "RUNTIME_LOGS_CURSOR_INVALID" && usedCursor && rejected === 0) {
          rejected++;
          cursor = undefined;
          first = false;
          ctx.notice("the server rejected the cursor; starting a new view (recent lines may repeat)");
          continue;
        }
        throw e;
      }
      first = false;
      if (usedCursor) rejected = 0;
      cursor = page.cursor ?? undefined;
      const noPod = page.stream === null && page.records.length === 0;
      if (noPod && waitingForPod) {
        // Already said so; keep waiting quietly.
      } else {
        printPage(ctx, page, rawData);
      }
      waitingForPod = noPod;
      await sleep(interval);
    }
  } catch (e) {
    if (e instanceof Interrupted) return EXIT.ok;
    throw e;
  }
  return EXIT.ok;
}
