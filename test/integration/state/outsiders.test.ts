/**
 * R12 (docs/quality.md), counted and not timed: to a principal with no grant in the namespace, an
 * unknown Agent and an Agent it holds no grant on cost the same store calls — the same methods of
 * the registry and the audit sink, and the same DynamoDB commands underneath, on the real
 * dynalite-backed stores — and answer the same bytes apart from the request ID. Every route, on a
 * fresh container and on a warm one.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoAuditSink } from "../../../lib/audit/sink.ts";
import { createHttpHandler, httpRoute, type RouteHandler } from "../../../lib/http/handler.ts";
import { parseLogsRequest, parseRuntimeRequest } from "../../../lib/http/requests.ts";
import { sourceResult, successResult } from "../../../lib/http/response.ts";
import { agentToItem, deploymentToItem, grantToItem } from "../../../lib/registry/items.ts";
import { DynamoRegistryStore } from "../../../lib/registry/store.ts";
import { type LogsDeps, readLogs } from "../../../lib/routes/logs.ts";
import { ContainerSourceReader } from "../../../lib/routes/sources/container.ts";
import { getRuntimeStatus, type StatusDeps } from "../../../lib/routes/status.ts";
import { type LocalDynamo, startDynalite } from "../../support/dynalite.ts";

let db: LocalDynamo;

beforeAll(async () => {
  db = await startDynalite();
  const put = (Item: Record<string, unknown>) =>
    db.doc.send(new PutCommand({ TableName: db.tableNames.registry, Item }));
  await put(
    agentToItem({
      namespaceId: "acme",
      agentId: "support",
      tier: "standard",
      state: "running",
      activeDeploymentId: "d2",
      stateVersion: 1,
    }),
  );
  await put(
    deploymentToItem({
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d2",
      revision: 2,
      createdAt: "2026-11-29T12:00:00Z",
      computeDriver: "kubernetes",
      runtimeLogging: "service",
      placement: { gateway: { clusterId: "c1", namespace: "tenant-a", plane: "control" } },
    }),
  );
  // An insider, so the namespace is not empty, and an outsider with a grant elsewhere.
  await put(
    grantToItem({ principalId: "alice", namespaceId: "acme", agentId: "*", actions: ["read", "read_logs"] }),
  );
  await put(
    grantToItem({
      principalId: "mallory",
      namespaceId: "other",
      agentId: "*",
      actions: ["read", "read_logs"],
    }),
  );
});
afterAll(async () => db?.close());

/** Wraps an object so that every method call is recorded by name, then forwarded. */
function counting<T extends object>(target: T, name: string, log: string[]): T {
  return new Proxy(target, {
    get(t, key, receiver) {
      const value = Reflect.get(t, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        log.push(`${name}.${String(key)}`);
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

const never = (what: string) => () => {
  throw new Error(`${what} must not be reached by a denied request`);
};

/** A container: real stores over dynalite, behind counting wrappers; nothing past authorization. */
function container() {
  const calls: string[] = [];
  const registry = new DynamoRegistryStore({
    doc: db.doc,
    client: db.client,
    tableName: db.tableNames.registry,
  });
  const audit = new DynamoAuditSink({ doc: db.doc, tableName: db.tableNames.audit, retentionDays: 400 });
  const deps: LogsDeps & Pick<StatusDeps, "driver"> = {
    config: { enabled: true, limits: { downloadCost: 5 } },
    registry: counting(registry, "registry", calls),
    audit: counting(audit, "audit", calls),
    limiter: { acquire: never("the limiter"), release: never("the limiter") },
    keys: never("the keys"),
    readers: {
      container: new ContainerSourceReader({
        listReadablePods: never("the cluster"),
        readLog: never("the cluster"),
      }),
    },
    driver: { observeRuntime: never("the cluster") } as unknown as StatusDeps["driver"],
  };
  const routes: Record<string, RouteHandler<typeof deps>> = {
    logs: httpRoute(parseLogsRequest("logs"), readLogs, sourceResult),
    download: httpRoute(parseLogsRequest("download"), readLogs, sourceResult),
    status: httpRoute(
      parseRuntimeRequest,
      (r, s, d) => getRuntimeStatus(r, s, d as unknown as StatusDeps),
      successResult,
    ),
  };
  const handler = createHttpHandler({
    logger: new Logger({ serviceName: "test", logLevel: "SILENT" }),
    deps: async () => deps,
    route: (event) => routes[event.routeKey] ?? null,
  });
  return { handler, calls };
}

const QUERIES: Record<string, Record<string, string> | undefined> = {
  logs: { source: "gateway" },
  download: { source: "gateway" },
  status: undefined,
};

function event(route: string, principal: string, agentId: string): APIGatewayProxyEventV2 {
  return {
    routeKey: route,
    pathParameters: { namespaceId: "acme", agentId, deploymentId: "d2" },
    queryStringParameters: QUERIES[route],
    requestContext: { authorizer: { jwt: { claims: { sub: principal } } } },
  } as unknown as APIGatewayProxyEventV2;
}

const context = { awsRequestId: "aws-1", getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

async function ask(c: ReturnType<typeof container>, route: string, principal: string, agentId: string) {
  const calls = c.calls.length;
  const before = db.calls.snapshot();
  const result = await c.handler(event(route, principal, agentId), context);
  const after = db.calls.snapshot();
  const commands = Object.fromEntries(
    Object.keys(after)
      .map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
  const requestId = result.headers["x-request-id"] as string;
  return {
    status: result.statusCode,
    headers: { ...result.headers, "x-request-id": "req_" },
    body: (result.body as string).replaceAll(requestId, "req_"),
    methods: c.calls.slice(calls),
    commands,
  };
}

describe("outsiders learn nothing (R12)", () => {
  for (const route of ["logs", "download", "status"]) {
    for (const principal of ["mallory", "nobody"]) {
      it(`${route}, ${principal}: unknown Agent and ungranted Agent cost the same calls and answer the same bytes`, async () => {
        // Fresh containers: nothing cached on either side.
        const unknown = await ask(container(), route, principal, "ghost");
        const ungranted = await ask(container(), route, principal, "support");
        expect(unknown.status).toBe(403);
        expect(ungranted).toEqual(unknown);
        expect(unknown.methods.sort()).toEqual([
          "audit.recordDenial",
          "registry.getAgent",
          "registry.grantsFor",
          "registry.hasGrantInNamespace",
        ]);
        expect(unknown.commands).toEqual({
          BatchGetItemCommand: 1,
          GetItemCommand: 1,
          QueryCommand: 1,
          UpdateItemCommand: 1,
        });

        // Warm containers: the Agent lookup is cached on both sides alike.
        const warmA = container();
        const warmB = container();
        await ask(warmA, route, principal, "ghost");
        await ask(warmB, route, principal, "support");
        const unknownWarm = await ask(warmA, route, principal, "ghost");
        const ungrantedWarm = await ask(warmB, route, principal, "support");
        expect(ungrantedWarm).toEqual(unknownWarm);
        expect(unknownWarm.commands).not.toHaveProperty("GetItemCommand");
      });
    }
  }

  it("an insider still tells them apart (404 for an unknown Agent), as the contract says", async () => {
    expect((await ask(container(), "logs", "alice", "ghost")).status).toBe(404);
  });
});
