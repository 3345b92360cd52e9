/**
 * `occ agent logs`: one page, a follow (polling with the cursor), a download, or — with
 * `--source all` — every available source and Pod of the deployment merged by time.
 */
import { SOURCE_IDS } from "../../lib/api/values.ts";
import type { MinLevel, Source } from "../args.ts";
import { type Ctx, deploymentSegments } from "../context.ts";
import { type ExitCode, TransportError } from "../errors.ts";
import { isObject, type Query } from "../http.ts";
import {
  runningElsewhere,
  runtimeOf,
  type Selection,
  selectDeployment,
  sourceContainers,
} from "../select.ts";
import { podKey, readStreams, type StreamSpec } from "../streams.ts";
import { downloadLogs } from "./download.ts";

export interface LogsOptions {
  source: Source | "all";
  deployment?: string;
  pod?: string;
  container?: string;
  previous: boolean;
  tail?: number;
  sinceSeconds?: number;
  sinceTime?: string;
  level?: MinLevel;
  follow: boolean;
  timestamps: boolean;
  /** `--prefix` / `--no-prefix`; unset: on for `--source all`, off for one source. */
  prefix?: boolean;
  /** `true` for `--download` without FILE. */
  download?: string | true;
}

/** The query of a new view of one source: everything the user asked for. */
export function firstQuery(o: LogsOptions, source: Source, pod?: string): Query {
  return {
    source,
    pod: pod ?? o.pod,
    container: o.container,
    previous: o.previous ? "true" : undefined,
    tailLines: o.tail === undefined ? undefined : String(o.tail),
    sinceSeconds: o.sinceSeconds === undefined ? undefined : String(o.sinceSeconds),
    sinceTime: o.sinceTime,
    minLevel: o.level,
  };
}

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const SOURCE_ORDER: readonly Source[] = SOURCE_IDS;

/** The streams of a merged view, from the runtime description; unavailable sources are announced. */
function mergedStreams(ctx: Ctx, o: LogsOptions, runtime: unknown, announce: boolean): StreamSpec[] {
  const specs: StreamSpec[] = [];
  const sources = objects(isObject(runtime) ? runtime.sources : undefined);
  for (const id of SOURCE_ORDER) {
    const src = sources.find((s) => s.id === id);
    if (src === undefined) continue;
    if (src.available !== true) {
      // A source the deployment does not have (NOT_CONFIGURED) is not news; a missing Pod is.
      if (announce && src.unavailableCode !== "NOT_CONFIGURED")
        ctx.notice(
          `skipping source ${id}: not available${typeof src.unavailableCode === "string" ? ` (${src.unavailableCode})` : ""}`,
        );
      continue;
    }
    if (id === "sandbox") {
      specs.push({ key: "sandbox", query: { ...firstQuery(o, id), pod: undefined, container: undefined } });
      continue;
    }
    for (const pod of objects(src.pods)) {
      const key = podKey(id, pod);
      if (key !== undefined) specs.push({ key, query: firstQuery(o, id, pod.name as string) });
    }
  }
  return specs;
}

async function mergedView(
  ctx: Ctx,
  agent: string,
  sel: Selection,
  o: LogsOptions,
  segments: string[],
): Promise<ExitCode> {
  const answer = await runtimeOf(ctx, agent, sel, sel.deploymentId);
  let specs: StreamSpec[];
  if (answer === null) {
    // Without `read`+`operate` the description is out of reach: read each source's default Pod.
    ctx.notice("could not read the runtime description; reading each source's first Pod");
    specs = SOURCE_ORDER.map((id) => ({
      key: id,
      query: id === "sandbox" ? { ...firstQuery(o, id), pod: undefined } : firstQuery(o, id),
    }));
  } else specs = mergedStreams(ctx, o, answer.data, true);
  if (specs.length === 0) throw new TransportError("no source of this deployment is available to read");
  return readStreams(ctx, specs, {
    segments,
    follow: o.follow,
    timestamps: o.timestamps,
    prefix: o.prefix ?? true,
    merged: true,
    discover: async () => {
      sel.runtimes.delete(sel.deploymentId);
      const fresh = await runtimeOf(ctx, agent, sel, sel.deploymentId);
      return fresh === null ? [] : mergedStreams(ctx, o, fresh.data, false);
    },
  });
}

/**
 * Says why a source's first page is empty when its container never started (waiting reason), and
 * which other deployment runs one. True when it never started.
 */
async function explainNotStarted(
  ctx: Ctx,
  agent: string,
  sel: Selection,
  source: Source,
  o: LogsOptions,
  podOfPage: string | undefined,
): Promise<boolean> {
  const answer = await runtimeOf(ctx, agent, sel, sel.deploymentId);
  if (answer === null) return false;
  const containers = sourceContainers(answer.data, source, o.container).filter(
    (c) => podOfPage === undefined || c.pod === podOfPage,
  );
  const waiting = containers.find((c) => c.state === "waiting" && c.restartCount === 0);
  if (waiting === undefined) return false;
  ctx.notice(
    `the ${source} container ${waiting.container} of Pod ${waiting.pod} (deployment ${sel.deploymentId}) has not started: ${waiting.reason ?? "waiting"}`,
  );
  const elsewhere = await runningElsewhere(ctx, agent, sel, source);
  if (elsewhere !== undefined)
    ctx.notice(`deployment ${elsewhere} has a running ${source} container (pass --deployment ${elsewhere})`);
  return true;
}

export async function logsCommand(ctx: Ctx, agent: string, o: LogsOptions): Promise<ExitCode> {
  const sel = await selectDeployment(ctx, agent, o.deployment, o.source);
  const segments = [...deploymentSegments(ctx, agent, sel.deploymentId), "runtime", "logs"];
  if (o.source === "all") return mergedView(ctx, agent, sel, o, segments);
  const source = o.source;
  if (o.download !== undefined)
    return downloadLogs(ctx, [...segments, "download"], firstQuery(o, source), {
      file: o.download === true ? undefined : o.download,
      fallbackName: `${agent}-${sel.deploymentId}-${source}.log`,
    });
  return readStreams(ctx, [{ key: source, query: firstQuery(o, source) }], {
    segments,
    follow: o.follow,
    timestamps: o.timestamps,
    prefix: o.prefix ?? false,
    merged: false,
    explainEmpty:
      source === "sandbox"
        ? undefined
        : (_spec, page) =>
            explainNotStarted(
              ctx,
              agent,
              sel,
              source,
              o,
              page.stream !== null && typeof page.stream.pod === "string" ? page.stream.pod : undefined,
            ),
  });
}
