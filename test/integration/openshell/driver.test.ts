/**
 * The Connect client against the grpc-js simulator, over real TLS: mTLS, bearer token and
 * loopback plaintext; ring semantics through the wire; every gRPC code mapped to its contract code.
 */

import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRPC_CODES } from "../../../lib/openshell/errors.ts";
import { failure } from "../../support/failure.ts";
import { NOW, type ShellHarness, shellHarness } from "./fixtures.ts";

const lines = [
  [
    "now-3s",
    "INFO",
    "openshell_sandbox::proxy",
    "CONNECT api.github.com:443",
    { action: "allow", dst_port: "443" },
  ],
  ["now-2s", "WARN", "openshell_sandbox::proxy", "CONNECT evil.example:443", { action: "deny" }, "sandbox"],
  ["now-1s", "INFO", "openshell_server::sandbox", "sandbox ready", {}, "gateway"],
  ["now", "OCSF", "ocsf", '{"class_uid":4001}'],
];

let h: ShellHarness;
beforeAll(async () => {
  h = await shellHarness([
    { id: "mtls", sandboxes: [{ name: "sb", id: "sbx-1", lines }] },
    { id: "tok", auth: "token", token: "tok-secret-123", sandboxes: [{ name: "sb", id: "sbx-2", lines }] },
    { id: "plain", auth: "plaintext", sandboxes: [{ name: "sb", id: "sbx-3", capacity: 3, lines }] },
  ]);
});
afterAll(() => h?.close());

describe("SandboxDriver against the OpenShell simulator", () => {
  it.each(["mtls", "tok", "plain"])("reads a sandbox's ring over %s", async (gw) => {
    const chunk = await h.driver().readLogs(h.ref(gw), { lines: 2000, ...h.call() });
    const expected = gw === "plain" ? lines.slice(1) : lines;
    expect(chunk.lines.map((l) => l.message)).toEqual(expected.map((l) => l[3]));
    expect(chunk.bufferTotal).toBe(expected.length);
    expect(chunk.lines[0]!.timestampMs).toBe(NOW - (gw === "plain" ? 2000 : 3000));
    expect(new Set(chunk.lines.map((l) => l.sandboxId)).size).toBe(1);
    const gateway = chunk.lines.find((l) => l.message === "sandbox ready");
    expect(gateway?.origin).toBe("gateway");
    expect(chunk.lines.find((l) => l.message.startsWith("CONNECT evil"))?.fields).toEqual({ action: "deny" });
  });

  it("sends lines and since_ms, and resolves names and instance IDs", async () => {
    const d = h.driver();
    const tail = await d.readLogs(h.ref("mtls"), { lines: 2, ...h.call() });
    expect(tail.lines.map((l) => l.level)).toEqual(["INFO", "OCSF"]);
    const since = await d.readLogs(h.ref("mtls"), { lines: 2000, sinceMs: NOW - 2000, ...h.call() });
    expect(since.lines).toHaveLength(3);
    const byId = await d.readLogs(h.ref("mtls", "sbx-1"), { lines: 1, ...h.call() });
    expect(byId.lines).toHaveLength(1);
  });

  it("reports Health with latency, version and auth", async () => {
    for (const [gw, auth] of [
      ["mtls", "mtls"],
      ["tok", "token"],
      ["plain", "plaintext"],
    ] as const) {
      const health = await h.driver().health(gw, h.call());
      expect(health).toMatchObject({ gatewayId: gw, status: "healthy", version: "openshell-sim/1", auth });
      expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    }
  });

  it("maps a wrong token and a missing client certificate to RUNTIME_LOGS_CLUSTER_RBAC or UNAVAILABLE", async () => {
    const doc = h.sim.connectionDocument("tok");
    await writeFile(h.files.tok!, JSON.stringify({ ...doc, token: "wrong-token-0000" }));
    const rbac = await failure(h.driver().readLogs(h.ref("tok"), { lines: 10, ...h.call() }));
    expect(rbac.code).toBe("RUNTIME_LOGS_CLUSTER_RBAC");
    expect(rbac.status).toBe(503);
    await writeFile(h.files.tok!, JSON.stringify(doc));
    // The mTLS gateway refuses a TLS client without a certificate at the handshake.
    const mdoc = h.sim.connectionDocument("mtls");
    await writeFile(
      h.files.mtls!,
      JSON.stringify({ endpoint: mdoc.endpoint, caPem: mdoc.caPem, token: "x-token-1" }),
    );
    const refused = await failure(h.driver().readLogs(h.ref("mtls"), { lines: 10, ...h.call() }));
    expect(refused.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
    await writeFile(h.files.mtls!, JSON.stringify(mdoc));
  });

  it("refuses plaintext that is not allowed, and a server certificate from another CA", async () => {
    const doc = h.sim.connectionDocument("plain");
    await writeFile(h.files.plain!, JSON.stringify({ endpoint: doc.endpoint }));
    expect((await failure(h.driver().readLogs(h.ref("plain"), { lines: 1, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    await writeFile(h.files.plain!, JSON.stringify(doc));
    const mdoc = h.sim.connectionDocument("mtls");
    await writeFile(h.files.mtls!, JSON.stringify({ ...mdoc, caPem: undefined }));
    expect((await failure(h.driver().readLogs(h.ref("mtls"), { lines: 1, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    await writeFile(h.files.mtls!, JSON.stringify(mdoc));
  });

  it("answers NOT_FOUND for an unknown sandbox as 404 RUNTIME_LOGS_SANDBOX_NOT_FOUND", async () => {
    const e = await failure(h.driver().readLogs(h.ref("mtls", "nope"), { lines: 1, ...h.call() }));
    expect(e.code).toBe("RUNTIME_LOGS_SANDBOX_NOT_FOUND");
    expect(e.status).toBe(404);
    expect(e.message).not.toContain("sandbox not found");
  });

  it("maps every gRPC status code the server answers with", async () => {
    const expected = (name: string) =>
      name === "NOT_FOUND"
        ? "RUNTIME_LOGS_SANDBOX_NOT_FOUND"
        : name === "UNAUTHENTICATED" || name === "PERMISSION_DENIED"
          ? "RUNTIME_LOGS_CLUSTER_RBAC"
          : "RUNTIME_LOGS_UNAVAILABLE";
    for (const code of GRPC_CODES.filter((c) => c !== "OK")) {
      h.sim.setFault({ gateway: "plain", code });
      const e = await failure(h.driver().readLogs(h.ref("plain"), { lines: 1, ...h.call() }));
      expect([code, e.code]).toEqual([code, expected(code)]);
      expect(e.message).not.toContain("simulated");
    }
    h.sim.setFault({ gateway: "plain", code: null });
  });

  it("answers 503 when a call's own 5 s budget passes, and 504 when the request's deadline did", async () => {
    h.sim.setFault({ gateway: "plain", latencyMs: 300 });
    try {
      const own = await failure(
        h.driver({ callTimeoutMs: 50 }).readLogs(h.ref("plain"), { lines: 1, ...h.call() }),
      );
      expect(own.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
      const request = await failure(h.driver().readLogs(h.ref("plain"), { lines: 1, ...h.call(50) }));
      expect(request.code).toBe("RUNTIME_LOGS_TIMEOUT");
      const aborted = new AbortController();
      const pending = failure(
        h
          .driver()
          .readLogs(h.ref("plain"), { lines: 1, signal: aborted.signal, deadline: Date.now() + 10_000 }),
      );
      aborted.abort();
      expect((await pending).code).toBe("RUNTIME_LOGS_TIMEOUT");
    } finally {
      h.sim.setFault({ gateway: "plain", latencyMs: 0 });
    }
  });

  it("answers UNAVAILABLE for a gateway missing from the registry or unreachable", async () => {
    expect((await failure(h.driver().readLogs(h.ref("ghost"), { lines: 1, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    const doc = h.sim.connectionDocument("plain");
    await writeFile(h.files.plain!, JSON.stringify({ ...doc, endpoint: "http://127.0.0.1:1" }));
    expect((await failure(h.driver().readLogs(h.ref("plain"), { lines: 1, ...h.call() }))).code).toBe(
      "RUNTIME_LOGS_UNAVAILABLE",
    );
    await writeFile(h.files.plain!, JSON.stringify(doc));
  });
});
