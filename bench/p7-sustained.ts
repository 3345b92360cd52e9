/**
 * P7 (docs/quality.md): sustained load on the local stack — 50 views (one principal each) follow the
 * same Gateway container for 60 s with their cursors while lines with unique sequence numbers are
 * appended continuously (batches share a timestamp, and some groups exceed the cursor's 16 remembered
 * hashes). Every view's deliveries are audited: 0 errors, 0 duplicates, every lost line inside a gap
 * that the view received where the line would have been.
 *
 * Knobs: BENCH_P7_SECONDS (default 60), BENCH_P7_INTERVAL_MS (pause between a view's polls,
 * default 2000: the CLI's and console's follow interval, docs/surfaces.md).
 */
import { loadavg } from "node:os";
import { startLocalStack } from "../local/stack/index.ts";
import { appendContinuously, SequencedAppender } from "./support/appender.ts";
import { sequenceOf, totalAudits, ViewLedger } from "./support/delivery.ts";
import { envInt, sleep } from "./support/env.ts";
import { type LogPageData, logsUrl, pollLogs } from "./support/logs-client.ts";
import { benchScenario, principals } from "./support/scenario.ts";
import { maximum, median, percentile, round } from "./support/stats.ts";
import { captureStdout, parseRequestSummary } from "./support/stdout-capture.ts";

export const id = "P7";

const VIEWS = 50;
const TAIL_LINES = 200;
const APPEND_EVERY_MS = 100;
/** ≈ 23 lines/s: groups of 1–3 lines per timestamp, and one group of 17 every ≈ 3 s. */
const BATCH_SIZES = [...Array.from({ length: 7 }, () => [1, 2, 1, 3]).flat(), 17];
const DRAIN_POLLS = 2;

function feed(ledger: ViewLedger, page: LogPageData): number {
  let lines = 0;
  for (const r of page.records) {
    if (r.type === "gap") {
      const t = r.time === null ? Number.NaN : Date.parse(r.time);
      ledger.add({ type: "gap", reason: r.reason ?? "unknown", timeMs: Number.isNaN(t) ? null : t });
    } else if (r.type === "line") {
      lines++;
      const seq = sequenceOf(r.message ?? "");
      if (seq !== null) ledger.add({ type: "line", seq });
    }
  }
  return lines;
}

export async function run(): Promise<Record<string, unknown>> {
  const seconds = envInt("BENCH_P7_SECONDS", 60);
  const intervalMs = envInt("BENCH_P7_INTERVAL_MS", 2000);
  const load = loadavg()[0] ?? 0;
  const who = principals(VIEWS);
  const serverStatus = new Map<number, number>();

  return captureStdout(
    (line) => {
      const s = parseRequestSummary(line);
      if (s && s.status !== 200) serverStatus.set(s.status, (serverStatus.get(s.status) ?? 0) + 1);
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
        // Load the handler before the clock starts, so the run measures a warm stack.
        await pollLogs(url, { principal: who[0]!, cursor: null, tailLines: 1 });

        const latencies: number[] = [];
        const failures = new Map<string, number>();
        const ledgers = who.map(() => new ViewLedger());
        let polls = 0;
        let linesReceived = 0;
        const poll = async (i: number, cursor: string | null): Promise<string | null> => {
          const r = await pollLogs(url, { principal: who[i]!, cursor, tailLines: TAIL_LINES });
          polls++;
          latencies.push(r.ms);
          if (!r.ok) {
            const key = `${r.status}:${r.code}`;
            failures.set(key, (failures.get(key) ?? 0) + 1);
            return cursor;
          }
          linesReceived += feed(ledgers[i]!, r.page);
          return r.page.cursor ?? cursor;
        };

        const cpu0 = process.cpuUsage();
        const started = Date.now();
        const end = started + seconds * 1000;
        const maxPolls = Math.ceil((seconds * 1000) / intervalMs) + 10;
        const appends = appendContinuously(appender, {
          everyMs: APPEND_EVERY_MS,
          sizes: BATCH_SIZES,
          maxBatches: Math.ceil((seconds * 1000) / APPEND_EVERY_MS) + 10,
          running: () => appending && Date.now() < end,
        });
        const cursors: (string | null)[] = who.map(() => null);
        const follow = async (i: number) => {
          // Staggered starts spread the views over one interval, as independent users would be.
          await sleep(Math.floor((i * intervalMs) / VIEWS));
          for (let k = 0; k < maxPolls && Date.now() < end; k++) {
            cursors[i] = await poll(i, cursors[i]!);
            await sleep(intervalMs);
          }
        };
        await Promise.all(who.map((_, i) => follow(i)));
        appending = false;
        await appends;
        const elapsedS = (Date.now() - started) / 1000;
        // Drain: every appended line is now at least one poll old; fetch the rest.
        for (let d = 0; d < DRAIN_POLLS; d++) {
          await Promise.all(who.map(async (_, i) => (cursors[i] = await poll(i, cursors[i]!))));
        }
        const cpu = process.cpuUsage(cpu0);

        const audit = totalAudits(ledgers.map((l) => l.audit((s) => appender.timeOf(s), appender.last)));
        const errors = [...failures.values()].reduce((a, b) => a + b, 0);
        return {
          bench: `P7 sustained ${VIEWS} views ${seconds}s`,
          polls,
          errors,
          ...(errors > 0 ? { error_codes: Object.fromEntries(failures) } : {}),
          ...(serverStatus.size > 0 ? { server_status: Object.fromEntries(serverStatus) } : {}),
          lines_appended: appender.last,
          lines_delivered: audit.delivered,
          lines_received: linesReceived,
          duplicates: audit.duplicates,
          reordered: audit.reordered,
          lost: audit.lost,
          lost_in_gap: audit.lostInGap,
          lost_without_gap: audit.lostWithoutGap,
          pending_at_end: audit.pending,
          gaps: audit.gaps,
          p50_ms: round(median(latencies)),
          p99_ms: round(percentile(latencies, 99)),
          max_ms: round(maximum(latencies)),
          polls_per_s: round(polls / elapsedS, 1),
          cpu_ms_per_poll: round((cpu.user + cpu.system) / 1000 / polls),
          views: VIEWS,
          interval_ms: intervalMs,
          seconds,
          load_avg_1m: round(load),
          pass: errors === 0 && audit.duplicates === 0 && audit.reordered === 0 && audit.lostWithoutGap === 0,
        };
      } finally {
        appending = false;
        await stack.close();
      }
    },
  );
}
