/**
 * The real `occ` program, in-process, against a fake API over HTTP: outputs, deployment selection,
 * errors and exit codes, downloads.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
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
  runtimeData,
} from "./harness.ts";

const api = fakeApiSuite();
beforeEach(() => {
  api.routes.set(base(), () => ok(deploymentsData));
  api.routes.set(`${base("d4")}/runtime`, () => ok(runtimeData("d4", 0)));
  api.routes.set(`${base("d3")}/runtime`, () => ok(runtimeData("d3")));
});

const paths = () => api.requests.map((r) => r.path + (r.query.size > 0 ? `?${r.query}` : ""));

describe("deployments", () => {
  it("lists them as a table, or the data as JSON", async () => {
    const text = await occ(api, ["agent", "deployments", "support"]);
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n")[2]).toMatch(/^d3\s+3\s+2026-11-28T11:00:00.000Z\s+yes$/);
    const json = await occ(api, ["agent", "deployments", "support", "-o", "json"]);
    expect(JSON.parse(json.stdout)).toEqual(deploymentsData);
    expect(json.stdout.trim().split("\n")).toHaveLength(1);
  });
});

describe("deployment auto-selection", () => {
  it("uses the active one when the newer one has no Pods", async () => {
    const r = await occ(api, ["agent", "runtime", "support"]);
    expect(r.code).toBe(0);
    expect(paths()).toEqual([base(), `${base("d4")}/runtime`, `${base("d3")}/runtime`]);
    expect(r.stdout).toContain("Deployment d3");
    expect(r.stderr).toBe("");
  });

  it("reads the active one, and names a newer one that runs the source with its --deployment", async () => {
    api.routes.set(`${base("d4")}/runtime`, () => ok(runtimeData("d4", 1)));
    api.routes.set(`${base("d3")}/runtime/logs`, () => ok(page([line("from d3")])));
    const r = await occ(api, ["agent", "logs", "support", "--source", "gateway"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "occ: reading the active deployment d3; the newer deployment d4 has a running gateway (pass --deployment d4 to read it)\n",
    );
    expect(r.stdout).toContain("from d3");
    expect(paths().at(-1)).toMatch(new RegExp(`^${base("d3")}/runtime/logs\\?`));
  });

  it("says nothing about a newer deployment whose source is not running", async () => {
    api.routes.set(`${base("d4")}/runtime`, () => ok(runtimeData("d4", 1)));
    api.routes.set(`${base("d3")}/runtime/logs`, () => ok(page([line("x")], { source: "agent" })));
    const r = await occ(api, ["agent", "logs", "support", "--source", "agent"]);
    expect(r.stderr).toBe("");
  });

  it("stops with exit 1 when no deployment is active, unless --deployment is given", async () => {
    api.routes.set(base(), () => ok(deploymentsData.map((d) => ({ ...d, active: false }))));
    const r = await occ(api, ["agent", "logs", "support", "--source", "gateway"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "occ: agent support has no active deployment; pass --deployment (newest first: d4, d3, d2)\n",
    );
    expect(paths()).toEqual([base()]);
    api.routes.set(`${base("d4")}/runtime/logs`, () => ok(page([line("x")])));
    const given = await occ(api, ["agent", "logs", "support", "--source", "gateway", "--deployment", "d4"]);
    expect(given.code).toBe(0);
  });

  it("goes on with the active one when a newer one cannot be checked", async () => {
    api.routes.set(`${base("d4")}/runtime`, () =>
      fail(403, "FORBIDDEN", "You are not allowed to perform this action."),
    );
    const r = await occ(api, ["agent", "restarts", "support"]);
    expect(r.code).toBe(0);
    expect(paths().at(-1)).toBe(`${base("d3")}/runtime`);
  });

  it("says why a container never started, names a deployment that runs one, and exits 3", async () => {
    const waiting = runtimeData("d3");
    const pod = (waiting.pods as { containers: Record<string, unknown>[] }[])[0]!;
    pod.containers[0] = {
      ...pod.containers[0],
      state: "waiting",
      reason: "ContainerCreating",
      restartCount: 0,
      startedAt: null,
      lastTermination: null,
    };
    api.routes.set(base(), () => ok(deploymentsData.map((d) => ({ ...d, active: d.deploymentId === "d4" }))));
    api.routes.set(`${base("d4")}/runtime`, () => ok({ ...waiting, deploymentId: "d4" }));
    api.routes.set(`${base("d3")}/runtime`, () => ok(runtimeData("d3")));
    api.routes.set(`${base("d4")}/runtime/logs`, () => ok(page([], { cursor: null })));
    const r = await occ(api, ["agent", "logs", "support", "--source", "gateway"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      [
        "occ: the gateway container gateway of Pod gw-0 (deployment d4) has not started: ContainerCreating",
        "occ: deployment d3 has a running gateway container (pass --deployment d3)",
        "",
      ].join("\n"),
    );
    expect(r.stdout).toBe("");
  });

  it("skips selection when --deployment is given", async () => {
    await occ(api, ["agent", "runtime", "support", "--deployment", "d3"]);
    expect(paths()).toEqual([`${base("d3")}/runtime`]);
  });

  it("fails when the agent has no deployments", async () => {
    api.routes.set(base(), () => ok([]));
    const r = await occ(api, ["agent", "runtime", "support"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no deployments");
  });
});

describe("runtime", () => {
  it("prints the data verbatim with -o json", async () => {
    api.routes.set(`${base("d3")}/runtime`, () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"data": {"deploymentId":"d3", "pods":[], "n": 1.50, "evil":"\u202e"}, "meta":{"requestId":"req_1"}}',
    }));
    const r = await occ(api, ["agent", "runtime", "support", "--deployment", "d3", "-o", "json"]);
    expect(r.stdout).toBe('{"deploymentId":"d3","pods":[],"n":1.50,"evil":"\\u202e"}\n');
  });
});

describe("logs", () => {
  const L = ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway"];

  it("prints lines on stdout and exits 0 for a complete page", async () => {
    api.routes.set(`${base("d3")}/runtime/logs`, () =>
      ok(
        page([
          line("first", { subsystem: "ws", fields: { b: "x y", a: 1 } }),
          line("second", { level: "error" }),
        ]),
      ),
    );
    const r = await occ(api, L);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '2026-11-29T11:59:58.123Z INFO  [ws] first a=1 b="x y"',
        "2026-11-29T11:59:58.123Z ERROR second",
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe("");
  });

  it("sends the query the flags ask for", async () => {
    api.routes.set(`${base("d3")}/runtime/logs`, () => ok(page([])));
    await occ(api, [
      ...L,
      "--pod",
      "gw-0",
      "--previous",
      "--tail",
      "50",
      "--level",
      "warn",
      "--since-time",
      "2026-11-29T11:00:00Z",
    ]);
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({
      source: "gateway",
      pod: "gw-0",
      previous: "true",
      tailLines: "50",
      sinceTime: "2026-11-29T11:00:00Z",
      minLevel: "warn",
    });
  });

  it("puts gaps and withheld counts on stderr and exits 3", async () => {
    api.routes.set(`${base("d3")}/runtime/logs`, () =>
      ok(
        page(
          [
            {
              type: "gap",
              time: "2026-11-29T11:59:00Z",
              reason: "stream_replaced",
              remedy: "Read the previous instance with previous=true.",
            },
            line("after"),
            { type: "withheld", time: null, count: 2, reason: "unrecognised_structured" },
          ],
          { withheld: 2 },
        ),
      ),
    );
    const r = await occ(api, L);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain("after");
    expect(r.stdout).not.toContain("stream_replaced");
    expect(r.stderr).toContain(
      "occ: gap at 2026-11-29T11:59:00.000Z (stream_replaced): Read the previous instance with previous=true.",
    );
    expect(r.stderr).toContain("occ: withheld 2 lines (unrecognised_structured)");
  });

  it("says when there is no running Pod, exit 3 in text mode and 0 in JSON", async () => {
    api.routes.set(`${base("d3")}/runtime/logs`, () => ok(page([], { stream: null, cursor: null })));
    const text = await occ(api, L);
    expect(text.code).toBe(3);
    expect(text.stderr).toContain("no running Pod for source gateway");
    const json = await occ(api, [...L, "-o", "json"]);
    expect(json.code).toBe(0);
    expect(json.stdout).toBe("");
  });

  it("prints NDJSON with gaps and withheld records, compact and faithful", async () => {
    const body =
      '{"data":{"deploymentId":"d3","source":"gateway","stream":null,"records":[\n' +
      '  {"type":"gap","time":null,"reason":"cursor_expired","remedy":"r"},\n' +
      '  {"type":"line","time":"T","kind":"structured","level":"info","message":"m\\u001b[2J","fields":{"durationMs":12.50}},\n' +
      '  {"type":"withheld","time":null,"count":3,"reason":"oversized"}\n' +
      '],"withheld":3,"truncated":false,"cursor":"c"},"meta":{"requestId":"req_x"}}';
    api.routes.set(`${base("d3")}/runtime/logs`, () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body,
    }));
    const r = await occ(api, [...L, "-o", "json"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      '{"type":"gap","time":null,"reason":"cursor_expired","remedy":"r"}',
      '{"type":"line","time":"T","kind":"structured","level":"info","message":"m\\u001b[2J","fields":{"durationMs":12.50}}',
      '{"type":"withheld","time":null,"count":3,"reason":"oversized"}',
    ]);
  });

  it("escapes hostile text, invalid bytes and lone surrogates", async () => {
    const head = Buffer.from(
      '{"data":{"source":"gateway","stream":{},"records":[{"type":"line","time":"T","kind":"text","level":"info","message":"bidi\\u202e zw\\u200b esc\\u001b[31m nl\\n del\\u007f c1\\u0085 lone\\ud800 bad',
    );
    const tail = Buffer.from('"}],"withheld":0,"truncated":false,"cursor":"c"},"meta":{"requestId":"r"}}');
    api.routes.set(`${base("d3")}/runtime/logs`, () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: Buffer.concat([head, Buffer.from([0xff, 0xfe]), tail]),
    }));
    const r = await occ(api, L);
    expect(r.stdout).toBe(
      "T INFO  bidi\\u{202E} zw\\u{200B} esc\\x1B[31m nl\\x0A del\\x7F c1\\u{85} lone\\u{D800} bad\\xFF\\xFE\n",
    );
  });

  it("reports a failed request with status, code, message, Retry-After and request ID (exit 1)", async () => {
    api.routes.set(`${base("d3")}/runtime/logs`, () =>
      fail(429, "RUNTIME_LOGS_RATE_LIMITED", "Too many requests. Retry after the indicated delay.", {
        "retry-after": "7",
        "x-request-id": "req_err",
      }),
    );
    const r = await occ(api, L);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "HTTP 429 RUNTIME_LOGS_RATE_LIMITED: Too many requests. Retry after the indicated delay.\nRetry-After: 7s\nRequest ID: req_err\n",
    );
    expect(r.stdout).toBe("");
  });

  it("lists contract details and survives a body that is not an envelope", async () => {
    api.routes.set(`${base("d3")}/runtime/logs`, () => ({
      status: 400,
      body: {
        error: {
          code: "INVALID_REQUEST",
          message: "The request is outside the API contract.",
          details: [{ path: "query.tailLines", code: "invalid_value" }],
        },
        meta: { requestId: "req_d" },
      },
    }));
    const r = await occ(api, L);
    expect(r.stderr).toContain(
      "HTTP 400 INVALID_REQUEST: The request is outside the API contract.\n  query.tailLines: invalid_value\nRequest ID: req_d",
    );
    api.routes.set(`${base("d3")}/runtime/logs`, () => ({
      status: 502,
      body: "<html>bad gateway</html>",
      headers: { "x-request-id": "req_h" },
    }));
    const r2 = await occ(api, L);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain("HTTP 502: the server sent no error message\nRequest ID: req_h");
  });

  it("exits 1 with a clear message when the API cannot be reached", async () => {
    const r = await occ("http://127.0.0.1:59998", L);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("occ: cannot reach http://127.0.0.1:59998: ECONNREFUSED\n");
  });
});

describe("download", () => {
  const L = ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway"];
  const body = "# agent=support deployment=d3 source=gateway pod=gw-0\n- INFO text hello\n";

  beforeEach(() => {
    api.routes.set(`${base("d3")}/runtime/logs/download`, () => ({
      status: 200,
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "content-disposition": 'attachment; filename="support-d3-gateway-gw-0.log"',
      },
      body,
    }));
  });

  it("saves under the server's name in the current directory, never overwriting", async () => {
    const r = await occ(api, [...L, "--download", "--level", "warn"]);
    expect(r.code).toBe(0);
    const saved = join(r.cwd, "support-d3-gateway-gw-0.log");
    expect(r.stdout).toBe(`${saved}\n`);
    expect(readText(saved)).toBe(body);
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({ source: "gateway", minLevel: "warn" });
    const again = await occ(api, [...L, "--download"], { cwd: r.cwd });
    expect(again.stdout).toBe(`${join(r.cwd, "support-d3-gateway-gw-0-1.log")}\n`);
    expect(readText(saved)).toBe(body);
  });

  it("saves to FILE when given, and reports JSON with -o json", async () => {
    const r0 = await occ(api, ["agent", "deployments", "support"]);
    writeFileSync(join(r0.cwd, "out.log"), "old");
    const r = await occ(api, [...L, "--download=out.log", "-o", "json"], { cwd: r0.cwd });
    expect(JSON.parse(r.stdout)).toEqual({
      path: join(r0.cwd, "out.log"),
      bytes: Buffer.byteLength(body),
      requestId: null,
    });
    expect(readText(join(r0.cwd, "out.log"))).toBe(body);
  });

  it("sanitizes a hostile file name to a safe basename", async () => {
    api.routes.set(`${base("d3")}/runtime/logs/download`, () => ({
      status: 200,
      headers: {
        "content-type": "text/plain",
        "content-disposition": 'attachment; filename="../../.bashrc x\u00e9.log"',
      },
      body,
    }));
    const r = await occ(api, [...L, "--download"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${join(r.cwd, "_bashrc_x_.log")}\n`);
    expect(existsSync(join(r.cwd, "_bashrc_x_.log"))).toBe(true);
  });

  it("saves nothing unless the answer is a 200 text/plain", async () => {
    api.routes.set(`${base("d3")}/runtime/logs/download`, () => ok({ not: "text" }));
    const r = await occ(api, [...L, "--download"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not text/plain");
    api.routes.set(`${base("d3")}/runtime/logs/download`, () =>
      fail(403, "FORBIDDEN", "You are not allowed to perform this action."),
    );
    const r2 = await occ(api, [...L, "--download"], { cwd: r.cwd });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain("HTTP 403 FORBIDDEN");
    expect(existsSync(join(r.cwd, "support-d3-gateway-gw-0.log"))).toBe(false);
  });
});

describe("restarts", () => {
  const record = {
    restartId: "01J",
    pod: "gw-0",
    container: "gateway",
    scope: "container-restart",
    previous: {
      pod: "gw-0",
      podUid: "u",
      container: "gateway",
      restartCount: 0,
      startedAt: null,
      finishedAt: "2026-11-29T11:00:00Z",
      pid: 7,
    },
    next: {
      pod: "gw-0",
      podUid: "u",
      container: "gateway",
      restartCount: 1,
      startedAt: "2026-11-29T11:00:02Z",
      finishedAt: null,
      pid: 8,
    },
    termination: { exitCode: 0, signal: null, reason: "Completed", message: null },
    trigger: { category: "operator-restart", source: "slash-command", confidence: "confirmed" },
    actor: {
      kind: "human-operator",
      actorRef: "hmac-sha256:v1:k:ab",
      sessionRef: "hmac-sha256:v1:k:cd",
      channel: null,
    },
    evidence: { phases: ["dispatch", "completed"], eventReasons: [], restartedAtAnnotation: false },
    detectedAt: "2026-11-29T11:01:00Z",
    detectedBy: "status-read",
  };
  beforeEach(() => {
    api.routes.set(`${base("d3")}/runtime`, () => ok({ ...runtimeData("d3"), restarts: [record] }));
  });

  it("tables, JSON and three-phase lines", async () => {
    const args = ["agent", "restarts", "support", "--deployment", "d3"];
    const text = await occ(api, args);
    expect(text.stdout).toMatch(
      /2026-11-29T11:00:00.000Z\s+gw-0\s+gateway\s+container-restart\s+operator-restart\s+confirmed\s+human-operator\s+Completed exit=0/,
    );
    const json = await occ(api, [...args, "-o", "json"]);
    expect(JSON.parse(json.stdout)).toEqual([record]);
    const log = await occ(api, [...args, "-o", "log"]);
    expect(log.stdout.trimEnd().split("\n")).toEqual([
      "2026-11-29T11:00:00.000Z gateway restart-dispatch source=slash-command sender_id=hmac-sha256:v1:k:ab session_key=hmac-sha256:v1:k:cd old_pid=7 pod=gw-0 container=gateway",
      "2026-11-29T11:00:02.000Z gateway restart-completed signal=boot source=slash-command sender_id=hmac-sha256:v1:k:ab session_key=hmac-sha256:v1:k:cd old_pid=7 new_pid=8 pod=gw-0 container=gateway",
    ]);
  });
});
