/**
 * The R2 model: random schedules of appends, restarts, replacements and polls against a model log,
 * and the checker that the delivered records embed into it (see exactly-once.test.ts).
 */
import {
  buildLogPage,
  type CursorState,
  isIdleRead,
  type LogRecord,
  planLogRead,
  verifyCursor,
} from "../../../lib/runtime-logs/index.ts";
import { BINDING, chunkOf, type Entry, IDENTITY, KEYS, ModelLog, prng, T0 } from "./harness.ts";

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon"];
/** Lines written after the schedule, one at a time, each of which must reach the follower… */
const FOLLOWER_MARKERS = 3;
/** …within this many polls 40 s apart. */
export const FOLLOWER_POLLS = 4;

export interface Outcome {
  records: LogRecord[];
  global: Array<{ log: ModelLog; entry: Entry }>;
  polls: number;
  /** Clock-step probes performed, node clock steps (back, forward) and far-future lines written. */
  probes: number;
  steps: { back: number; forward: number; future: number };
  /** After the schedule, lines appended one by one reached the view within FOLLOWER_POLLS polls. */
  followerSaw: boolean;
  /** The poll (0-based) each record was delivered by. */
  recordPolls: number[];
  /** The first poll whose read or probe returned each entry (absent: no read ever returned it). */
  seenAt: Map<Entry, number>;
}

/** Options of a schedule: `hostileClocks` adds node clock steps and far-future lines (R11). */
export interface ScheduleOptions {
  hostileClocks?: boolean;
  /** Which hostile-clock events to draw (all by default). */
  clockEvents?: Array<"back" | "forward" | "future">;
}

/** Run one random schedule; returns everything delivered and the model it came from. */
export function runSchedule(
  seed: number,
  trace?: (msg: string) => void,
  options: ScheduleOptions = {},
): Outcome {
  const r = prng(seed);
  // `ns` is real time (the service's clock); the node writes times with its own clock, `offset` off.
  let ns = BigInt(T0) * 1_000_000n;
  let offset = 0n;
  const steps = { back: 0, forward: 0, future: 0 };
  let probes = 0;
  const hostile = options.hostileClocks === true;
  let uidCounter = 0;
  let log = new ModelLog(`uid-${uidCounter}`, 0);
  const logs: ModelLog[] = [log];
  const records: LogRecord[] = [];
  const recordPolls: number[] = [];
  const seenAt = new Map<Entry, number>();
  const saw = (l: ModelLog, opts: ReadOptions, text: string): void => {
    for (const e of returnedEntries(l, opts, text)) if (!seenAt.has(e)) seenAt.set(e, polls);
  };
  let token: string | null = null;
  let viewTail = [3, 5, 10, 50, 200][r.int(5)]!;
  let polls = 0;
  const text = (): string => `${WORDS[r.int(WORDS.length)]} ${r.int(4)}`;
  /** One poll at the current time; `quiet` keeps the model from restarting the container mid-read. */
  const poll = (quiet: boolean): LogRecord[] => {
    const now = Number(ns / 1_000_000n);
    let state: CursorState | null = null;
    let expired = false;
    if (token !== null) {
      const v = verifyCursor(token, { binding: BINDING, keys: KEYS, now });
      if (v.status === "expired") expired = true;
      else state = v.state;
    }
    if (state === null) viewTail = [3, 5, 10, 50, 200][r.int(5)]!;
    const plan = planLogRead({
      cursor: state,
      pod: "gateway-0",
      podUid: log.uid,
      restartCount: log.restartCount,
      previous: false,
      tailLines: viewTail,
      now,
    });
    const limitBytes = hostile ? 1_048_576 : [200, 600, 2_000, 1_048_576][r.int(4)]!;
    const read = log.read({ ...plan, limitBytes, nowNs: ns + offset });
    saw(log, plan, read.text);
    // Sometimes the container restarts while the log is read: the re-read sees it.
    let after: ModelLog = log;
    if (!quiet && r.next() < 0.04) {
      after = new ModelLog(log.uid, log.restartCount + 1);
      ns += 1_000_000n;
    }
    const chunk = chunkOf(log, read, limitBytes, after);
    // The fourth call of an idle poll: the last lines without sinceTime.
    let probe = null;
    if (plan.probe && isIdleRead(chunk, state, now)) {
      probes++;
      const probed = log.read({ ...plan.probe, nowNs: ns + offset });
      saw(log, plan.probe, probed.text);
      probe = chunkOf(log, probed, plan.probe.limitBytes, after);
    }
    const out = buildLogPage({
      chunk,
      probe,
      cursor: state,
      expired,
      view: { binding: BINDING, tailLines: viewTail, source: "gateway" },
      deploymentId: BINDING.deploymentId,
      requestId: "req_00000000-0000-4000-8000-000000000000",
      now,
      keys: { cursor: KEYS, identity: IDENTITY },
      namespaceId: BINDING.namespaceId,
      maxBytes: [4_000, 6_000, 20_000, 524_288][r.int(4)]!,
    });
    trace?.(
      `poll now=${new Date(now).toISOString()} plan=${JSON.stringify(plan)} tail=${viewTail} limit=${limitBytes} stream=${log.uid}/${log.restartCount} truncated=${read.truncated} probed=${probe !== null}\n  chunk=${JSON.stringify(read.text)}\n  state=${JSON.stringify(state)}\n  records=${JSON.stringify(out.page.records.map((x) => (x.type === "line" ? `${x.time} ${x.message}` : x.type === "gap" ? `GAP ${x.reason}` : `W${x.count}`)))}`,
    );
    records.push(...out.page.records);
    for (const _ of out.page.records) recordPolls.push(polls);
    token = out.cursor;
    polls++;
    if (after !== log) {
      log = after;
      logs.push(log);
    }
    return out.page.records;
  };
  const total = 10 + r.int(40);
  for (let step = 0; step < total; step++) {
    const roll = r.next();
    if (roll < 0.4) {
      const n = 1 + r.int(12);
      for (let i = 0; i < n; i++) {
        const dt = r.next();
        if (dt < 0.5) ns += BigInt(r.int(400_000_000));
        else if (dt < 0.6) ns += BigInt(1 + r.int(1000));
        else if (dt < 0.9) ns += 0n;
        else ns += BigInt(1 + r.int(4)) * 1_000_000_000n;
        log.append(ns + offset, text(), r.next() < 0.05, offset < 0n);
      }
    } else if (roll < 0.47) {
      // A group larger than 16 at one timestamp, often of identical lines.
      ns += BigInt(1 + r.int(1_000_000_000));
      const same = text();
      const n = 17 + r.int(24);
      for (let i = 0; i < n; i++) log.append(ns + offset, r.next() < 0.7 ? same : text(), false, offset < 0n);
    } else if (hostile && roll < 0.58) {
      // The node's clock steps back or forward by seconds to minutes while lines keep arriving, or
      // one line carries a far-future time.
      const events = options.clockEvents ?? ["back", "forward", "future"];
      const pick = events[r.int(events.length)]!;
      const step = (): bigint =>
        BigInt(r.next() < 0.5 ? 1_000 + r.int(29_000) : 30_000 + r.int(570_000)) * 1_000_000n;
      if (pick === "back") {
        offset -= step();
        steps.back++;
      } else if (pick === "forward") {
        offset += step();
        steps.forward++;
      } else {
        ns += BigInt(1 + r.int(1_000_000_000));
        log.append(ns + offset + BigInt(1 + r.int(365)) * 86_400_000_000_000n, text());
        steps.future++;
      }
    } else if (roll < (hostile ? 0.63 : 0.52)) {
      ns += BigInt(1 + r.int(2_000_000_000));
      log =
        r.next() < 0.5 ? new ModelLog(log.uid, log.restartCount + 1) : new ModelLog(`uid-${++uidCounter}`, 0);
      logs.push(log);
    } else {
      // Poll, a little after the newest line, sometimes much later (cursor expiry).
      const late = r.next();
      ns +=
        late < 0.03
          ? 2n * 3_600_000_000_000n
          : hostile && late < 0.15
            ? BigInt(30_000 + r.int(60_000)) * 1_000_000n
            : BigInt(r.int(5_000_000_000));
      poll(false);
    }
  }
  // A follower never goes blind: once the clock settles (no more steps), each line written reaches
  // the view within a bounded number of polls, one after another.
  let followerSaw = true;
  for (let m = 0; m < FOLLOWER_MARKERS && token !== null && followerSaw; m++) {
    const marker = `follower marker ${seed}/${m}`;
    ns += 1_000_000n;
    log.append(ns + offset, marker, false, offset < 0n);
    followerSaw = false;
    // A page cut by its byte budget says "more right away": it does not count toward the bound.
    for (let i = 0, guard = 0; i < FOLLOWER_POLLS && !followerSaw && guard < 200; guard++) {
      ns += 40_000_000_000n;
      const got = poll(true);
      if (got.some((x) => x.type === "line" && x.message.endsWith(marker))) followerSaw = true;
      if (!got.some((x) => x.type === "gap" && x.reason === "truncated")) i++;
    }
  }
  return {
    records,
    global: logs.flatMap((l) => l.entries.map((entry) => ({ log: l, entry }))),
    polls,
    probes,
    steps,
    followerSaw,
    recordPolls,
    seenAt,
  };
}

interface ReadOptions {
  tailLines: number;
  sinceTime?: string;
}

/**
 * The entries a kubelet read returned whole: tailLines, then sinceTime, then as many as the body
 * holds complete lines (the byte cut keeps the first ones).
 */
function returnedEntries(log: ModelLog, opts: ReadOptions, text: string): Entry[] {
  let list = log.entries.slice(Math.max(0, log.entries.length - opts.tailLines));
  if (opts.sinceTime !== undefined) {
    const since = BigInt(Date.parse(opts.sinceTime)) * 1_000_000n;
    list = list.filter((e) => e.ns >= since);
  }
  let complete = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) complete++;
  return list.slice(0, complete);
}

/**
 * Whether the delivered records embed into the model: the set of model positions consistent with
 * what was delivered so far; a line advances by one matching line, a gap lets it skip ahead.
 *
 * `unobservable` (hostile clocks) lets the view pass over a line without a gap only where no pipeline
 * could have seen it: no read or probe of any poll up to the one delivering the record returned it
 * (a node clock step back dated it before every sinceTime, and a later line was read before an idle
 * poll's probe could find it; such a poll's inputs are the same as if the line did not exist). Each
 * position carries the fewest such lines passed over to reach it; `passed` receives the total.
 */
export function check(
  o: Pick<Outcome, "records" | "global"> & Partial<Pick<Outcome, "recordPolls" | "seenAt">>,
  options: { unobservable?: boolean; passed?: { lines: number } } = {},
): string | null {
  const n = o.global.length;
  const NONE = Number.MAX_SAFE_INTEGER;
  // The first poll that returned each position's line (-1: never passed over without a gap).
  const seen = o.global.map(({ entry }) =>
    options.unobservable === true && o.seenAt !== undefined
      ? (o.seenAt.get(entry) ?? Number.POSITIVE_INFINITY)
      : -1,
  );
  let cur = new Array<number>(n + 1).fill(0); // a view may start anywhere (its tail)
  for (let k = 0; k < o.records.length; k++) {
    const rec = o.records[k]!;
    const poll = o.recordPolls?.[k] ?? 0;
    for (let p = 0; p < n; p++)
      if (seen[p]! > poll && cur[p]! < NONE) cur[p + 1] = Math.min(cur[p + 1]!, cur[p]! + 1);
    const next = new Array<number>(n + 1).fill(NONE);
    if (rec.type === "gap" && rec.reason === "cursor_expired") {
      // A new view: it starts over from its own tail, so any position is possible again.
      next.fill(Math.min(...cur));
    } else if (rec.type === "gap") {
      let best = NONE;
      for (let p = 0; p <= n; p++) {
        best = Math.min(best, cur[p]!);
        next[p] = best;
      }
    } else if (rec.type === "withheld") {
      for (let p = 0; p + rec.count <= n; p++) next[p + rec.count] = cur[p]!;
    } else {
      for (let p = 0; p < n; p++) {
        if (cur[p] === NONE) continue;
        const g = o.global[p]!;
        const want = g.log.expected(g.entry);
        if (want.time === rec.time && want.message === rec.message) next[p + 1] = cur[p]!;
      }
    }
    if (next.every((c) => c === NONE)) {
      return `record ${k} ${JSON.stringify(rec)} cannot follow what was delivered (duplicate or unreported loss)`;
    }
    cur = next;
  }
  if (options.passed !== undefined) options.passed.lines += Math.min(NONE, ...cur);
  return null;
}
