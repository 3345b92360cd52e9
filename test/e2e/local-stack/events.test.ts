/**
 * Every sample in events/ stays valid: the HTTP samples are exactly what the local API Gateway
 * builds for their request and name IDs of the demo scenario that `alice` may read; each sample
 * runs through the `npm run invoke` code path against a local stack serving the demo scenario
 * and gets the status it is meant to show. One goes through the real `npm run invoke` command.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeReport } from "../../../lib/probe/report.ts";
import { parseScenario } from "../../../local/scenario/schema.ts";
import { buildHttpApiEvent, type HttpApiEvent } from "../../../local/stack/http-api-event.ts";
import { DEFAULT_SCENARIO, type LocalStack, REPO_ROOT, startLocalStack } from "../../../local/stack/index.ts";
import { invokeAgainstLocalStack } from "../../../local/stack/invoke.ts";
import { matchRoute } from "../../../local/stack/routes.ts";

const EVENTS_DIR = join(REPO_ROOT, "events");
const HTTP_SAMPLES = {
  "status.json": { fn: "status", status: 200 },
  "deployments.json": { fn: "status", status: 200 },
  "logs.json": { fn: "logs", status: 200 },
  "logs-previous.json": { fn: "logs", status: 200 },
  "logs-sandbox.json": { fn: "logs", status: 200 },
  "download.json": { fn: "download", status: 200 },
} as const;

const readEvent = (name: string) => JSON.parse(readFileSync(join(EVENTS_DIR, name), "utf8"));

let root: string;
let stack: LocalStack;
let stackFile: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "events-test-"));
  stack = await startLocalStack({ port: 0, quiet: true, workDir: root });
  stackFile = stack.stackFile;
});

afterAll(async () => {
  await stack?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("sample events", () => {
  it("are exactly the files this test knows", () => {
    expect(readdirSync(EVENTS_DIR).sort()).toEqual(
      [...Object.keys(HTTP_SAMPLES), "health-probe.json"].sort(),
    );
  });

  it.each(Object.keys(HTTP_SAMPLES))(
    "%s is the event the local API Gateway builds for its request",
    (name) => {
      const event = readEvent(name) as HttpApiEvent;
      const route = matchRoute(event.requestContext.http.method, event.rawPath);
      expect(route).not.toBeNull();
      const rawHeaders = Object.entries(event.headers).flatMap(([k, v]) =>
        k.startsWith("x-forwarded-") || k === "x-amzn-trace-id" ? [] : [k, v as string],
      );
      const rebuilt = buildHttpApiEvent(
        {
          method: "GET",
          target: event.rawQueryString ? `${event.rawPath}?${event.rawQueryString}` : event.rawPath,
          rawHeaders,
          sourceIp: event.requestContext.http.sourceIp,
          protocol: event.requestContext.http.protocol,
        },
        {
          route: route!,
          requestId: event.requestContext.requestId,
          now: new Date(event.requestContext.timeEpoch),
        },
      );
      expect(event).toEqual(rebuilt);
      expect(event.requestContext).toMatchObject({
        authorizer: { jwt: { claims: { iss: "local", sub: "alice" } } },
      });
    },
  );

  it("name an Agent and deployment of the demo scenario that alice is granted", () => {
    const demo = parseScenario(JSON.parse(readFileSync(DEFAULT_SCENARIO, "utf8")), new Date());
    for (const name of Object.keys(HTTP_SAMPLES)) {
      const { pathParameters: p } = readEvent(name) as HttpApiEvent;
      const agent = demo.registry.agents.find(
        (a) => a.namespaceId === p?.namespaceId && a.agentId === p?.agentId,
      );
      expect(agent, name).toBeDefined();
      if (p?.deploymentId)
        expect(
          agent?.deployments.map((d) => d.deploymentId),
          name,
        ).toContain(p.deploymentId);
      const grant = demo.registry.grants.find(
        (g) =>
          g.principalId === "alice" &&
          g.namespaceId === p?.namespaceId &&
          ["*", p?.agentId].includes(g.agentId),
      );
      expect(grant, name).toBeDefined();
    }
  });

  it("health-probe.json is an EventBridge Scheduler event", () => {
    expect(readEvent("health-probe.json")).toMatchObject({
      version: "0",
      "detail-type": "Scheduled Event",
      source: "aws.scheduler",
      resources: [expect.stringMatching(/^arn:aws:scheduler:/)],
    });
  });
});

describe("npm run invoke with the samples, against a running local stack", () => {
  it.each(Object.entries(HTTP_SAMPLES))("%s → %s", async (name, expected) => {
    const outcome = await invokeAgainstLocalStack({ fn: expected.fn, event: readEvent(name), stackFile });
    expect(outcome.stack).toBe("running");
    expect(outcome.apiUrl).toBe(stack.apiUrl);
    const result = outcome.result as { statusCode: number; headers: Record<string, string>; body: string };
    expect(result.statusCode, result.body).toBe(expected.status);
    expect(result.headers["x-request-id"]).toMatch(/^req_/);
    if (expected.fn === "download") {
      expect(result.headers["content-disposition"]).toMatch(/^attachment; filename="support-d2-gateway-/);
      expect(result.body.startsWith("# agent=support deployment=d2 source=gateway")).toBe(true);
    } else {
      expect(JSON.parse(result.body)).toHaveProperty("data");
    }
    if (name === "logs-previous.json") {
      expect(JSON.parse(result.body).data.stream).toMatchObject({ previous: true });
    }
    if (name === "logs-sandbox.json") {
      const data = JSON.parse(result.body).data;
      expect(data.stream).toEqual({
        source: "sandbox",
        gatewayId: "os1",
        sandbox: "support-d2",
        sandboxId: "sbx-7f3a",
      });
      expect(data.records.some((r: { fields?: { action?: string } }) => r.fields?.action === "deny")).toBe(
        true,
      );
    }
  });

  it("health-probe.json → a probe report whose stores check passes", async () => {
    const outcome = await invokeAgainstLocalStack({
      fn: "health-probe",
      event: readEvent("health-probe.json"),
      stackFile,
    });
    expect(outcome.result).toMatchObject({
      report: "runtime-logs.health-probe",
      status: expect.stringMatching(/^(ok|degraded|failed)$/),
      checks: { stores: { status: "ok" } },
    });
    // The demo's OpenShell gateway answers Health over mTLS.
    expect((outcome.result as ProbeReport).checks.gateways.gateways).toEqual([
      expect.objectContaining({ gatewayId: "os1", status: "ok", auth: "mtls", version: expect.any(String) }),
    ]);
  });

  it("the npm run invoke command prints the handler's result as JSON on stdout", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs"),
        join(REPO_ROOT, "local/invoke.ts"),
        "status",
        join(EVENTS_DIR, "deployments.json"),
        "--stack-file",
        stackFile,
      ],
      { cwd: REPO_ROOT },
    );
    const result = JSON.parse(stdout) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    const deployments = JSON.parse(result.body).data as { deploymentId: string; active: boolean }[];
    expect(deployments.map((d) => d.deploymentId)).toEqual(["d3", "d2", "d1"]);
    expect(deployments.find((d) => d.active)?.deploymentId).toBe("d2");
  }, 90_000);
});
