/**
 * P4 (quality.md): the local stack end to end (local API Gateway → logs handler → dynalite and the
 * kube API simulator), 8 followers polling concurrently with their cursors while lines are
 * appended. The baseline, measured in the same run and interleaved in rounds, is the bare
 * simulator read each poll makes underneath: the same container's log with the kubeconfig's bearer
 * token and the driver's resume query (`sinceTime` = newest line − 2 s, whole seconds).
 *
 * Knobs: BENCH_P4_POLLS (cursor polls per follower, default 60), BENCH_P4_INTERVAL_MS (pause
 * between a follower's polls, default 25).
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { startLocalStack } from "../local/stack/index.ts";
import { appendContinuously, SequencedAppender } from "./support/appender.ts";
import { envInt, sleep } from "./support/env.ts";
import { logsUrl, pollLogs } from "./support/logs-client.ts";
import { benchScenario, principals, TARGET } from "./support/scenario.ts";
import { maximum, median, percentile, round } from "./support/stats.ts";
import { captureStdout, parseRequestSummary } from "./support/stdout-capture.ts";

export const id = "P4";

const FOLLOWERS = 8;
const ROUNDS = 3;
const TAIL_LINES = 200;
const TARGET_P50_MS = 20;
const TARGET_P99_MS = 60;

/** The kubelet time at the start of the last complete line of a `timestamps=true` body, in ms. */
function newestLineMs(body: string): number | null {
  const end = body.lastIndexOf("\n", body.length - 2);
  const line = body.slice(end + 1);
  const t = Date.parse(line.slice(0, line.indexOf(" ")));
  return Number.isNaN(t) ? null : t;
}

/** The driver's resume `sinceTime`: newest delivered time − 2 s, whole seconds rounded down. */
const resumeSince = (ms: number): string => `${new Date(ms - 2000).toISOString().slice(0, 19)}Z`;

export async function run(): Promise<Record<string, unknown>> {
  const pollsPerFollower = envInt("BENCH_P4_POLLS", 60);
  const intervalMs = envInt("BENCH_P4_INTERVAL_MS", 25);
  const perRound = Math.max(1, Math.ceil(pollsPerFollower / ROUNDS));
  const load = loadavg()[0] ?? 0;
  const who = principals(FOLLOWERS);
  const handlerMs: number[] = [];
  let measuring = false;
  const failures = new Map<string, number>();
  const fail = (code: string) => failures.set(code, (failures.get(code) ?? 0) + 1);

  return captureStdout(
    (line) => {
      const s = parseRequestSummary(line);
      if (measuring && s?.status === 200) handlerMs.push(s.durationMs);
    },
    async () => {
      const stack = await startLocalStack({
        scenario: benchScenario({ principals: who, initialLines: TAIL_LINES }),
        port: 0,
        quiet: true,
      });
      let appending = true;
      try {
        const url = logsUrl(stack.apiUrl);
        const appender = new SequencedAppender(stack.sim);
        const appends = appendContinuously(appender, {
          everyMs: 20,
          sizes: [1, 1, 2, 1, 3],
          maxBatches: 100_000,
          running: () => appending,
        });

        // Open every follower's view (the first one also loads the handler), then warm the path.
        const cursors: (string | null)[] = who.map(() => null);
        const open = async (i: number) => {
          const r = await pollLogs(url, { principal: who[i]!, cursor: null, tailLines: TAIL_LINES });
          if (r.ok) cursors[i] = r.page.cursor;
          else fail(`open:${r.code}`);
          return r.ms;
        };
        await open(0);
        const newViewMs = await Promise.all(who.map((_, i) => open(i)));

        let delivered = 0;
        const e2eMs: number[] = [];
        const follow = async (i: number, polls: number, sink: number[] | null) => {
          for (let k = 0; k < polls; k++) {
            const r = await pollLogs(url, { principal: who[i]!, cursor: cursors[i]! });
            if (r.ok) {
              cursors[i] = r.page.cursor ?? cursors[i]!;
              if (sink) {
                sink.push(r.ms);
                delivered += r.page.records.filter((x) => x.type === "line").length;
              }
            } else if (sink) fail(r.code);
            await sleep(intervalMs);
          }
        };
        await Promise.all(who.map((_, i) => follow(i, 3, null)));

        const logUrl =
          `${stack.sim.clusterUrl(TARGET.clusterId)}/api/v1/namespaces/${TARGET.namespace}/pods/${TARGET.pod}/log` +
          `?container=${TARGET.container}&timestamps=true&tailLines=${TAIL_LINES}&limitBytes=1048576`;
        const authorization = `Bearer ${stack.sim.token(TARGET.clusterId)}`;
        const bareNewest: number[] = who.map(() => Date.now() - 60_000);
        const bareMs: number[] = [];
        const bare = async (i: number, polls: number) => {
          for (let k = 0; k < polls; k++) {
            const started = performance.now();
            const res = await fetch(`${logUrl}&sinceTime=${resumeSince(bareNewest[i]!)}`, {
              headers: { authorization },
            });
            const body = await res.text();
            bareMs.push(performance.now() - started);
            if (res.status !== 200) fail(`bare:${res.status}`);
            bareNewest[i] = newestLineMs(body) ?? bareNewest[i]!;
            await sleep(intervalMs);
          }
        };

        // Interleaved rounds, so machine noise lands on both sides alike.
        // CPU time of this whole process (stack, simulator, dynalite, clients) per request: a figure
        // that other load on the machine distorts far less than latency.
        let e2eCpuUs = 0;
        let bareCpuUs = 0;
        const cpu = () => {
          const u = process.cpuUsage();
          return u.user + u.system;
        };
        for (let r = 0; r < ROUNDS; r++) {
          let c = cpu();
          await Promise.all(who.map((_, i) => bare(i, perRound)));
          bareCpuUs += cpu() - c;
          measuring = true;
          c = cpu();
          await Promise.all(who.map((_, i) => follow(i, perRound, e2eMs)));
          e2eCpuUs += cpu() - c;
          measuring = false;
        }
        appending = false;
        await appends;

        const p50 = median(e2eMs);
        const p99 = percentile(e2eMs, 99);
        const bareP50 = median(bareMs);
        const bareP99 = percentile(bareMs, 99);
        const errors = [...failures.values()].reduce((a, b) => a + b, 0);
        return {
          bench: `P4 local e2e ${FOLLOWERS} followers`,
          p50_ms: round(p50),
          p99_ms: round(p99),
          max_ms: round(maximum(e2eMs)),
          baseline_p50_ms: round(bareP50),
          baseline_p99_ms: round(bareP99),
          overhead_p50_ms: round(p50 - bareP50),
          overhead_p99_ms: round(p99 - bareP99),
          ratio_to_baseline: round(p50 / bareP50),
          handler_p50_ms: round(median(handlerMs)),
          cpu_ms_per_poll: round(e2eCpuUs / 1000 / e2eMs.length),
          baseline_cpu_ms_per_read: round(bareCpuUs / 1000 / bareMs.length),
          new_view_p50_ms: round(median(newViewMs)),
          polls: e2eMs.length,
          baseline_reads: bareMs.length,
          lines_delivered: delivered,
          lines_appended: appender.last,
          errors,
          ...(errors > 0 ? { error_codes: Object.fromEntries(failures) } : {}),
          followers: FOLLOWERS,
          interval_ms: intervalMs,
          load_avg_1m: round(load),
          pass: errors === 0 && p50 <= TARGET_P50_MS && p99 <= TARGET_P99_MS,
        };
      } finally {
        appending = false;
        await stack.close();
      }
    },
  );
}
