import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { ServiceError } from "../../../lib/api/errors.ts";
import { authorize } from "../../../lib/auth/policy.ts";
import { agentKey, grantKey, RUNNING_KEY } from "../../../lib/registry/items.ts";
import { DynamoRegistryStore } from "../../../lib/registry/store.ts";
import { createDynamo } from "../../../lib/state/dynamo.ts";
import { loadRegistry, localCluster, type RegistrySection } from "../../../local/registry-loader.ts";
import { closedEndpoint } from "../../support/dynalite.ts";
import { dynaliteSuite } from "../../support/dynalite-suite.ts";

const placement = { gateway: { clusterId: "demo", namespace: "tenant-a", plane: "control" as const } };

const section: RegistrySection = {
  agents: [
    {
      namespaceId: "acme",
      agentId: "support",
      tier: "standard",
      state: "running",
      activeDeploymentId: "d3",
      deployments: [
        {
          deploymentId: "d1",
          revision: 1,
          createdAt: "2026-11-01T00:00:00Z",
          computeDriver: "kubernetes",
          runtimeLogging: "service",
          placement,
        },
        {
          deploymentId: "d3",
          revision: 3,
          createdAt: "2026-11-03T00:00:00Z",
          computeDriver: "kubernetes",
          runtimeLogging: "service",
          placement: {
            ...placement,
            agent: { clusterId: "exec", namespace: "tenant-a-exec", plane: "execution" },
          },
          sandbox: { driver: "openshell", endpointRef: "file:/tmp/sb", sandboxName: "sb-1", workspace: "w" },
        },
        {
          deploymentId: "d2",
          revision: 2,
          createdAt: "2026-11-02T00:00:00Z",
          computeDriver: "kubernetes",
          runtimeLogging: "driver",
          placement,
        },
      ],
    },
    {
      namespaceId: "acme",
      agentId: "vault",
      tier: "sensitive",
      state: "stopped",
      activeDeploymentId: "v1",
      deployments: [
        {
          deploymentId: "v1",
          revision: 1,
          createdAt: "2026-11-01T00:00:00Z",
          computeDriver: "kubernetes",
          runtimeLogging: "service",
          placement,
        },
      ],
    },
    {
      namespaceId: "beta",
      agentId: "bot",
      tier: "standard",
      state: "running",
      activeDeploymentId: "b1",
      deployments: [
        {
          deploymentId: "b1",
          revision: 1,
          createdAt: "2026-11-01T00:00:00Z",
          computeDriver: "kubernetes",
          runtimeLogging: "service",
          placement,
        },
      ],
    },
  ],
  grants: [
    { principalId: "alice", namespaceId: "acme", agentId: "*", actions: ["read", "operate", "read_logs"] },
    { principalId: "alice", namespaceId: "acme", agentId: "support", actions: ["administer"] },
    { principalId: "bob", namespaceId: "acme", agentId: "vault", actions: ["read"] },
    {
      principalId: "arn:aws:iam::123456789012:user/ops",
      namespaceId: "beta",
      agentId: "bot",
      actions: ["read"],
    },
  ],
};

const db = dynaliteSuite();
let clock = 0;
const now = () => clock;
const store = () =>
  new DynamoRegistryStore({ doc: db.doc, client: db.client, tableName: db.tableNames.registry, now });

beforeEach(async () => {
  clock = 1_000_000;
  await loadRegistry({ doc: db.doc, tableName: db.tableNames.registry, replace: true }, section, [
    localCluster("demo", "/tmp/demo.kubeconfig", "Demo cluster"),
  ]);
  db.calls.reset();
});

describe("registry round trips (loader → table → store)", () => {
  it("reads Agents, deployments and clusters back exactly", async () => {
    const s = store();
    expect(await s.getAgent("acme", "support")).toEqual({
      namespaceId: "acme",
      agentId: "support",
      tier: "standard",
      state: "running",
      activeDeploymentId: "d3",
      stateVersion: 1,
    });
    expect(await s.getDeployment("acme", "support", "d3")).toEqual({
      ...section.agents[0]?.deployments[1],
      namespaceId: "acme",
      agentId: "support",
    });
    expect(await s.getCluster("demo")).toEqual({
      clusterId: "demo",
      kubeconfigRef: "file:/tmp/demo.kubeconfig",
      displayName: "Demo cluster",
      allowStaticCredentials: true,
    });
    expect(await s.getAgent("acme", "nobody")).toBeNull();
    expect(await s.getCluster("nowhere")).toBeNull();
  });

  it("stores exactly the documented attributes (sparse runningKey, string-set actions)", async () => {
    const running = await db.doc.send(
      new GetCommand({ TableName: db.tableNames.registry, Key: agentKey("acme", "support") }),
    );
    expect(running.Item).toEqual({
      pk: "AGENT#acme#support",
      sk: "META",
      tier: "standard",
      state: "running",
      activeDeploymentId: "d3",
      stateVersion: 1,
      runningKey: RUNNING_KEY,
    });
    const stopped = await db.doc.send(
      new GetCommand({ TableName: db.tableNames.registry, Key: agentKey("acme", "vault") }),
    );
    expect(stopped.Item).not.toHaveProperty("runningKey");
    const g = await db.client.send(
      new (await import("@aws-sdk/client-dynamodb")).GetItemCommand({
        TableName: db.tableNames.registry,
        Key: { pk: { S: "PRINCIPAL#alice" }, sk: { S: "NS#acme#AGENT#*" } },
      }),
    );
    expect(g.Item?.actions?.SS?.sort()).toEqual(["operate", "read", "read_logs"]);
  });

  it("finds a deployment only within its own Agent", async () => {
    const s = store();
    expect(await s.getDeployment("acme", "vault", "d3")).toBeNull();
    expect(await s.getDeployment("beta", "support", "d3")).toBeNull();
    expect(await s.getDeployment("acme", "support", "b1")).toBeNull();
  });

  it("lists deployments highest revision first", async () => {
    const list = await store().listDeployments("acme", "support");
    expect(list.map((d) => [d.deploymentId, d.revision])).toEqual([
      ["d3", 3],
      ["d2", 2],
      ["d1", 1],
    ]);
    expect(await store().listDeployments("acme", "nobody")).toEqual([]);
  });

  it("lists running Agents through the sparse index, across pages", async () => {
    const s = store();
    const ids = (await s.listRunningAgents()).map((a) => `${a.namespaceId}/${a.agentId}`).sort();
    expect(ids).toEqual(["acme/support", "beta/bot"]);
    // Many more running Agents than one page of a small index read holds.
    const many: RegistrySection = {
      agents: Array.from({ length: 60 }, (_, i) => ({
        namespaceId: "load",
        agentId: `a${i}`,
        tier: "standard" as const,
        state: i % 3 === 0 ? ("stopped" as const) : ("running" as const),
        activeDeploymentId: "d1",
        deployments: [],
      })),
      grants: [],
    };
    await loadRegistry({ doc: db.doc, tableName: db.tableNames.registry }, many);
    const padding = "x".repeat(64_000);
    for (let i = 0; i < 60; i += 3) {
      await db.doc.send(
        new UpdateCommand({
          TableName: db.tableNames.registry,
          Key: agentKey("load", `a${i + 1}`),
          UpdateExpression: "SET padding = :p",
          ExpressionAttributeValues: { ":p": padding },
        }),
      );
    }
    db.calls.reset();
    const all = await s.listRunningAgents();
    expect(all.filter((a) => a.namespaceId === "load")).toHaveLength(40);
    expect(all.every((a) => a.state === "running")).toBe(true);
    // 20 items of 64 KB exceed one 1 MB page: the store followed LastEvaluatedKey.
    expect(db.calls.snapshot().QueryCommand).toBeGreaterThan(1);
  });

  it("returns the Agent-specific and the `*` grant in one call, specific first", async () => {
    const s = store();
    db.calls.reset();
    const grants = await s.grantsFor("alice", "acme", "support");
    expect(grants).toEqual([
      { principalId: "alice", namespaceId: "acme", agentId: "support", actions: ["administer"] },
      { principalId: "alice", namespaceId: "acme", agentId: "*", actions: ["read", "operate", "read_logs"] },
    ]);
    expect(db.calls.total).toBe(1);
    expect(await s.grantsFor("alice", "beta", "bot")).toEqual([]);
    expect(await s.grantsFor("arn:aws:iam::123456789012:user/ops", "beta", "bot")).toHaveLength(1);
  });

  it("tells namespace access apart from none (404 versus 403)", async () => {
    const s = store();
    expect(await s.hasGrantInNamespace("bob", "acme")).toBe(true);
    expect(await s.hasGrantInNamespace("bob", "beta")).toBe(false);
    expect(await s.hasGrantInNamespace("alice", "acm")).toBe(false);
    expect(await s.hasGrantInNamespace("nobody", "acme")).toBe(false);
  });

  it("refuses to load a grant without actions or a duplicate entry", async () => {
    const opts = { doc: db.doc, tableName: db.tableNames.registry };
    await expect(
      loadRegistry(opts, {
        agents: [],
        grants: [{ principalId: "x", namespaceId: "acme", agentId: "*", actions: [] }],
      }),
    ).rejects.toThrow(/at least one action/);
    const agent = section.agents[1];
    if (!agent) throw new Error("fixture");
    await expect(loadRegistry(opts, { agents: [agent, agent], grants: [] })).rejects.toThrow(/duplicate/);
  });
});

describe("registry cache", () => {
  it("serves Agents, deployments and clusters from the cache for at most 30 s", async () => {
    const s = store();
    await s.getAgent("acme", "support");
    await s.getDeployment("acme", "support", "d3");
    await s.getCluster("demo");
    await s.listDeployments("acme", "support");
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableNames.registry,
        Key: agentKey("acme", "support"),
        UpdateExpression: "SET tier = :t",
        ExpressionAttributeValues: { ":t": "sensitive" },
      }),
    );
    db.calls.reset();
    clock += 29_999;
    expect((await s.getAgent("acme", "support"))?.tier).toBe("standard");
    await s.getDeployment("acme", "support", "d3");
    await s.getCluster("demo");
    await s.listDeployments("acme", "support");
    expect(db.calls.total).toBe(0);
    clock += 1;
    expect((await s.getAgent("acme", "support"))?.tier).toBe("sensitive");
    expect(db.calls.total).toBe(1);
  });

  it("caps a longer configured lifetime at 30 s and survives a clock stepping back", async () => {
    const s = new DynamoRegistryStore({
      doc: db.doc,
      client: db.client,
      tableName: db.tableNames.registry,
      now,
      cacheTtlMs: 3_600_000,
    });
    await s.getAgent("acme", "vault");
    await db.doc.send(
      new DeleteCommand({ TableName: db.tableNames.registry, Key: agentKey("acme", "vault") }),
    );
    clock -= 3_600_000;
    expect(await s.getAgent("acme", "vault")).toBeNull();
    const t = new DynamoRegistryStore({
      doc: db.doc,
      client: db.client,
      tableName: db.tableNames.registry,
      now,
      cacheTtlMs: 3_600_000,
    });
    await t.getAgent("acme", "support");
    await db.doc.send(
      new DeleteCommand({ TableName: db.tableNames.registry, Key: agentKey("acme", "support") }),
    );
    clock += 30_000;
    expect(await t.getAgent("acme", "support")).toBeNull();
  });

  it("never caches grants: a revoked grant stops the very next read", async () => {
    const s = store();
    const before = await s.grantsFor("bob", "acme", "vault");
    const agent = await s.getAgent("acme", "vault");
    expect(authorize({ route: "deployments", agent, grants: before }).allowed).toBe(true);
    await db.doc.send(
      new DeleteCommand({ TableName: db.tableNames.registry, Key: grantKey("bob", "acme", "vault") }),
    );
    const after = await s.grantsFor("bob", "acme", "vault");
    expect(after).toEqual([]);
    expect(authorize({ route: "deployments", agent, grants: after })).toMatchObject({ allowed: false });
    expect(await s.hasGrantInNamespace("bob", "acme")).toBe(false);
    // And a new grant counts at once too.
    await db.doc.send(
      new PutCommand({
        TableName: db.tableNames.registry,
        Item: { ...grantKey("bob", "acme", "*"), actions: new Set(["read", "bogus"]) },
      }),
    );
    expect(await s.grantsFor("bob", "acme", "vault")).toEqual([
      { principalId: "bob", namespaceId: "acme", agentId: "*", actions: ["read"] },
    ]);
  });
});

describe("registry failures", () => {
  it("answers DEPENDENCY_UNAVAILABLE for a malformed item, without its contents", async () => {
    await db.doc.send(
      new PutCommand({
        TableName: db.tableNames.registry,
        Item: { ...agentKey("acme", "broken"), tier: "secret-tier-value", state: "running" },
      }),
    );
    const err = await store()
      .getAgent("acme", "broken")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe("DEPENDENCY_UNAVAILABLE");
    expect((err as ServiceError).message).not.toContain("secret-tier-value");
  });

  it("answers DEPENDENCY_UNAVAILABLE when DynamoDB is unreachable", async () => {
    const endpoint = await closedEndpoint();
    const down = createDynamo({
      endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      maxAttempts: 1,
    });
    const s = new DynamoRegistryStore({ doc: down.doc, client: down.client, tableName: "t" });
    for (const call of [
      () => s.getAgent("acme", "support"),
      () => s.grantsFor("alice", "acme", "support"),
      () => s.listRunningAgents(),
      () => s.hasGrantInNamespace("alice", "acme"),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect((err as ServiceError).code).toBe("DEPENDENCY_UNAVAILABLE");
    }
    down.client.destroy();
  });
});
