/**
 * `occ agent logs --download [FILE]`: saves the server's text/plain download. Without FILE the
 * server's content-disposition name is used, reduced to a safe basename in the current directory,
 * and never overwrites an existing file (`name-1.log`, `name-2.log`… instead). The saved path is
 * printed on stdout (with `-o json`: `{"path","bytes","requestId"}`), so scripts can pick it up.
 */
import { join, resolve } from "node:path";
import type { Ctx } from "../context.ts";
import { ApiError, EXIT, type ExitCode, Interrupted, TransportError } from "../errors.ts";
import { escapeJsonText, escapeText } from "../escape.ts";
import type { DownloadAnswer, Query } from "../http.ts";
import { retryDelay } from "../retry.ts";

const MAX_NAME = 200;
/** Waits (429, 504, 503 BUSY) before a download gives up. */
const MAX_WAITS = 5;
const MAX_SUFFIX = 99;

/** A server-given filename as a safe basename: `[A-Za-z0-9_.-]` only, no leading dot, never `.`/`..`. */
export function safeFilename(name: string | undefined, fallback: string): string {
  const base = (name ?? "").split(/[\\/]/).pop() ?? "";
  let safe = base.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, (dots) => "_".repeat(dots.length));
  if (safe.length > MAX_NAME) safe = safe.slice(safe.length - MAX_NAME);
  if (safe === "" || /^[_.]*$/.test(safe))
    return fallback === "" ? "occ-download.log" : safeFilename(fallback, "");
  return safe;
}

function withSuffix(name: string, n: number): string {
  if (n === 0) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
}

function isExists(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { code?: unknown }).code === "EEXIST";
}

/** The download, waiting out Retry-After (at least 2 s) on 429, 2 s on 504, and backing off on BUSY. */
async function fetchWithWaits(ctx: Ctx, segments: string[], query: Query): Promise<DownloadAnswer> {
  let busyInARow = 0;
  let said: string | undefined;
  for (let waits = 0; ; waits++) {
    try {
      return await ctx.client.getDownload(segments, query, ctx.signal);
    } catch (e) {
      if (!(e instanceof ApiError) || waits >= MAX_WAITS) throw e;
      const d = retryDelay(e, {
        busyInARow,
        pollIntervalMs: ctx.deps.pollIntervalMs,
        random: ctx.deps.random,
      });
      if (d === undefined) throw e;
      if (d.kind === "busy") busyInARow++;
      if (said !== d.kind || d.kind === "rate-limited")
        ctx.notice(
          `${d.kind === "rate-limited" ? "rate limited" : d.kind === "timeout" ? "the server timed out" : "the service is busy"}; retrying the download in ${Math.ceil(d.waitMs / 1000)}s`,
        );
      said = d.kind;
      await ctx.deps.sleep(d.waitMs, ctx.signal);
      if (ctx.signal.aborted) throw new Interrupted("interrupted");
    }
  }
}

export async function downloadLogs(
  ctx: Ctx,
  segments: string[],
  query: Query,
  target: { file: string | undefined; fallbackName: string },
): Promise<ExitCode> {
  // A download always reads the newest 1000 lines and starts a new view: no tail, cursor or download flag.
  const { tailLines: _tail, ...rest } = query;
  const answer = await fetchWithWaits(ctx, segments, rest);
  let path: string;
  try {
    if (target.file !== undefined) {
      path = resolve(ctx.deps.cwd, target.file);
      await ctx.deps.writeFile(path, answer.bytes, false);
    } else {
      const name = safeFilename(answer.filename, safeFilename(target.fallbackName, ""));
      path = "";
      for (let n = 0; n <= MAX_SUFFIX; n++) {
        const candidate = join(ctx.deps.cwd, withSuffix(name, n));
        try {
          await ctx.deps.writeFile(candidate, answer.bytes, true);
          path = candidate;
          break;
        } catch (e) {
          if (!isExists(e)) throw e;
        }
      }
      if (path === "") throw new TransportError(`${name} and its numbered variants already exist; pass FILE`);
    }
  } catch (e) {
    if (e instanceof TransportError) throw e;
    const code = (e as { code?: unknown }).code;
    throw new TransportError(`could not save the download: ${typeof code === "string" ? code : String(e)}`);
  }
  if (ctx.output === "json")
    ctx.out(
      escapeJsonText(
        JSON.stringify({ path, bytes: answer.bytes.byteLength, requestId: answer.requestId ?? null }),
      ),
    );
  else {
    ctx.out(escapeText(path));
    ctx.notice(`saved ${answer.bytes.byteLength} bytes`);
  }
  return EXIT.ok;
}
