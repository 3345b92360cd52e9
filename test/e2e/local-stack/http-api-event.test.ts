/**
 * The local API Gateway's event builder and router, checked against the shape of API Gateway HTTP
 * API payload 2.0 events: route keys, decoded path parameters, comma-joined duplicates, lower-cased
 * headers, cookies, and the JWT authorizer context from `Bearer local:<principal>`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildHttpApiEvent,
  collectHeaders,
  formatRequestTime,
  localPrincipal,
  parseQueryParameters,
} from "../../../local/stack/http-api-event.ts";
import { fromLambdaResult } from "../../../local/stack/http-api-response.ts";
import { matchRoute } from "../../../local/stack/routes.ts";

const RUNTIME_KEY = "GET /namespaces/{namespaceId}/agents/{agentId}/deployments/{deploymentId}/runtime";
const NOW = new Date("2026-11-29T12:03:04.567Z");

function eventFor(target: string, rawHeaders: string[]) {
  const path = target.split("?")[0] as string;
  const route = matchRoute("GET", path);
  if (!route) throw new Error(`no route for ${path}`);
  return buildHttpApiEvent(
    { method: "GET", target, rawHeaders, sourceIp: "127.0.0.1", protocol: "HTTP/1.1" },
    { route, requestId: "JKJaXmPLvHcESHA=", now: NOW },
  );
}

describe("routing", () => {
  it("routes the five GET routes to their functions", () => {
    const cases: [string, string, string][] = [
      ["/health", "GET /health", "health"],
      [
        "/namespaces/acme/agents/support/deployments",
        "GET /namespaces/{namespaceId}/agents/{agentId}/deployments",
        "status",
      ],
      ["/namespaces/acme/agents/support/deployments/d3/runtime", RUNTIME_KEY, "status"],
      ["/namespaces/acme/agents/support/deployments/d3/runtime/logs", `${RUNTIME_KEY}/logs`, "logs"],
      [
        "/namespaces/acme/agents/support/deployments/d3/runtime/logs/download",
        `${RUNTIME_KEY}/logs/download`,
        "download",
      ],
    ];
    for (const [path, routeKey, fn] of cases) {
      const m = matchRoute("GET", path);
      expect(m?.route.routeKey, path).toBe(routeKey);
      expect(m?.route.fn, path).toBe(fn);
    }
  });

  it("routes nothing but GET, and no unknown or partial path", () => {
    for (const method of ["POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]) {
      expect(matchRoute(method, "/health")).toBeNull();
    }
    for (const path of [
      "/",
      "/health/",
      "/healthz",
      "/namespaces/acme",
      "/namespaces/acme/agents/support",
      "/namespaces//agents/support/deployments",
      "/namespaces/acme/agents/support/deployments/d3/runtime/",
      "/namespaces/acme/agents/support/deployments/d3/runtime/logs/extra",
    ]) {
      expect(matchRoute("GET", path), path).toBeNull();
    }
  });

  it("matches any non-empty segment and URL-decodes it into pathParameters", () => {
    const m = matchRoute("GET", "/namespaces/ACME%2Fx/agents/a%20b/deployments/%E2%9C%93/runtime");
    expect(m?.pathParameters).toEqual({ namespaceId: "ACME/x", agentId: "a b", deploymentId: "✓" });
    // A malformed escape is passed on as sent; the handler rejects it.
    expect(matchRoute("GET", "/namespaces/%zz/agents/a/deployments")?.pathParameters.namespaceId).toBe("%zz");
  });

  it("decodes every segment back to what was encoded (property)", () => {
    const segment = fc.string({ minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(segment, segment, segment, (ns, agent, dep) => {
        const path = `/namespaces/${encodeURIComponent(ns)}/agents/${encodeURIComponent(agent)}/deployments/${encodeURIComponent(dep)}/runtime/logs`;
        const m = matchRoute("GET", path);
        expect(m?.route.fn).toBe("logs");
        expect(m?.pathParameters).toEqual({ namespaceId: ns, agentId: agent, deploymentId: dep });
      }),
    );
  });
});

describe("the v2 event", () => {
  it("has the exact API Gateway HTTP API shape", () => {
    const event = eventFor("/namespaces/acme/agents/support/deployments/d3/runtime?b=2&a=1&b=3", [
      "Host",
      "127.0.0.1:3000",
      "User-Agent",
      "curl/8.5.0",
      "Authorization",
      "Bearer local:alice",
      "X-Custom",
      "one",
      "x-custom",
      "two",
      "Cookie",
      "theme=dark; lang=en",
    ]);
    expect(event).toEqual({
      version: "2.0",
      routeKey: RUNTIME_KEY,
      rawPath: "/namespaces/acme/agents/support/deployments/d3/runtime",
      rawQueryString: "b=2&a=1&b=3",
      cookies: ["theme=dark", "lang=en"],
      headers: {
        host: "127.0.0.1:3000",
        "user-agent": "curl/8.5.0",
        authorization: "Bearer local:alice",
        "x-custom": "one,two",
        "x-forwarded-for": "127.0.0.1",
        "x-forwarded-port": "3000",
        "x-forwarded-proto": "http",
        "x-amzn-trace-id": expect.stringMatching(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/),
      },
      queryStringParameters: { a: "1", b: "2,3" },
      requestContext: {
        accountId: "000000000000",
        apiId: "local",
        authorizer: { jwt: { claims: { iss: "local", sub: "alice" }, scopes: null } },
        domainName: "127.0.0.1:3000",
        domainPrefix: "127",
        http: {
          method: "GET",
          path: "/namespaces/acme/agents/support/deployments/d3/runtime",
          protocol: "HTTP/1.1",
          sourceIp: "127.0.0.1",
          userAgent: "curl/8.5.0",
        },
        requestId: "JKJaXmPLvHcESHA=",
        routeKey: RUNTIME_KEY,
        stage: "$default",
        time: "29/Nov/2026:12:03:04 +0000",
        timeEpoch: NOW.getTime(),
      },
      pathParameters: { namespaceId: "acme", agentId: "support", deploymentId: "d3" },
      isBase64Encoded: false,
    });
  });

  it("has no query parameters, cookies, path parameters or authorizer when there are none", () => {
    const event = eventFor("/health", ["Host", "127.0.0.1:3000"]);
    expect(event.rawQueryString).toBe("");
    expect(event).not.toHaveProperty("queryStringParameters");
    expect(event).not.toHaveProperty("cookies");
    expect(event).not.toHaveProperty("pathParameters");
    expect(event.requestContext).not.toHaveProperty("authorizer");
    expect(event.requestContext.http.userAgent).toBe("");
  });

  it("takes the principal only from `Bearer local:<principal>`", () => {
    expect(localPrincipal("Bearer local:alice")).toBe("alice");
    expect(localPrincipal("bearer local:ops@example.com")).toBe("ops@example.com");
    for (const other of [
      undefined,
      "",
      "Bearer alice",
      "Basic bG9jYWw6YWxpY2U=",
      "Bearer local:",
      "Bearer x local:y",
    ]) {
      expect(localPrincipal(other), String(other)).toBeNull();
      const headers = other === undefined ? [] : ["Authorization", other];
      expect(eventFor("/health", headers).requestContext).not.toHaveProperty("authorizer");
    }
  });

  it("comma-joins duplicate query parameters and decodes them (property)", () => {
    const key = fc.constantFrom("source", "pod", "tailLines", "x y", "ü");
    const value = fc.string({ maxLength: 12 }).filter((s) => !s.includes(","));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 8 }), (pairs) => {
        const raw = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
        const expected: Record<string, string[]> = {};
        for (const [k, v] of pairs) expected[k] = [...(expected[k] ?? []), v];
        const parsed = parseQueryParameters(raw);
        if (pairs.length === 0) expect(parsed).toBeUndefined();
        else
          expect(parsed).toEqual(
            Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, v.join(",")])),
          );
      }),
    );
  });

  it("decodes `+` as a space and keeps parameters without a value", () => {
    expect(parseQueryParameters("q=a+b&flag&&x=%zz")).toEqual({ q: "a b", flag: "", x: "%zz" });
  });

  it("lower-cases header names and comma-joins repeats in arrival order", () => {
    expect(collectHeaders(["Accept", "a", "ACCEPT", "b", "accept", "c"]).headers).toEqual({
      accept: "a,b,c",
    });
  });

  it("writes requestContext.time as API Gateway does", () => {
    expect(formatRequestTime(new Date("2026-01-05T03:04:05Z"))).toBe("05/Jan/2026:03:04:05 +0000");
  });
});

describe("the Lambda result", () => {
  it("uses a structured result as is, with cookies as set-cookie", () => {
    const r = fromLambdaResult({
      statusCode: 429,
      headers: { "Retry-After": 3, "content-type": "application/json" },
      body: '{"error":{}}',
      cookies: ["a=1"],
    });
    expect(r.statusCode).toBe(429);
    expect(r.headers).toEqual({
      "retry-after": "3",
      "content-type": "application/json",
      "set-cookie": ["a=1"],
    });
    expect(r.body.toString()).toBe('{"error":{}}');
  });

  it("decodes base64 bodies and treats a result without statusCode as a 200 JSON body", () => {
    expect(fromLambdaResult({ statusCode: 200, body: "aGk=", isBase64Encoded: true }).body.toString()).toBe(
      "hi",
    );
    const plain = fromLambdaResult({ ok: true });
    expect([plain.statusCode, plain.headers["content-type"], plain.body.toString()]).toEqual([
      200,
      "application/json",
      '{"ok":true}',
    ]);
  });

  it("answers API Gateway's 500 for a malformed result", () => {
    for (const bad of [undefined, { statusCode: "200" }, { statusCode: 700 }, { statusCode: 200, body: 5 }]) {
      const r = fromLambdaResult(bad);
      expect(r.statusCode).toBe(500);
      expect(JSON.parse(r.body.toString())).toEqual({ message: "Internal Server Error" });
    }
  });
});
