/**
 * `occ agent logs` output options against a fake API, in-process with an injected clock and
 * sleeper: `--source all` (one page per stream, merged by time, prefixed in each stream's colour;
 * a follow with per-stream cursors and gaps), colours (TTY, NO_COLOR, FORCE_COLOR),
 * `--prefix`/`--no-prefix`, `--timestamps=false`, `-c` with an init container, and `--download`
 * in both spellings, waiting out Retry-After on 429 and backing off with jitter on 503 BUSY.
 */
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { mergeByTime } from "../../../cli/streams.ts";
import { renderTable } from "../../../cli/table.ts";
import { fractionalMillis } from "../../../lib/rfc3339.ts";
import {
  base,
  deploymentsData,
  fail,
  fakeApiSuite,
  line,
  occ,
  ok,
  page,
  readText,
  type SeenRequest,
} from "./harness.ts";

const api = fakeApiSuite();

const LOGS = `${base("d3")}/runtime/logs`;
const ALL = ["agent", "logs", "support", "--deployment", "d3", "--source", "all"];
const ESC = "\u001b[";

/** A deployment with a gateway Pod, an agent Pod (with an init container) and no sandbox. */
function runtime(): Record<string, unknown> {
  const pod = (role: string, name: string, containers: Record<string, unknown>[]) => ({
    role,
    cluster: "control",
    name,
    uid: `uid-${name}`,
    phase: "Running",
    ready: true,
    createdAt: "2026-11-29T10:00:00Z",
    containers,
    events: [],
  });
  const main = (name: string) => ({
    name,
    init: false,
    state: "running",
    reason: null,
    ready: true,
    restartCount: 0,
    startedAt: "2026-11-29T11:00:00Z",
    lastTermination: null,
  });
  return {
    deploymentId: "d3",
    observedAt: "2026-11-29T12:00:00Z",
    pods: [
      pod("gateway", "gw-0", [main("gateway")]),
      pod("agent", "ag-0", [
        { ...main("workspace-init"), init: true, state: "terminated", ready: false },
        main("agent"),
      ]),
    ],
    sources: [
      {
        id: "gateway",
        kind: "container",
        pods: [{ name: "gw-0", uid: "uid-gw-0", container: "gateway", restartCount: 0 }],
        available: true,
      },
      {
        id: "agent",
        kind: "container",
        pods: [{ name: "ag-0", uid: "uid-ag-0", container: "agent", restartCount: 0 }],
        available: true,
      },
      { id: "sandbox", kind: "sandbox", pods: [], available: false, unavailableCode: "NOT_IMPLEMENTED" },
    ],
    restarts: [],
  };
}

const at = (s: number) => `2026-11-29T11:59:${String(s).padStart(2, "0")}.000Z`;
const streamOf = (source: string, pod: string, container: string) => ({
  source,
  pod,
  podUid: `uid-${pod}`,
  container,
  restartCount: 0,
  previous: false,
});

/** Each stream's page, chosen by the query's source (and container). */
function streamPages(
  pick: (q: URLSearchParams, n: number) => Record<string, unknown>,
): (req: SeenRequest) => ReturnType<typeof ok> {
  const counts = new Map<string, number>();
  return (req) => {
    const key = `${req.query.get("source")}/${req.query.get("container") ?? ""}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return ok(pick(req.query, n));
  };
}

const gatewayPage = (records: unknown[], extra: Record<string, unknown> = {}) =>
  page(records, { stream: streamOf("gateway", "gw-0", "gateway"), ...extra });
const agentPage = (records: unknown[], extra: Record<string, unknown> = {}) =>
  page(records, { source: "agent", stream: streamOf("agent", "ag-0", "agent"), ...extra });

const logQueries = () => api.requests.filter((r) => r.path === LOGS).map((r) => Object.fromEntries(r.query));

beforeEach(() => {
  api.routes.set(base(), () => ok(deploymentsData));
  api.routes.set(`${base("d3")}/runtime`, () => ok(runtime()));
  api.routes.set(
    LOGS,
    streamPages((q) =>
      q.get("source") === "gateway"
        ? gatewayPage([line("gw one", { time: at(1) }), line("gw three", { time: at(3) })])
        : q.get("container") === "workspace-init"
          ? page([line("cloned the workspace", { time: at(0) })], {
              source: "agent",
              stream: streamOf("agent", "ag-0", "workspace-init"),
            })
          : agentPage([line("ag two", { time: at(2) }), line("ag four", { time: at(4) })]),
    ),
  );
});

describe("--source all without --follow", () => {
  it("reads one page per stream, merges by time, prefixes each line and skips unavailable sources", async () => {
    const r = await occ(api, ALL);
    expect(r.code).toBe(0);
    expect(logQueries()).toEqual([
      { source: "gateway", pod: "gw-0" },
      { source: "agent", pod: "ag-0" },
    ]);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      "gateway/gw-0/gateway 2026-11-29T11:59:01.000Z INFO  gw one",
      "agent/ag-0/agent 2026-11-29T11:59:02.000Z INFO  ag two",
      "gateway/gw-0/gateway 2026-11-29T11:59:03.000Z INFO  gw three",
      "agent/ag-0/agent 2026-11-29T11:59:04.000Z INFO  ag four",
    ]);
    expect(r.stderr).toBe("occ: skipping source sandbox: not available (NOT_IMPLEMENTED)\n");
    expect(r.sleeps).toEqual([]);
  });

  it("merges by the instant, sub-millisecond digits included, whatever the offset", () => {
    // The CLI's own merge key (cli/streams.ts); an untimed record goes out once at its list's head.
    const time = (t: string) => fractionalMillis(t) ?? undefined;
    const gateway = ["2026-11-29T11:59:58.123002Z", "2026-11-29T11:59:58.124Z"];
    const agent = ["2026-11-29T11:59:58.123001Z", "2026-11-29T13:59:58.1235+02:00", "not a time"];
    expect(mergeByTime([gateway, agent], time)).toEqual([
      agent[0],
      gateway[0],
      agent[1],
      agent[2],
      gateway[1],
    ]);
  });

  it("--no-prefix drops the prefixes of a merged view; -o json names each record's stream", async () => {
    const bare = await occ(api, [...ALL, "--no-prefix", "--timestamps=false"]);
    expect(bare.stdout.trimEnd().split("\n")).toEqual([
      "INFO  gw one",
      "INFO  ag two",
      "INFO  gw three",
      "INFO  ag four",
    ]);
    const json = await occ(api, [...ALL, "-o", "json"]);
    const streams = json.stdout
      .trimEnd()
      .split("\n")
      .map((l) => (JSON.parse(l) as { stream: { pod: string } }).stream.pod);
    expect(streams).toEqual(["gw-0", "ag-0", "gw-0", "ag-0"]);
  });
});

describe("colours", () => {
  const prefixColours = (stdout: string) =>
    stdout
      .trimEnd()
      .split("\n")
      .map((l) => /^\u001b\[(\d+)m(\S+?)\u001b\[39m /.exec(l)?.slice(1, 3).join(" "));

  it("paints each stream's prefix in its own colour on a terminal", async () => {
    const r = await occ(api, ALL, { tty: true });
    // cyan for the first stream, magenta for the second
    expect(prefixColours(r.stdout)).toEqual([
      "36 gateway/gw-0/gateway",
      "35 agent/ag-0/agent",
      "36 gateway/gw-0/gateway",
      "35 agent/ag-0/agent",
    ]);
    expect(r.stderr.startsWith(`${ESC}33mocc:${ESC}39m skipping source sandbox`)).toBe(true);
  });

  it("prints no colour off a terminal or with NO_COLOR; FORCE_COLOR turns it on anywhere", async () => {
    const piped = await occ(api, ALL, { tty: false });
    expect(piped.stdout + piped.stderr).not.toContain(ESC);
    const noColor = await occ(api, ALL, { tty: true, env: { NO_COLOR: "1" } });
    expect(noColor.stdout + noColor.stderr).not.toContain(ESC);
    const forced = await occ(api, ALL, { tty: false, env: { FORCE_COLOR: "1" } });
    expect(prefixColours(forced.stdout)[0]).toBe("36 gateway/gw-0/gateway");
    const forcedOff = await occ(api, ALL, { tty: true, env: { FORCE_COLOR: "0" } });
    expect(forcedOff.stdout).not.toContain(ESC);
  });
});

describe("one source's output options", () => {
  const ONE = ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway"];

  it("--prefix names the stream; --timestamps=false hides the time; --timestamps=maybe is a usage error", async () => {
    const plain = await occ(api, ONE);
    expect(plain.stdout.split("\n")[0]).toBe("2026-11-29T11:59:01.000Z INFO  gw one");
    const prefixed = await occ(api, [...ONE, "--prefix"]);
    expect(prefixed.stdout.split("\n")[0]).toBe("gateway/gw-0/gateway 2026-11-29T11:59:01.000Z INFO  gw one");
    const untimed = await occ(api, [...ONE, "--timestamps=false"]);
    expect(untimed.stdout.split("\n")[0]).toBe("INFO  gw one");
    const timed = await occ(api, [...ONE, "--timestamps=true"]);
    expect(timed.stdout).toBe(plain.stdout);
    api.requests.length = 0;
    const bad = await occ(api, [...ONE, "--timestamps=maybe"]);
    expect(bad.code).toBe(2);
    expect(api.requests).toEqual([]);
  });

  it("-c reads an init container and names it in the query", async () => {
    const r = await occ(api, [
      "agent",
      "logs",
      "support",
      "--deployment",
      "d3",
      "--source",
      "agent",
      "-c",
      "workspace-init",
      "--prefix",
    ]);
    expect(r.code).toBe(0);
    expect(logQueries()).toEqual([{ source: "agent", container: "workspace-init" }]);
    expect(r.stdout).toBe("agent/ag-0/workspace-init 2026-11-29T11:59:00.000Z INFO  cloned the workspace\n");
    const bad = await occ(api, [
      "agent",
      "logs",
      "support",
      "--source",
      "agent",
      "--container",
      "Not_A_Name",
    ]);
    expect(bad.code).toBe(2);
  });
});

describe("--source all --follow", () => {
  it("keeps one cursor per stream, reports each stream's gaps under its name, and stops cleanly", async () => {
    api.routes.set(
      LOGS,
      streamPages((q, n) =>
        q.get("source") === "gateway"
          ? gatewayPage(
              n === 2
                ? [
                    {
                      type: "gap",
                      time: at(10 + n),
                      reason: "stream_replaced",
                      remedy: "the container restarted; read --previous for the rest",
                    },
                    line(`gw poll ${n}`, { time: at(10 + n) }),
                  ]
                : [line(`gw poll ${n}`, { time: at(10 + n) })],
              { cursor: `g${n}` },
            )
          : agentPage([line(`ag poll ${n}`, { time: at(20 + n) })], { cursor: `a${n}` }),
      ),
    );
    const r = await occ(api, [...ALL, "--follow", "--tail", "5"], {
      onSleep: (i, fire) => {
        if (i === 2) fire("SIGINT");
      },
    });
    expect(r.code).toBe(0);
    const byStream = (source: string) =>
      logQueries()
        .filter((q) => q.source === source)
        .map((q) => q.cursor ?? "-");
    expect(byStream("gateway")).toEqual(["-", "g1", "g2"]);
    expect(byStream("agent")).toEqual(["-", "a1", "a2"]);
    expect(logQueries().every((q) => q.tailLines === "5")).toBe(true);
    expect(r.sleeps).toEqual([2000, 2000, 2000]);
    // Within each round, records are merged by time.
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      "gateway/gw-0/gateway 2026-11-29T11:59:11.000Z INFO  gw poll 1",
      "agent/ag-0/agent 2026-11-29T11:59:21.000Z INFO  ag poll 1",
      "gateway/gw-0/gateway 2026-11-29T11:59:12.000Z INFO  gw poll 2",
      "agent/ag-0/agent 2026-11-29T11:59:22.000Z INFO  ag poll 2",
      "gateway/gw-0/gateway 2026-11-29T11:59:13.000Z INFO  gw poll 3",
      "agent/ag-0/agent 2026-11-29T11:59:23.000Z INFO  ag poll 3",
    ]);
    const gaps = r.stderr.split("\n").filter((l) => l.includes("gap"));
    expect(gaps).toEqual([
      "occ: gateway/gw-0/gateway: gap at 2026-11-29T11:59:12.000Z (stream_replaced): the container restarted; read --previous for the rest",
    ]);
  });

  it("backs off a busy stream on its own while the other keeps polling", async () => {
    api.routes.set(LOGS, (req, n) => {
      if (req.query.get("source") === "agent" && req.query.get("cursor") === "a1")
        return fail(503, "RUNTIME_LOGS_BUSY", "Busy.", { "retry-after": "5" });
      return req.query.get("source") === "gateway"
        ? ok(gatewayPage([line(`gw ${n}`, { time: at(n % 60) })], { cursor: `g${n}` }))
        : ok(agentPage([line(`ag ${n}`, { time: at(n % 60) })], { cursor: "a1" }));
    });
    const r = await occ(api, [...ALL, "--follow"], {
      random: () => 0,
      onSleep: (i, fire) => {
        if (i === 3) fire("SIGINT");
      },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("occ: agent/ag-0/agent: the service is busy; retrying in 5s\n");
    const gatewayPolls = logQueries().filter((q) => q.source === "gateway").length;
    const agentPolls = logQueries().filter((q) => q.source === "agent").length;
    // The gateway polls every 2 s while the agent waits its 5 s out.
    expect(gatewayPolls).toBeGreaterThan(agentPolls);
  });
});

describe("--download", () => {
  const DL = `${LOGS}/download`;
  const L = ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway"];
  const body = "# agent=support deployment=d3 source=gateway pod=gw-0\n- INFO text hello\n";
  const saved = () => ({
    status: 200,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": 'attachment; filename="support-d3-gateway-gw-0.log"',
    },
    body,
  });

  it("takes FILE as the next word or after '='", async () => {
    api.routes.set(DL, saved);
    const spaced = await occ(api, [...L, "--download", "a.log"]);
    expect(spaced.code).toBe(0);
    expect(spaced.stdout).toBe(`${join(spaced.cwd, "a.log")}\n`);
    expect(readText(join(spaced.cwd, "a.log"))).toBe(body);
    const joined = await occ(api, [...L, "--download=b.log"]);
    expect(joined.stdout).toBe(`${join(joined.cwd, "b.log")}\n`);
    expect(readText(join(joined.cwd, "b.log"))).toBe(body);
  });

  it("waits out Retry-After on 429 and backs off with jitter on 503 BUSY, saying so once per kind", async () => {
    api.routes.set(DL, (_req, n) =>
      n === 1
        ? fail(429, "RUNTIME_LOGS_RATE_LIMITED", "Too many requests.", { "retry-after": "7" })
        : n === 2 || n === 3
          ? fail(503, "RUNTIME_LOGS_BUSY", "Busy.", { "retry-after": "3" })
          : saved(),
    );
    const r = await occ(api, [...L, "--download", "c.log"], { random: () => 0.5 });
    expect(r.code).toBe(0);
    // 429: Retry-After (7 s); BUSY: 3 s floor plus half of a spread that doubles (3 s, then 6 s).
    expect(r.sleeps).toEqual([7000, 3000 + 1500, 3000 + 3000]);
    expect(api.requests.filter((q) => q.path === DL)).toHaveLength(4);
    expect(r.stderr).toBe(
      [
        "occ: rate limited; retrying the download in 7s",
        "occ: the service is busy; retrying the download in 5s",
        `occ: saved ${Buffer.byteLength(body)} bytes`,
        "",
      ].join("\n"),
    );
    expect(readText(join(r.cwd, "c.log"))).toBe(body);
  });

  it("jitters each wait by the injected random source, never below Retry-After", async () => {
    for (const random of [0, 0.25, 0.999]) {
      api.reset();
      api.routes.set(DL, (_req, n) =>
        n === 1 ? fail(503, "RUNTIME_LOGS_BUSY", "Busy.", { "retry-after": "4" }) : saved(),
      );
      const r = await occ(api, [...L, "--download=d.log"], { random: () => random });
      expect(r.code).toBe(0);
      expect(r.sleeps).toEqual([4000 + Math.floor(random * 4000)]);
    }
  });

  it("gives up after five waits with the last answer (exit 1)", async () => {
    api.routes.set(DL, () => fail(503, "RUNTIME_LOGS_BUSY", "Busy.", { "retry-after": "1" }));
    const r = await occ(api, [...L, "--download", "e.log"], { random: () => 0 });
    expect(r.code).toBe(1);
    expect(r.sleeps).toHaveLength(5);
    expect(api.requests.filter((q) => q.path === DL)).toHaveLength(6);
    expect(r.stderr).toContain("HTTP 503 RUNTIME_LOGS_BUSY: Busy.\nRetry-After: 1s\n");
    // Retry-After is said once, not twice.
    expect(r.stderr.match(/retry.?after/gi) ?? []).toHaveLength(1);
  });
});

describe("tables", () => {
  it("pads by display width: CJK and emoji take two columns, combining marks none", () => {
    const rows = renderTable(
      ["NAME", "NOTE"],
      [
        ["日本語", "x"],
        ["👍ok", "y"],
        ["e\u0301e", "z"],
        ["abc", "w"],
      ],
    );
    expect(rows).toEqual(["NAME    NOTE", "日本語  x", "👍ok    y", "e\u0301e      z", "abc     w"]);
  });
});
