/**
 * The local API Gateway server over real HTTP, with an echo handler standing in for the functions:
 * what reaches a handler is exactly the v2 event the request should produce, and what the server
 * answers itself (404s, principals, favicon, console, readiness) is API Gateway-like.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsoleAssets } from "../../../local/stack/console-assets.ts";
import type { FunctionName, HandlerLoader, LambdaHandler } from "../../../local/stack/handlers.ts";
import { createApiServer } from "../../../local/stack/server.ts";
import { rawRequest } from "./helpers.ts";

const calls: { fn: FunctionName; event: Record<string, unknown>; remaining: number }[] = [];
let ready = true;
let server: Server;
let base: string;

const echoLoader: HandlerLoader = {
  exists: () => true,
  reset: () => {},
  async load(fn): Promise<LambdaHandler> {
    return async (event, context) => {
      calls.push({
        fn,
        event: event as Record<string, unknown>,
        remaining: context.getRemainingTimeInMillis(),
      });
      if ((event as { pathParameters?: { agentId?: string } }).pathParameters?.agentId === "boom") {
        throw new Error("boom");
      }
      return { statusCode: 201, headers: { "X-Echo": "yes" }, body: JSON.stringify(event), cookies: ["k=v"] };
    };
  },
};

beforeAll(async () => {
  server = createApiServer({
    handlers: echoLoader,
    consoleAssets: createConsoleAssets("/nonexistent-console-dir"),
    principals: () => ["alice", "bob"],
    isReady: () => ready,
    log: () => {},
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe("local API Gateway server", () => {
  it("turns a request into the v2 event and the structured result into the response", async () => {
    calls.length = 0;
    const res = await rawRequest(base, [
      "GET /namespaces/acme/agents/support/deployments/d3/runtime/logs?source=gateway&pod=a&pod=b&tailLines=5 HTTP/1.1",
      "Authorization: Bearer local:alice",
      "X-Multi: 1",
      "x-multi: 2",
      "User-Agent: test-agent/1.0",
      "Cookie: a=1; b=2",
    ]);
    expect(res.status).toBe(201);
    expect(res.headers["x-echo"]).toBe("yes");
    expect(res.headers["set-cookie"]).toBe("k=v");
    expect(res.headers["apigw-requestid"]).toMatch(/^[A-Za-z0-9+/]{15}=$/);
    expect(calls).toHaveLength(1);
    const { fn, event, remaining } = calls[0]!;
    expect(fn).toBe("logs");
    expect(remaining).toBeGreaterThan(11_000);
    expect(remaining).toBeLessThanOrEqual(12_000);
    expect(JSON.parse(res.body)).toEqual(event);
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: "GET /namespaces/{namespaceId}/agents/{agentId}/deployments/{deploymentId}/runtime/logs",
      rawPath: "/namespaces/acme/agents/support/deployments/d3/runtime/logs",
      rawQueryString: "source=gateway&pod=a&pod=b&tailLines=5",
      queryStringParameters: { source: "gateway", pod: "a,b", tailLines: "5" },
      pathParameters: { namespaceId: "acme", agentId: "support", deploymentId: "d3" },
      cookies: ["a=1", "b=2"],
      isBase64Encoded: false,
      requestContext: {
        authorizer: { jwt: { claims: { iss: "local", sub: "alice" }, scopes: null } },
        http: { method: "GET", protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "test-agent/1.0" },
        stage: "$default",
        requestId: res.headers["apigw-requestid"],
      },
    });
    const headers = event.headers as Record<string, string>;
    expect(headers["x-multi"]).toBe("1,2");
    expect(headers.authorization).toBe("Bearer local:alice");
    expect(Object.keys(headers).every((h) => h === h.toLowerCase())).toBe(true);
    expect(headers).not.toHaveProperty("cookie");
  });

  it("sends no authorizer context without a local token", async () => {
    calls.length = 0;
    await rawRequest(base, [
      "GET /namespaces/acme/agents/support/deployments HTTP/1.1",
      "Authorization: Bearer eyJ.x.y",
    ]);
    await rawRequest(base, ["GET /health HTTP/1.1"]);
    expect(calls.map((c) => c.fn)).toEqual(["status", "health"]);
    for (const c of calls) {
      expect(c.event.requestContext).not.toHaveProperty("authorizer");
    }
    expect(calls[1]!.event).not.toHaveProperty("queryStringParameters");
  });

  it("answers API Gateway's 404 for unknown routes and other methods, without invoking anything", async () => {
    calls.length = 0;
    for (const line of [
      "GET /nope HTTP/1.1",
      "POST /health HTTP/1.1",
      "DELETE /namespaces/acme/agents/support/deployments HTTP/1.1",
      "GET /namespaces/acme/agents/support HTTP/1.1",
      "GET /health/ HTTP/1.1",
    ]) {
      const res = await rawRequest(base, [line]);
      expect(res.status, line).toBe(404);
      expect(JSON.parse(res.body), line).toEqual({ message: "Not Found" });
    }
    expect(calls).toHaveLength(0);
  });

  it("answers 500 Internal Server Error when the function throws", async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (e: unknown) => errors.push(e);
    try {
      const res = await rawRequest(base, ["GET /namespaces/acme/agents/boom/deployments HTTP/1.1"]);
      expect(res.status).toBe(500);
      expect(JSON.parse(res.body)).toEqual({ message: "Internal Server Error" });
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });

  it("lists the scenario's principals", async () => {
    const res = await fetch(`${base}/__local/principals`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ principals: ["alice", "bob"] });
  });

  it("serves a favicon and, without console sources, a page saying the console is not built", async () => {
    const icon = await fetch(`${base}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/x-icon");
    const bytes = Buffer.from(await icon.arrayBuffer());
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(bytes.readUInt32LE(6 + 8)).toBe(bytes.length - 22);
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("not built");
    expect((await fetch(`${base}/main.js`)).status).toBe(404);
  });

  it("answers 503 until the stack is ready", async () => {
    ready = false;
    try {
      const res = await fetch(`${base}/health`);
      expect(res.status).toBe(503);
    } finally {
      ready = true;
    }
    expect((await fetch(`${base}/health`)).status).toBe(201);
  });
});

describe("before the functions exist", () => {
  it("answers /health locally with the contract headers, and 500 for routes without a function", async () => {
    const loader: HandlerLoader = {
      exists: () => false,
      reset: () => {},
      load: () => Promise.reject(new Error("must not be imported")),
    };
    const bare = createApiServer({
      handlers: loader,
      consoleAssets: createConsoleAssets("/nonexistent-console-dir"),
      principals: () => [],
      isReady: () => true,
      log: () => {},
    });
    await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    try {
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get("cache-control")).toBe("no-store");
      expect(health.headers.get("x-content-type-options")).toBe("nosniff");
      const requestId = health.headers.get("x-request-id");
      expect(requestId).toMatch(/^req_/);
      expect(((await health.json()) as { meta: { requestId: string } }).meta.requestId).toBe(requestId);
      const logs = await fetch(`${url}/namespaces/a/agents/b/deployments/c/runtime/logs?source=gateway`);
      expect(logs.status).toBe(500);
      expect(await logs.json()).toEqual({ message: "Internal Server Error" });
    } finally {
      await new Promise((r) => bare.close(r));
    }
  });
});
