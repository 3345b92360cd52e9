/**
 * Test double for the CLI's own logic: a real HTTP server (node:http) serving api.md-shaped
 * answers from a route table, counting requests, and an in-process runner of the real `occ`
 * program with captured output, an instant sleep and a signal trigger.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Deps } from "../../../cli/context.ts";
import { run } from "../../../cli/program.ts";

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** A value is sent as JSON; a string or buffer as is. */
  body?: unknown;
}

export type Route = (req: SeenRequest, n: number) => Reply | Promise<Reply>;

export interface FakeApi {
  url: string;
  requests: SeenRequest[];
  /** Routes by path (without query); a path without a route answers 404 NOT_FOUND. */
  routes: Map<string, Route>;
  /** Forgets requests, routes and per-path counts. */
  reset: () => void;
  close: () => Promise<void>;
}

export const NS = "acme";
export const AGENT = "support";
export const base = (deployment?: string) =>
  `/namespaces/${NS}/agents/${AGENT}/deployments${deployment === undefined ? "" : `/${deployment}`}`;

export function ok(data: unknown, requestId = "req_test"): Reply {
  return { status: 200, body: { data, meta: { requestId } }, headers: { "x-request-id": requestId } };
}

export function fail(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Reply {
  return { status, body: { error: { code, message }, meta: { requestId: "req_err" } }, headers };
}

/**
 * One fake API per test file: started before the file's tests, closed after them, and reset (no
 * requests, no routes) before each test. The object is filled in once `beforeAll` has run.
 */
export function fakeApiSuite(): FakeApi {
  const api = {} as FakeApi;
  beforeAll(async () => {
    Object.assign(api, await startFakeApi());
  });
  afterAll(() => api.close());
  beforeEach(() => api.reset());
  return api;
}

export async function startFakeApi(): Promise<FakeApi> {
  const requests: SeenRequest[] = [];
  const routes = new Map<string, Route>();
  const counts = new Map<string, number>();
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const seen: SeenRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    requests.push(seen);
    const n = (counts.get(url.pathname) ?? 0) + 1;
    counts.set(url.pathname, n);
    const route = routes.get(url.pathname);
    const reply =
      route === undefined
        ? fail(404, "NOT_FOUND", "The Agent or deployment does not exist.")
        : await route(seen, n);
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    let body: string | Buffer = "";
    if (typeof reply.body === "string" || Buffer.isBuffer(reply.body)) body = reply.body;
    else if (reply.body !== undefined) {
      body = JSON.stringify(reply.body);
      headers["content-type"] ??= "application/json";
    }
    res.writeHead(reply.status ?? 200, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    routes,
    reset: () => {
      requests.length = 0;
      routes.clear();
      counts.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  sleeps: number[];
  cwd: string;
  exitedNow: number | undefined;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Called before each sleep with its index; may fire the signal handler to stop a follow. */
  onSleep?: (index: number, signal: (sig: NodeJS.Signals) => void) => void;
  cwd?: string;
  now?: number;
  /** Poll interval of --follow (the real process uses 2000). */
  pollIntervalMs?: number;
  random?: () => number;
  /** Whether stdout and stderr are terminals. */
  tty?: boolean;
  credentials?: Deps["credentials"];
  /** Filled with a trigger for the CLI's signal handler, for tests that interrupt a request in flight. */
  control?: { fire?: (sig: NodeJS.Signals) => void };
}

/** Runs the real `occ` program in-process against `api`. */
export async function occ(
  api: FakeApi | string,
  argv: string[],
  options: RunOptions = {},
): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  const sleeps: number[] = [];
  let handler: ((sig: NodeJS.Signals) => void) | undefined;
  let exitedNow: number | undefined;
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), "occ-test-"));
  // A fake clock that moves only when the CLI sleeps: waits are exact and cost no wall time.
  let clock = options.now ?? Date.parse("2026-11-29T12:00:00Z");
  const deps: Deps = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {
      OCC_ENDPOINT: typeof api === "string" ? api : api.url,
      OCC_NAMESPACE: NS,
      OCC_TOKEN: "local:alice",
      ...options.env,
    },
    fetch: (input, init) => fetch(input, init),
    cwd,
    now: () => clock,
    random: options.random ?? (() => 0.5),
    pollIntervalMs: options.pollIntervalMs ?? 2000,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    credentials:
      options.credentials ??
      (async () => {
        throw new Error("no AWS credentials in this test");
      }),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
      options.onSleep?.(sleeps.length - 1, (sig) => handler?.(sig));
      await new Promise((r) => setImmediate(r));
    },
    onSignal: (h) => {
      handler = h;
      if (options.control !== undefined) options.control.fire = (sig) => handler?.(sig);
      return () => {
        handler = undefined;
      };
    },
    exitNow: (code) => {
      exitedNow = code;
    },
    writeFile: async (path, bytes, exclusive) => {
      writeFileSync(path, bytes, { flag: exclusive ? "wx" : "w" });
    },
  };
  const code = await run(argv, deps);
  return { code, stdout, stderr, sleeps, cwd, exitedNow };
}

export function readText(path: string): string {
  return readFileSync(path, "utf8");
}

export const deploymentsData = [
  { deploymentId: "d4", revision: 4, createdAt: "2026-11-29T11:00:00Z", active: false },
  { deploymentId: "d3", revision: 3, createdAt: "2026-11-28T11:00:00Z", active: true },
  { deploymentId: "d2", revision: 2, createdAt: "2026-11-27T11:00:00Z", active: false },
];

export function runtimeData(deploymentId: string, pods = 1): Record<string, unknown> {
  return {
    deploymentId,
    observedAt: "2026-11-29T12:00:00Z",
    pods: Array.from({ length: pods }, (_, i) => ({
      role: "gateway",
      cluster: "control",
      name: `gw-${i}`,
      uid: `uid-${i}`,
      phase: "Running",
      ready: true,
      createdAt: "2026-11-29T10:00:00Z",
      containers: [
        {
          name: "gateway",
          init: false,
          state: "running",
          reason: null,
          ready: true,
          restartCount: 2,
          startedAt: "2026-11-29T11:00:00Z",
          lastTermination: {
            reason: "OOMKilled",
            exitCode: 137,
            signal: null,
            finishedAt: "2026-11-29T10:59:59Z",
          },
        },
      ],
      events: [
        {
          type: "Warning",
          container: "gateway",
          reason: "BackOff",
          message: "Back-off restarting failed container",
          count: 3,
          lastObservedAt: "2026-11-29T10:59:00Z",
        },
      ],
    })),
    sources: [
      {
        id: "gateway",
        kind: "container",
        pods: [{ name: "gw-0", uid: "uid-0", container: "gateway", restartCount: 2 }],
        available: pods > 0,
        retention: "current and previous container instance",
      },
    ],
    restarts: [],
  };
}

export function page(records: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    deploymentId: "d3",
    source: "gateway",
    stream: {
      source: "gateway",
      pod: "gw-0",
      podUid: "uid-0",
      container: "gateway",
      restartCount: 0,
      previous: false,
    },
    observedAt: "2026-11-29T12:00:00Z",
    records,
    withheld: 0,
    truncated: false,
    cursor: "v1.abc.def",
    ...extra,
  };
}

export function line(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "line",
    time: "2026-11-29T11:59:58.123456789Z",
    kind: "text",
    level: "info",
    message,
    ...extra,
  };
}
