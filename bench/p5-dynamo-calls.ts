/**
 * P5 (docs/capacity.md): DynamoDB calls per warm cursor poll (budget 5: the grant lookup, 2
 * acquires, 2 releases) and per new view (budget 8), counted by the service's own `CallCounter`
 * around the logs use case, with every request served as by a fresh container: a new limiter per
 * request, so no limiter item is cached (at scale consecutive polls land on different containers).
 * The dependencies are built exactly as a function container builds them (config from the local
 * stack's environment, dynalite, the simulator), and each request is the API Gateway event the
 * local stack would hand the handler.
 *
 * Knobs: BENCH_P5_VIEWS (new views, default 5), BENCH_P5_POLLS (cursor polls per view, default 10).
 */
import { randomBytes } from "node:crypto";
import { Logger } from "@aws-lambda-powertools/logger";
import { loadConfig } from "../lib/config.ts";
import { startDeadline } from "../lib/http/deadline.ts";
import { httpRoute, type RequestScope } from "../lib/http/handler.ts";
import { parseLogsRequest } from "../lib/http/requests.ts";
import { newRequestId, sourceResult } from "../lib/http/response.ts";
import { GcraLeaseLimiter } from "../lib/limiter/limiter.ts";
import { DynamoLimiterStore } from "../lib/limiter/store.ts";
import { readLogs } from "../lib/routes/logs.ts";
import { buildServiceDeps, type ServiceDeps } from "../lib/service/deps.ts";
import { buildHttpApiEvent } from "../local/stack/http-api-event.ts";
import { startLocalStack } from "../local/stack/index.ts";
import { matchRoute } from "../local/stack/routes.ts";
import { SequencedAppender } from "./support/appender.ts";
import { envInt } from "./support/env.ts";
import { logsUrl } from "./support/logs-client.ts";
import { benchScenario } from "./support/scenario.ts";
import { median } from "./support/stats.ts";
import { captureStdout } from "./support/stdout-capture.ts";

export const id = "P5";

/** The logs route as the function wires it: parse the event, run the use case, present the page. */
const logsRoute = httpRoute(parseLogsRequest("logs"), readLogs, sourceResult);

const PRINCIPAL = "bench-00";
const POLL_BUDGET = 5;
const VIEW_BUDGET = 8;

interface Counted {
  ok: boolean;
  code: string | null;
  cursor: string | null;
  calls: number;
  byCommand: Record<string, number>;
}

function diff(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, n] of Object.entries(after)) {
    const d = n - (before[name] ?? 0);
    if (d > 0) out[name.replace(/Command$/, "")] = d;
  }
  return out;
}

/** One logs request through the use case, with the DynamoDB calls it made. */
async function countedRequest(
  container: ServiceDeps,
  apiPath: string,
  cursor: string | null,
): Promise<Counted> {
  // A fresh container's limiter: nothing cached, so no call is saved by an earlier request.
  const deps: ServiceDeps = {
    ...container,
    limiter: new GcraLeaseLimiter({
      store: new DynamoLimiterStore({
        client: container.dynamo.client,
        tableName: container.config.tables.state,
      }),
      config: container.config.limits,
    }),
  };
  const query = new URLSearchParams({ source: "gateway" });
  if (cursor !== null) query.set("cursor", cursor);
  const route = matchRoute("GET", apiPath);
  if (!route) throw new Error(`no route for ${apiPath}`);
  const event = buildHttpApiEvent(
    {
      method: "GET",
      target: `${apiPath}?${query}`,
      rawHeaders: ["host", "127.0.0.1", "authorization", `Bearer local:${PRINCIPAL}`],
      sourceIp: "127.0.0.1",
      protocol: "HTTP/1.1",
    },
    { route, requestId: randomBytes(11).toString("base64"), now: new Date() },
  );
  const scope: RequestScope = {
    requestId: newRequestId(),
    deadline: startDeadline(Date.now, undefined),
    now: Date.now,
    principalId: null,
  };
  const before = deps.dynamo.calls.snapshot();
  let ok = false;
  let code: string | null = null;
  let next: string | null = null;
  try {
    const result = await logsRoute(event, scope, deps);
    ok = result.statusCode === 200;
    const body = JSON.parse(result.body ?? "{}") as { data?: { cursor?: string | null } };
    next = body.data?.cursor ?? null;
    if (!ok) code = String(result.statusCode);
  } catch (error) {
    code = (error as { code?: string }).code ?? (error instanceof Error ? error.name : "ERROR");
  } finally {
    scope.deadline.dispose();
  }
  const byCommand = diff(deps.dynamo.calls.snapshot(), before);
  const calls = Object.values(byCommand).reduce((a, b) => a + b, 0);
  return { ok, code, cursor: next, calls, byCommand };
}

export async function run(): Promise<Record<string, unknown>> {
  const views = envInt("BENCH_P5_VIEWS", 5);
  const pollsPerView = envInt("BENCH_P5_POLLS", 10);
  return captureStdout(
    () => {},
    async () => {
      const stack = await startLocalStack({
        scenario: benchScenario({ principals: [PRINCIPAL], initialLines: 50 }),
        port: 0,
        quiet: true,
      });
      let deps: ServiceDeps | undefined;
      try {
        deps = buildServiceDeps(
          loadConfig(stack.environment),
          new Logger({ serviceName: "runtime-logs-bench", logLevel: "SILENT" }),
        );
        const apiPath = new URL(logsUrl(stack.apiUrl)).pathname;
        const appender = new SequencedAppender(stack.sim);
        const errors = new Map<string, number>();
        const check = (c: Counted) => {
          if (!c.ok) errors.set(c.code ?? "?", (errors.get(c.code ?? "?") ?? 0) + 1);
          return c;
        };

        // A cold container's first view fills the registry and limiter caches and loads the keys.
        const cold = check(await countedRequest(deps, apiPath, null));
        let cursor = cold.cursor;
        for (let i = 0; i < 2; i++) {
          appender.append(1);
          cursor = check(await countedRequest(deps, apiPath, cursor)).cursor ?? cursor;
        }

        const viewCalls: Counted[] = [];
        const pollCalls: Counted[] = [];
        for (let v = 0; v < views; v++) {
          const view = check(await countedRequest(deps, apiPath, null));
          viewCalls.push(view);
          cursor = view.cursor;
          for (let p = 0; p < pollsPerView && cursor !== null; p++) {
            appender.append(1 + (p % 3));
            const poll = check(await countedRequest(deps, apiPath, cursor));
            pollCalls.push(poll);
            cursor = poll.cursor ?? cursor;
          }
        }

        const max = (xs: Counted[]) => xs.reduce((m, c) => Math.max(m, c.calls), 0);
        // The breakdown shown is that of the most expensive request of each kind.
        const worst = (xs: Counted[]) => xs.reduce((w, c) => (c.calls > w.calls ? c : w), xs[0]!).byCommand;
        const errorCount = [...errors.values()].reduce((a, b) => a + b, 0);
        const pollMax = max(pollCalls);
        const viewMax = max(viewCalls);
        return {
          bench: "P5 dynamo calls per request",
          warm_poll_calls_median: median(pollCalls.map((c) => c.calls)),
          warm_poll_calls_max: pollMax,
          warm_poll_by_command: worst(pollCalls),
          new_view_calls_median: median(viewCalls.map((c) => c.calls)),
          new_view_calls_max: viewMax,
          new_view_by_command: worst(viewCalls),
          cold_view_calls: cold.calls,
          cold_view_by_command: cold.byCommand,
          polls: pollCalls.length,
          views: viewCalls.length,
          errors: errorCount,
          ...(errorCount > 0 ? { error_codes: Object.fromEntries(errors) } : {}),
          fresh_limiter_per_request: true,
          budget_poll: POLL_BUDGET,
          budget_view: VIEW_BUDGET,
          pass: errorCount === 0 && pollMax <= POLL_BUDGET && viewMax <= VIEW_BUDGET,
        };
      } finally {
        deps?.dynamo.client.destroy();
        await stack.close();
      }
    },
  );
}
