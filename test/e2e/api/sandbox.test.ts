/**
 * The sandbox source over HTTP on the local stack: the stack starts the OpenShell simulator (mTLS
 * with a CA made at start), writes the gateway's connection document and Registry item and names
 * it in stack.json; the logs route reads it through the real gRPC client. Covered: status lists
 * the source (and NOT_CONFIGURED without a sandbox), a denied connection with its fields, secrets
 * masked in messages and fields, NOT_FOUND → 404, a follow across an append without duplicates,
 * `buffer_lost` after the ring overflows, `stream_replaced` after a replacement, the download,
 * and the admin API's guard on the sandbox routes. The simulator is driven over its admin API.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamo, localDynamoOptions } from "../../../lib/state/dynamo.ts";
import { LOCAL_TABLE_NAMES } from "../../../local/stack/dynamo.ts";
import { type LocalStack, startLocalStack } from "../../../local/stack/index.ts";
import {
  DENIED_SSH_FIELDS,
  deniedPasteLine,
  deniedSshLine,
  PROXY_TARGET,
  sandboxRef,
  withSandbox,
} from "../../support/sandbox.ts";
import { simAdmin } from "../../support/sim-admin.ts";
import { canaries, client, LOGS, NS, scenario } from "./support.ts";

const SANDBOX = "support-d2";
const GATEWAY = "os1";
const secrets = canaries().secrets;

/** The API suite's scenario, on the wall clock, with a sandbox on d2 and a missing one on d1. */
function sandboxScenario() {
  // A bucket large enough that the limiter never answers here (limits.test.ts covers it).
  const s = scenario(["INFO gateway up"], { limits: { burst: 200, ratePerSecond: 50 } }) as ReturnType<
    typeof scenario
  > &
    Record<string, unknown>;
  s.clock = "wall";
  const [d1] = s.registry.agents[0]!.deployments as Record<string, unknown>[];
  d1!.sandbox = sandboxRef(GATEWAY, "ghost");
  return withSandbox(s, {
    agent: "support",
    deployment: "d2",
    gateway: GATEWAY,
    name: SANDBOX,
    id: "sbx-7f3a",
    lines: [
      ["now-60s", "INFO", "openshell_sandbox::policy", "policy loaded", { policy: "support-egress" }],
      [
        "now-50s",
        "INFO",
        PROXY_TARGET,
        "CONNECT api.github.com:443",
        { action: "allow", dst_host: "api.github.com" },
      ],
      deniedSshLine("now-40s"),
      [
        "now-30s",
        "INFO",
        PROXY_TARGET,
        `CONNECT api.openai.com:443 with key ${secrets.openai}`,
        { action: "allow", api_key: secrets.openai, note: `token ${secrets.github}` },
      ],
      ["now-20s", "OCSF", "openshell_sandbox::ocsf", '{"class_uid":4001,"disposition":"Blocked"}'],
      ["now-10s", "ERROR", "openshell_sandbox::supervisor", "policy reload failed: rule 13 invalid"],
    ],
  });
}

/** A stack on the sandbox scenario whose files (stack.json, connection documents) are under `workDir`. */
const startSandboxStack = (workDir: string) =>
  startLocalStack({ scenario: sandboxScenario(), port: 0, quiet: true, workDir });

/** Runs `fn` with a fresh temporary directory, removed afterwards whatever happens. */
async function inTempDir(prefix: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let root: string;
let stack: LocalStack;
let get: ReturnType<typeof client>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sandbox-e2e-"));
  stack = await startSandboxStack(root);
  get = client(stack);
}, 60_000);

afterAll(async () => {
  await stack?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A sandbox admin route, answered whatever its status (the guard's tests). */
const admin = (op: string, body: unknown, headers: Record<string, string> = {}) =>
  simAdmin(stack).post(`sandbox/${op}`, body, headers);

const append = (lines: unknown[]) =>
  simAdmin(stack).sandbox.append({ gateway: GATEWAY, sandbox: SANDBOX, lines });

type Rec = { type: string; message?: string; reason?: string; fields?: Record<string, string> };
const page = async (query: string) => {
  const r = await get(`${LOGS}?source=sandbox&${query}`);
  expect(r.status, r.text).toBe(200);
  return r.json.data as { records: Rec[]; cursor: string | null; stream: Record<string, unknown> };
};
const messages = (records: Rec[]) => records.filter((r) => r.type === "line").map((r) => r.message);

describe("the local stack with an openshell block", () => {
  it("starts the simulator over mTLS, writes the connection document, the Registry item and stack.json", async () => {
    const info = JSON.parse(readFileSync(stack.stackFile, "utf8"));
    expect(info.openshell).toEqual({ [GATEWAY]: expect.stringMatching(/^127\.0\.0\.1:[0-9]+$/) });
    const path = join(root, "openshell", `${GATEWAY}.json`);
    expect(stack.openshell.connections).toEqual({ [GATEWAY]: path });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(Object.keys(doc).sort()).toEqual(["caPem", "clientCertPem", "clientKeyPem", "endpoint"]);
    expect(doc.endpoint).toBe(info.openshell[GATEWAY]);
    const { client: raw, doc: ddb } = createDynamo(localDynamoOptions(stack.dynamodbEndpoint));
    try {
      const item = await ddb.send(
        new GetCommand({
          TableName: LOCAL_TABLE_NAMES.registry,
          Key: { pk: `OPENSHELL#${GATEWAY}`, sk: "META" },
        }),
      );
      expect(item.Item).toMatchObject({ connectionRef: `file:${path}`, displayName: GATEWAY });
    } finally {
      raw.destroy();
    }
  });

  it("lists the sandbox source in the status: available when configured, NOT_CONFIGURED otherwise", async () => {
    // Every call the simulator served, per gateway and method (Health included).
    const counts = () => stack.openshell.sim!.counts();
    const before = counts();
    expect(Object.keys(before)).toEqual([GATEWAY]);
    const status = await get(`/namespaces/${NS}/agents/support/deployments/d2/runtime`);
    expect(status.status).toBe(200);
    expect(status.json.data.sources.find((s: { id: string }) => s.id === "sandbox")).toEqual({
      id: "sandbox",
      kind: "sandbox",
      pods: [],
      available: true,
      retention: expect.any(String),
    });
    const vault = await get(`/namespaces/${NS}/agents/vault/deployments/v1/runtime`);
    expect(vault.json.data.sources.find((s: { id: string }) => s.id === "sandbox")).toMatchObject({
      available: false,
      unavailableCode: "NOT_CONFIGURED",
    });
    // The status route never calls OpenShell: no call of any kind on any gateway.
    expect(counts()).toEqual(before);
  });

  it("shows a denied connection with its decision fields, and masks secrets in messages and fields", async () => {
    const data = await page("tailLines=50");
    expect(data.stream).toEqual({
      source: "sandbox",
      gatewayId: GATEWAY,
      sandbox: SANDBOX,
      sandboxId: "sbx-7f3a",
    });
    const denied = data.records.find((r) => r.message === "CONNECT 203.0.113.9:22");
    expect(denied).toMatchObject({
      kind: "sandbox",
      level: "warn",
      origin: "sandbox",
      subsystem: PROXY_TARGET,
    });
    expect(denied?.fields).toEqual(DENIED_SSH_FIELDS);
    const keyed = data.records.find((r) => r.message?.startsWith("CONNECT api.openai.com"));
    expect(keyed?.message).toContain("[redacted:");
    expect(keyed?.fields?.api_key).toBe("[redacted:key-value]");
    expect(keyed?.fields?.note).toContain("[redacted:");
    expect(data.records.find((r) => r.message?.includes("class_uid"))).toMatchObject({
      level: "info",
      format: "ocsf",
    });
    expect(data.records.find((r) => r.message?.startsWith("policy reload failed"))).toMatchObject({
      level: "error",
    });
    const text = JSON.stringify(data);
    expect(text).not.toContain(secrets.openai);
    expect(text).not.toContain(secrets.github);
  });

  it("answers 404 RUNTIME_LOGS_SANDBOX_NOT_FOUND for a sandbox the gateway does not have", async () => {
    const r = await get(`/namespaces/${NS}/agents/support/deployments/d1/runtime/logs?source=sandbox`);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("RUNTIME_LOGS_SANDBOX_NOT_FOUND");
    expect(r.text).not.toContain("ghost");
  });

  it("follows with the cursor across an append: each new line once, then nothing", async () => {
    const first = await page("tailLines=50");
    await append([
      deniedPasteLine(),
      ["now", "INFO", PROXY_TARGET, "CONNECT pypi.org:443", { action: "allow", dst_host: "pypi.org" }],
    ]);
    const next = await page(`cursor=${encodeURIComponent(first.cursor!)}`);
    expect(messages(next.records)).toEqual(["CONNECT paste.example.net:443", "CONNECT pypi.org:443"]);
    const again = await page(`cursor=${encodeURIComponent(next.cursor!)}`);
    expect(again.records).toEqual([]);
  });

  it("a warm cursor poll makes one GetSandboxLogs call and no cluster call (counted)", async () => {
    const first = await page("tailLines=50");
    // Every call the simulators served: OpenShell's per method, the cluster's in all.
    const grpc = () => stack.openshell.sim!.counts()[GATEWAY]!;
    const cluster = () => stack.sim.stats().total.requests;
    const before = { grpc: grpc(), cluster: cluster() };
    const next = await page(`cursor=${encodeURIComponent(first.cursor!)}`);
    expect(next.cursor).toEqual(expect.any(String));
    expect(grpc()).toEqual({ health: before.grpc.health, getSandboxLogs: before.grpc.getSandboxLogs + 1 });
    expect(cluster()).toBe(before.cluster);
  });

  it("downloads <agent>-<deployment>-sandbox.log with its header line", async () => {
    const r = await get(`${LOGS}/download?source=sandbox`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="support-d2-sandbox.log"');
    const [header, ...body] = r.text.trimEnd().split("\n");
    expect(header).toMatch(
      /^# agent=support deployment=d2 source=sandbox gateway=os1 sandbox=support-d2 sandboxId=sbx-7f3a observedAt=\S+Z withheld=0$/,
    );
    expect(body.some((l) => l.includes("CONNECT 203.0.113.9:22") && l.includes("action=deny"))).toBe(true);
    expect(r.text).not.toContain(secrets.openai);
  });

  it("marks buffer_lost when more lines than the ring holds arrive between two polls", async () => {
    const first = await page("tailLines=5");
    // 2000 is the ring's capacity: 2100 new lines push every line of the frontier out.
    const flood = Array.from({ length: 2100 }, (_, i) => ["now", "INFO", PROXY_TARGET, `flood ${i}`]);
    await append(flood);
    const next = await page(`cursor=${encodeURIComponent(first.cursor!)}`);
    expect(next.records[0]).toMatchObject({ type: "gap", reason: "buffer_lost" });
    const shown = messages(next.records);
    expect(shown[0]).toBe("flood 100");
    expect(new Set(shown).size).toBe(shown.length);
  });

  it("marks stream_replaced after the sandbox is replaced, and reads the new instance", async () => {
    const first = await page("tailLines=5");
    await simAdmin(stack).sandbox.replace({ gateway: GATEWAY, sandbox: SANDBOX, newId: "sbx-9c01" });
    await append([
      ["now", "INFO", "openshell_sandbox::policy", "policy loaded", { policy: "support-egress" }],
    ]);
    const next = await page(`cursor=${encodeURIComponent(first.cursor!)}`);
    expect(next.records.map((r) => r.type)).toEqual(["gap", "line"]);
    expect(next.records[0]).toMatchObject({ reason: "stream_replaced" });
    expect(next.stream).toMatchObject({ sandboxId: "sbx-9c01" });
  });
});

describe("the sandbox admin routes", () => {
  it("refuse a body that is not JSON and a foreign Origin, like the kube admin API", async () => {
    const body = { gateway: GATEWAY, sandbox: SANDBOX, lines: [] };
    for (const op of ["append", "replace", "fault"]) {
      const plain = await admin(op, body, { "content-type": "text/plain" });
      expect(plain.status, op).toBe(415);
      const form = await admin(op, body, { "content-type": "application/x-www-form-urlencoded" });
      expect(form.status, op).toBe(415);
      const foreign = await admin(op, {}, { origin: "https://evil.example" });
      expect(foreign.status, op).toBe(403);
    }
    // A loopback page may drive it (the console's own origin); a wrong name is a 404 with a reason.
    const local = await admin(
      "append",
      { gateway: GATEWAY, sandbox: SANDBOX, lines: [] },
      { origin: "http://127.0.0.1:3000" },
    );
    expect(local).toEqual({ status: 200, json: { ok: true, appended: 0, bufferTotal: expect.any(Number) } });
    expect((await admin("append", { gateway: "nope", sandbox: SANDBOX, lines: [] })).status).toBe(404);
    expect((await admin("rewind", { gateway: GATEWAY })).status).toBe(404);
  });

  it("a fault makes reads fail with the mapped code, and clears", async () => {
    expect((await admin("fault", { gateway: GATEWAY, code: "UNAVAILABLE" })).status).toBe(200);
    const failed = await get(`${LOGS}?source=sandbox`);
    expect([failed.status, failed.json.error.code]).toEqual([503, "RUNTIME_LOGS_UNAVAILABLE"]);
    expect(failed.text).not.toContain("simulated");
    expect((await admin("fault", { gateway: GATEWAY, code: null })).status).toBe(200);
    expect((await get(`${LOGS}?source=sandbox`)).status).toBe(200);
  });
});

describe("a reloaded scenario", () => {
  it("replaces the gateways (ports, documents, Registry, stack.json), and one without them stops the simulator", async () => {
    await inTempDir("sandbox-reload-", async (dir) => {
      const other = await startSandboxStack(dir);
      try {
        const read = client(other);
        const before = other.openshell.endpoints[GATEWAY];
        // The same gateway under a new name, with a token: the stack follows the admin API's reload.
        const next = sandboxScenario();
        const [gw] = next.openshell as { id: string; auth?: string }[];
        gw!.id = "os2";
        gw!.auth = "token";
        for (const d of next.registry.agents[0]!.deployments as { sandbox?: { endpointRef: string } }[])
          if (d.sandbox) d.sandbox.endpointRef = "os2";
        await simAdmin(other).scenario(next);
        const info = JSON.parse(readFileSync(other.stackFile, "utf8"));
        expect(Object.keys(info.openshell)).toEqual(["os2"]);
        expect(info.openshell.os2).not.toBe(before);
        expect(existsSync(join(dir, "openshell", `${GATEWAY}.json`))).toBe(false);
        const doc = JSON.parse(readFileSync(join(dir, "openshell", "os2.json"), "utf8"));
        expect(Object.keys(doc).sort()).toEqual(["caPem", "endpoint", "token"]);
        const page = await read(`${LOGS}?source=sandbox`);
        expect(page.status, page.text).toBe(200);
        expect(page.json.data.stream).toMatchObject({ gatewayId: "os2", sandboxId: "sbx-7f3a" });

        const { openshell: _gone, ...plain } = sandboxScenario();
        for (const d of plain.registry.agents[0]!.deployments as { sandbox?: unknown }[]) delete d.sandbox;
        await other.reloadScenario(plain);
        expect(other.openshell.sim).toBeUndefined();
        expect(JSON.parse(readFileSync(other.stackFile, "utf8")).openshell).toBeUndefined();
        const admin404 = await simAdmin(other).post("sandbox/append", {
          gateway: "os2",
          sandbox: SANDBOX,
          lines: [],
        });
        expect(admin404.status).toBe(404);
        const status = await read(`/namespaces/${NS}/agents/support/deployments/d2/runtime`);
        expect(status.json.data.sources.find((s: { id: string }) => s.id === "sandbox")).toMatchObject({
          available: false,
          unavailableCode: "NOT_CONFIGURED",
        });
      } finally {
        await other.close();
      }
    });
  });
});

describe("closing the stack", () => {
  it("stops the simulator and removes the connection documents", async () => {
    await inTempDir("sandbox-close-", async (dir) => {
      const other = await startSandboxStack(dir);
      const endpoint = other.openshell.endpoints[GATEWAY]!;
      const path = other.openshell.connections[GATEWAY]!;
      expect(existsSync(path)).toBe(true);
      await other.close();
      expect(existsSync(path)).toBe(false);
      const { createConnection } = await import("node:net");
      const refused = await new Promise<boolean>((resolve) => {
        const [host, port] = endpoint.split(":");
        const socket = createConnection({ host: host!, port: Number(port) });
        socket.once("connect", () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("error", () => resolve(true));
      });
      expect(refused).toBe(true);
    });
  });
});
