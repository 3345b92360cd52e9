/**
 * `occ` end to end: spawned processes against the local stack (real handlers, dynalite, the kube
 * API simulator) over HTTP, with this folder's scenario.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliContainer, occSuite } from "../../support/occ-suite.ts";
import { RAW_HAZARD, runOcc, startOcc } from "./spawn.ts";

const POD = cliContainer("shop-gateway-0", "gateway");

const suite = occSuite();

describe("occ against the local stack", { timeout: 120_000 }, () => {
  it("lists deployments as a table and as JSON", async () => {
    const text = await runOcc(["agent", "deployments", "next"], suite.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^DEPLOYMENT\s+REVISION\s+CREATED\s+ACTIVE$/m);
    expect(text.stdout).toMatch(/^n1\s+1\s+\S+\s+yes$/m);
    const json = await runOcc(["agent", "deployments", "next", "-o", "json"], suite.env);
    expect(json.code).toBe(0);
    const ids = (JSON.parse(json.stdout) as { deploymentId: string; active: boolean }[]).map((d) => [
      d.deploymentId,
      d.active,
    ]);
    expect(ids).toEqual([
      ["n2", false],
      ["n1", true],
    ]);
  });

  it("shows the runtime: Pods, sources, Events; -o json is the data", async () => {
    const text = await runOcc(["agent", "runtime", "shop"], suite.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /gateway\s+shop-gateway-0\s+control\s+Running\s+gateway\s+yes\s+running\s+1\s+Completed exit=0/,
    );
    expect(text.stdout).toMatch(/shop-gateway-0\s+Normal\s+Killing\s+gateway\s+1\s/);
    expect(text.stdout).toMatch(/agent\s+container\s+no \(NO_POD\)/);
    const json = await runOcc(["agent", "runtime", "shop", "-o", "json"], suite.env);
    const data = JSON.parse(json.stdout) as { deploymentId: string; pods: { name: string }[] };
    expect(data.deploymentId).toBe("d1");
    expect(data.pods.map((p) => p.name)).toEqual(["shop-gateway-0"]);
  });

  it("reads the active deployment, naming a newer one that runs the source", async () => {
    const r = await runOcc(["agent", "logs", "next", "--source", "gateway"], suite.env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "occ: reading the active deployment n1; the newer deployment n2 has a running gateway (pass --deployment n2 to read it)\n",
    );
    expect(r.stdout).toContain("n1 up");
    const runtime = await runOcc(["agent", "runtime", "next"], suite.env);
    expect(runtime.stdout).toContain("Deployment n1");
  });

  it("reads the active deployment when a newer one cannot be checked (no operate)", async () => {
    const r = await runOcc(["agent", "logs", "next", "--source", "gateway"], suite.as("dave"));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("n1 up");
  });

  it("prints log lines redacted and escaped, with no raw identifier", async () => {
    const r = await runOcc(["agent", "logs", "shop", "--source", "gateway"], suite.env);
    // One time format, the level once, no kind column.
    expect(r.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}channel telegram connected$/m);
    expect(r.stdout).toMatch(/Z ERROR upstream failed: Authorization: \[redacted/);
    expect(r.stdout).not.toMatch(/\b(text|structured|wrapper)\b {2,}/);
    expect(r.stdout).not.toContain("sk-live-0123456789abcdef0123");
    expect(r.stdout).not.toContain("U0RAWSENDER42");
    expect(r.stdout).toContain(
      "hostile \\u{202E}evil\\u{202C} zero\\u{200B}width \\u{2066}iso\\u{2069} bom\\u{FEFF} done",
    );
    expect(RAW_HAZARD.test(r.stdout + r.stderr)).toBe(false);
    expect([0, 3]).toContain(r.code);
    if (r.code === 3) expect(r.stderr).toMatch(/occ: (gap|withheld)/);
  });

  it("filters by level and reads the previous instance", async () => {
    const errors = await runOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--level", "error"],
      suite.env,
    );
    expect(errors.stdout).toContain("upstream failed");
    expect(errors.stdout).not.toContain("channel telegram connected");
    const previous = await runOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--previous", "--tail", "10"],
      suite.env,
    );
    expect(previous.stdout).toContain("gateway starting");
    expect(previous.stdout).not.toContain("channel telegram connected");
  });

  it("prints NDJSON: one compact record per line, escaped", async () => {
    const r = await runOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--since", "1h", "-o", "json"],
      suite.env,
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const records = lines.map((l) => JSON.parse(l) as { type: string; message?: string });
    expect(records.every((rec) => ["line", "gap", "withheld"].includes(rec.type))).toBe(true);
    expect(lines.every((l) => !l.includes(" ") || l.includes('"'))).toBe(true);
    // The service shows invisible characters as visible escapes; the record carries that text.
    expect(records.some((rec) => rec.message?.includes("hostile \\u{202E}evil"))).toBe(true);
    expect(RAW_HAZARD.test(r.stdout)).toBe(false);
  });

  it("exits 3 with a notice when the source has no running Pod", async () => {
    const r = await runOcc(["agent", "logs", "shop", "--source", "agent"], suite.env);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no running Pod for source agent");
  });

  it("exits 1 with status, code, message and request ID when the request is refused", async () => {
    const r = await runOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--deployment", "d1"],
      suite.as("bob"),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^HTTP 403 FORBIDDEN: You are not allowed to perform this action\.\nhint: this needs the read_logs and read permissions on the agent\nRequest ID: req_[0-9a-f-]+\n$/,
    );
    const unknown = await runOcc(["agent", "runtime", "shop", "--deployment", "zz"], suite.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("HTTP 404 NOT_FOUND");
  });

  it("exits 2 on usage errors", async () => {
    const r = await runOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--previous", "--follow"],
      suite.env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--previous cannot be followed");
    const help = await runOcc(["agent", "logs", "--help"], suite.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
  });

  it("downloads under the server's file name", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "occ-e2e-"));
    const r = await runOcc(["agent", "logs", "shop", "--source", "gateway", "--download"], suite.env, cwd);
    expect(r.stderr).toMatch(/^occ: saved \d+ bytes\n$/);
    expect(r.code).toBe(0);
    const files = readdirSync(cwd);
    expect(files).toEqual(["shop-d1-gateway-shop-gateway-0.log"]);
    expect(r.stdout).toBe(`${join(cwd, files[0]!)}\n`);
    const body = readFileSync(join(cwd, files[0]!), "utf8");
    expect(body.startsWith("# agent=shop deployment=d1 source=gateway pod=shop-gateway-0")).toBe(true);
    expect(body).toContain("channel telegram connected");
    expect(body).not.toContain("sk-live-0123456789abcdef0123");
  });

  it("lists restarts, and -o log prints the phases with pseudonyms", async () => {
    const table = await runOcc(["agent", "restarts", "shop"], suite.env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^TIME\s+POD\s+CONTAINER\s+SCOPE\s+CATEGORY\s+CONFIDENCE\s+ACTOR\s+EXIT\/SIGNAL\/REASON$/m,
    );
    expect(table.stdout).toMatch(
      /shop-gateway-0\s+gateway\s+container-restart\s+operator-restart\s+confirmed\s+human-operator/,
    );
    const log = await runOcc(["agent", "restarts", "shop", "-o", "log"], suite.env);
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(
      / gateway restart-dispatch source=cli sender_id=hmac:[0-9a-f]{8}… session_key=hmac:[0-9a-f]{8}… action=restart method=sigterm old_pid=7 /,
    );
    expect(log.stdout).toMatch(
      / gateway restart-signal-received signal=\S+ source=cli .* action=restart old_pid=7 /,
    );
    expect(log.stdout).toMatch(
      / gateway restart-completed signal=boot source=cli .* action=restart old_pid=7 new_pid=8 /,
    );
    for (const m of log.stdout.matchAll(/old_pid=(\d+) new_pid=(\d+)/g)) expect(m[1]).not.toBe(m[2]);
    expect(log.stdout + log.stderr).not.toContain("U0RAWSENDER42");
    expect(log.stdout + log.stderr).not.toContain("S0RAWSESSION");
    const json = await runOcc(["agent", "restarts", "shop", "-o", "json"], suite.env);
    expect((JSON.parse(json.stdout) as unknown[]).length).toBeGreaterThanOrEqual(1);
    expect(json.stdout).toMatch(/"actorRef":"hmac-sha256:v1:[^"]+:[0-9a-f]{64}"/);
  });

  it("recovers from a tampered cursor by starting one new view", async () => {
    const proxy = await tamperingProxy(suite.stack.apiUrl);
    try {
      const f = startOcc(["agent", "logs", "shop", "--source", "gateway", "--deployment", "d1", "--follow"], {
        ...suite.env,
        OCC_ENDPOINT: proxy.url,
      });
      await f.until(({ stderr }) => stderr.includes("rejected the cursor; starting a new view"));
      await f.until(() => proxy.seen.length >= 5);
      expect(f.stdout()).toContain("hostile");
      f.child.kill("SIGINT");
      expect(await f.exited).toBe(0);
      const cursors = proxy.seen.map((q) => q.has("cursor"));
      // first view, tampered poll (rejected), new view without a cursor, then polls with its cursor
      expect(cursors.slice(0, 4)).toEqual([false, true, false, true]);
      expect(proxy.seen.every((q) => !q.has("sinceSeconds") && !q.has("sinceTime"))).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it("follows across appends and a restart, then ends cleanly on SIGINT", async () => {
    const f = startOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--since", "10m", "--follow"],
      suite.env,
    );
    await f.until(({ stdout }) => stdout.includes("hostile"));
    expect(f.stdout()).not.toContain("channel telegram connected");
    suite.stack.sim.append({ ...POD, lines: [["now", "INFO appended-one"]] });
    await f.until(({ stdout }) => stdout.includes("appended-one"));
    suite.stack.sim.restart({ ...POD, exitCode: 137, reason: "OOMKilled", signal: 9 });
    suite.stack.sim.append({ ...POD, lines: [["now", "INFO after-restart"]] });
    await f.until(
      ({ stdout, stderr }) => stdout.includes("after-restart") && stderr.includes("stream_replaced"),
    );
    f.child.kill("SIGINT");
    expect(await f.exited).toBe(0);
    expect(f.stdout().split("appended-one").length - 1).toBe(1);
    expect(f.stdout().split("after-restart").length - 1).toBe(1);
    expect(RAW_HAZARD.test(f.stdout() + f.stderr())).toBe(false);
  });
});

interface Proxy {
  url: string;
  /** Queries of the log requests that passed through. */
  seen: URLSearchParams[];
  close: () => Promise<void>;
}

/** Forwards to the API, flipping one character of the MAC of the first cursor it sees. */
async function tamperingProxy(target: string): Promise<Proxy> {
  const seen: URLSearchParams[] = [];
  let tampered = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", target);
    if (url.pathname.endsWith("/runtime/logs")) {
      const cursor = url.searchParams.get("cursor");
      if (cursor !== null && !tampered) {
        tampered = true;
        const last = cursor.at(-1) === "A" ? "B" : "A";
        url.searchParams.set("cursor", cursor.slice(0, -1) + last);
      }
      seen.push(new URLSearchParams(url.searchParams));
    }
    const upstream = request(url, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
