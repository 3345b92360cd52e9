import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../lib/api/errors.ts";
import type { DenialAudit, ReadAudit } from "../../../lib/audit/records.ts";
import { RestartRecordTable, restartPk } from "../../../lib/audit/restart-items.ts";
import { AuditUnavailableError, DynamoAuditSink } from "../../../lib/audit/sink.ts";
import { ULID_PATTERN, ulid, ulidTime } from "../../../lib/audit/ulid.ts";
import { createDynamo } from "../../../lib/state/dynamo.ts";
import { closedEndpoint } from "../../support/dynalite.ts";
import { dynaliteSuite } from "../../support/dynalite-suite.ts";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0, 123);
const db = dynaliteSuite();
let clock = T0;

const sink = (options: { randomBytes?: (n: number) => Uint8Array } = {}) =>
  new DynamoAuditSink({
    doc: db.doc,
    tableName: db.tableNames.audit,
    retentionDays: 400,
    now: () => clock,
    ...options,
  });

let n = 0;
function view(overrides: Partial<ReadAudit> = {}): ReadAudit {
  n++;
  return {
    namespaceId: "acme",
    agentId: `agent${n}`,
    principalId: `user${n}`,
    requestId: "req_4b0c0a2e-6a5f-4d6e-9f51-1f7f0e2b9c11",
    deploymentId: "d3",
    viewId: "rlv_7c9e6679-7425-40de-944b-e07fc1f90ae7",
    grant: "read_logs",
    source: "gateway",
    pod: "gw-0",
    container: "gateway",
    previous: false,
    tailLines: 200,
    ...overrides,
  };
}

describe("audit records", () => {
  it("writes a view record with the documented key, fields, GSI attribute and retention", async () => {
    clock = T0;
    const v = view();
    const record = await sink().recordView(v);
    expect(record.time).toBe("2026-11-29T12:00:00.123Z");
    expect(record.eventId).toMatch(ULID_PATTERN);
    expect(ulidTime(record.eventId)).toBe(T0);
    const stored = await db.doc.send(
      new GetCommand({
        TableName: db.tableNames.audit,
        Key: { pk: `AGENT#acme#${v.agentId}`, sk: `2026-11-29T12:00:00.123Z#${record.eventId}` },
      }),
    );
    expect(stored.Item).toEqual({
      pk: `AGENT#acme#${v.agentId}`,
      sk: `2026-11-29T12:00:00.123Z#${record.eventId}`,
      event: "openclaw.agents.runtime_logs.view",
      outcome: "success",
      principalId: v.principalId,
      requestId: v.requestId,
      action: "read_logs",
      grant: "read_logs",
      deploymentId: "d3",
      viewId: v.viewId,
      source: "gateway",
      pod: "gw-0",
      container: "gateway",
      previous: false,
      tailLines: 200,
      purgeAt: Math.floor(T0 / 1000) + 400 * 86_400,
    });
  });

  it("names downloads and denials with their events; a denial names the failed action", async () => {
    const s = sink();
    const d = await s.recordDownload(
      view({ grant: "administer", source: "sandbox", pod: undefined as never }),
    );
    expect(d).toMatchObject({
      event: "openclaw.agents.runtime_logs.download",
      outcome: "success",
      grant: "administer",
    });
    expect(d).not.toHaveProperty("pod");
    const base = { namespaceId: "acme", agentId: "vault", principalId: "mallory", requestId: "req_1" };
    const logs = await s.recordDenial({
      ...base,
      route: "logs",
      action: "read_logs",
      reasonCode: "restricted_tier",
    });
    expect(logs).toMatchObject({
      event: "openclaw.agents.runtime_logs.view",
      outcome: "denied",
      route: "logs",
      action: "read_logs",
      reasonCode: "restricted_tier",
      count: 1,
    });
    const download = await s.recordDenial({
      ...base,
      route: "download",
      action: "read_logs",
      reasonCode: "no_grant",
    });
    expect(download.event).toBe("openclaw.agents.runtime_logs.download");
    const status = await s.recordDenial({
      ...base,
      route: "status",
      action: "operate",
      reasonCode: "missing_action",
    });
    expect(status.event).toBe("openclaw.agents.runtime.read");
    const list = await s.recordDenial({
      ...base,
      route: "deployments",
      action: "read",
      reasonCode: "no_grant",
    });
    expect(list.event).toBe("openclaw.agents.runtime.read");
  });

  it("is append-only: a colliding key is never overwritten", async () => {
    clock = T0 + 50_000;
    const fixed = sink({ randomBytes: (size) => new Uint8Array(size).fill(7) });
    const first = await fixed.recordView(view({ agentId: "collide" }));
    const err = await fixed
      .recordView(view({ agentId: "collide", principalId: "intruder" }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe("RUNTIME_LOGS_AUDIT_UNAVAILABLE");
    const page = await sink().listByAgent("acme", "collide");
    expect(page.records).toHaveLength(1);
    expect(page.records[0]?.principalId).toBe(first.principalId);
  });

  it("refuses fields outside their grammar (no text can ride along), writing nothing", async () => {
    const s = sink();
    const bad: Partial<ReadAudit>[] = [
      { pod: "gw-0 ERROR password=hunter2" },
      { container: "Gateway" },
      { tailLines: 0 },
      { tailLines: 1001 },
      { viewId: "rlv_x y" },
      { requestId: "anything" },
      { principalId: "ali\nce" },
      { deploymentId: "D3" },
    ];
    for (const overrides of bad) {
      const v = view({ agentId: "refused", ...overrides });
      const err = await s.recordView(v).catch((e: unknown) => e);
      expect((err as ServiceError).code, JSON.stringify(overrides)).toBe("RUNTIME_LOGS_AUDIT_UNAVAILABLE");
    }
    expect((await s.listByAgent("acme", "refused")).records).toEqual([]);
    // Properties smuggled in at run time are not stored.
    const smuggled = { ...view({ agentId: "smuggled" }), message: "Bearer abc.def.ghi" } as ReadAudit;
    await s.recordView(smuggled);
    const items = await db.doc.send(
      new QueryCommand({
        TableName: db.tableNames.audit,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": "AGENT#acme#smuggled" },
      }),
    );
    expect(JSON.stringify(items.Items)).not.toContain("Bearer");
  });

  it("surfaces write failures typed by kind", async () => {
    const down = createDynamo({
      endpoint: await closedEndpoint(),
      region: "us-east-1",
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      maxAttempts: 1,
    });
    const s = new DynamoAuditSink({
      doc: down.doc,
      tableName: "audit",
      retentionDays: 400,
      now: () => clock,
    });
    const viewErr = (await s.recordView(view()).catch((e: unknown) => e)) as ServiceError;
    expect(viewErr.code).toBe("RUNTIME_LOGS_AUDIT_UNAVAILABLE");
    expect(viewErr.status).toBe(503);
    expect(viewErr.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    const dl = (await s.recordDownload(view()).catch((e: unknown) => e)) as ServiceError;
    expect(dl.code).toBe("RUNTIME_LOGS_AUDIT_UNAVAILABLE");
    const denial = (await s
      .recordDenial({
        namespaceId: "acme",
        agentId: "a",
        principalId: "p",
        requestId: "req_1",
        route: "logs",
        action: "read_logs",
        reasonCode: "no_grant",
      })
      .catch((e: unknown) => e)) as ServiceError;
    expect(denial.code).toBe("DEPENDENCY_UNAVAILABLE");
    await expect(
      s.record({
        event: "openclaw.agents.runtime_logs.view",
        outcome: "success",
        namespaceId: "acme",
        agentId: "a",
        principalId: "p",
        requestId: "req_1",
      }),
    ).rejects.toBeInstanceOf(AuditUnavailableError);
    down.client.destroy();
  });
});

describe("denial aggregates", () => {
  const denial = (over: Partial<DenialAudit> = {}): DenialAudit => ({
    namespaceId: "acme",
    agentId: "flood",
    principalId: "mallory",
    requestId: "req_4b0c0a2e-6a5f-4d6e-9f51-1f7f0e2b9c11",
    route: "logs",
    action: "read_logs",
    reasonCode: "no_grant",
    ...over,
  });
  const items = async (agentId: string) =>
    (
      await db.doc.send(
        new QueryCommand({
          TableName: db.tableNames.audit,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": `AGENT#acme#${agentId}` },
        }),
      )
    ).Items ?? [];

  it("counts 50 concurrent denials of one minute in one item, one UpdateItem each", async () => {
    clock = Date.UTC(2026, 10, 29, 13, 7, 0, 5);
    const s = sink();
    const before = db.calls.snapshot();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        clock += 1; // all inside 13:07
        return s.recordDenial(denial({ reasonCode: i % 2 ? "no_grant" : "unknown_agent" }));
      }),
    );
    const after = db.calls.snapshot();
    const made = Object.fromEntries(
      Object.keys(after)
        .map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
    expect(made).toEqual({ UpdateItemCommand: 50 });
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    const stored = await items("flood");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      pk: "AGENT#acme#flood",
      sk: "DENIED#2026-11-29T13:07Z#logs#mallory",
      count: 50,
      event: "openclaw.agents.runtime_logs.view",
      outcome: "denied",
      principalId: "mallory",
      firstAt: "2026-11-29T13:07:00.006Z",
      lastAt: "2026-11-29T13:07:00.055Z",
    });
    expect(stored[0]?.purgeAt).toBeGreaterThan(clock / 1000);
  });

  it("keeps minutes, routes and principals apart; the aggregate is listed and found by principal", async () => {
    clock = Date.UTC(2026, 10, 29, 13, 8, 59, 999);
    const s = sink();
    await s.recordDenial(denial({ agentId: "apart" }));
    clock += 1; // 13:09
    await s.recordDenial(denial({ agentId: "apart" }));
    await s.recordDenial(denial({ agentId: "apart", route: "download" }));
    await s.recordDenial(denial({ agentId: "apart", principalId: "arn:aws:iam::1:role/X#eve" }));
    await s.recordDenial(denial({ agentId: "apart", principalId: "arn:aws:iam::1:role/X#eve" }));
    const sks = (await items("apart")).map((i) => [i.sk, i.count]).sort();
    expect(sks).toEqual([
      ["DENIED#2026-11-29T13:08Z#logs#mallory", 1],
      ["DENIED#2026-11-29T13:09Z#download#mallory", 1],
      ["DENIED#2026-11-29T13:09Z#logs#arn:aws:iam::1:role/X#eve", 2],
      ["DENIED#2026-11-29T13:09Z#logs#mallory", 1],
    ]);
    const page = await s.listByAgent("acme", "apart");
    expect(page.records).toEqual([]);
    expect(page.denials).toContainEqual(
      expect.objectContaining({
        principalId: "arn:aws:iam::1:role/X#eve",
        route: "logs",
        minute: "2026-11-29T13:09Z",
        count: 2,
        event: "openclaw.agents.runtime_logs.view",
      }),
    );
    const byPrincipal = await s.listByPrincipal("arn:aws:iam::1:role/X#eve");
    expect(byPrincipal.denials.map((d) => d.count)).toEqual([2]);
  });

  it("refuses a denial outside the grammars, writing nothing", async () => {
    const s = sink();
    for (const bad of [
      denial({ agentId: "refused-denial", principalId: "a\nb" }),
      denial({ agentId: "refused-denial", route: "exec" as never }),
      denial({ agentId: "refused-denial", reasonCode: "because" as never }),
    ]) {
      expect(((await s.recordDenial(bad).catch((e: unknown) => e)) as ServiceError).code).toBe(
        "DEPENDENCY_UNAVAILABLE",
      );
    }
    expect(await items("refused-denial")).toEqual([]);
  });
});

describe("audit queries", () => {
  it("lists one Agent's records newest first, page by page", async () => {
    const s = sink();
    for (let i = 0; i < 5; i++) {
      clock = T0 + 100_000 + i * 1_000;
      await s.recordView(view({ agentId: "paged", principalId: `reader${i}` }));
    }
    const first = await s.listByAgent("acme", "paged", { limit: 3 });
    expect(first.records.map((r) => r.principalId)).toEqual(["reader4", "reader3", "reader2"]);
    expect(first.next).toBeDefined();
    const second = await s.listByAgent("acme", "paged", {
      limit: 3,
      ...(first.next ? { startKey: first.next } : {}),
    });
    expect(second.records.map((r) => r.principalId)).toEqual(["reader1", "reader0"]);
    expect(second.records[0]).toMatchObject({
      namespaceId: "acme",
      agentId: "paged",
      event: expect.any(String),
    });
  });

  it("lists one principal's records across Agents, newest first", async () => {
    const s = sink();
    const agents = ["alpha", "beta", "gamma"];
    for (const [i, agentId] of agents.entries()) {
      clock = T0 + 200_000 + i * 10;
      await s.recordView(view({ agentId, principalId: "auditee" }));
      await s.recordView(view({ agentId, principalId: "someone-else" }));
    }
    const page = await s.listByPrincipal("auditee");
    expect(page.records.map((r) => r.agentId)).toEqual(["gamma", "beta", "alpha"]);
    expect(page.records.every((r) => r.principalId === "auditee")).toBe(true);
  });
});

describe("ULID", () => {
  it("is 26 Crockford characters carrying its millisecond time, and sorts by time", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (a, b, bytes) => {
          const ia = ulid(a, () => bytes);
          const ib = ulid(b, () => bytes);
          expect(ia).toMatch(ULID_PATTERN);
          expect(ulidTime(ia)).toBe(a);
          if (a < b) expect(ia < ib).toBe(true);
        },
      ),
    );
    expect(ulid(0, () => new Uint8Array(10))).toBe("0".repeat(26));
    expect(ulid(2 ** 48 - 1, () => new Uint8Array(10).fill(255))).toBe(`7ZZZZZZZZZ${"Z".repeat(16)}`);
    expect(() => ulid(2 ** 48, () => new Uint8Array(10))).toThrow(RangeError);
  });
});

describe("restart record table access", () => {
  it("writes one item per transition and returns the newest 20", async () => {
    const table = new RestartRecordTable({
      doc: db.doc,
      tableName: db.tableNames.audit,
      retentionDays: 400,
      now: () => T0,
    });
    const place = (i: number) => ({
      namespaceId: "acme",
      agentId: "support",
      deploymentId: "d3",
      at: new Date(T0 + i * 60_000).toISOString(),
      instanceKey: `uid-1:gateway:${i}`,
    });
    for (let i = 0; i < 25; i++) {
      expect(await table.putIfAbsent(place(i), { restartId: `r${i}`, scope: "container-restart" })).toBe(
        "created",
      );
    }
    expect(await table.putIfAbsent(place(3), { restartId: "again", scope: "unknown" })).toBe("exists");
    db.calls.reset();
    const newest = await table.newest("acme", "support", "d3");
    expect(db.calls.snapshot()).toEqual({ QueryCommand: 1 });
    expect(newest.map((r) => r.restartId)).toEqual(Array.from({ length: 20 }, (_, i) => `r${24 - i}`));
    expect(newest[0]).toEqual({ restartId: "r24", scope: "container-restart" });
    const kept = await db.doc.send(
      new QueryCommand({
        TableName: db.tableNames.audit,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": restartPk("acme", "support", "d3") },
      }),
    );
    expect(kept.Items?.find((i) => i.restartId === "r3")?.scope).toBe("container-restart");
    // Restart items carry no principalId: they never show in a principal's audit listing.
    expect(kept.Items?.every((i) => i.principalId === undefined)).toBe(true);
  });
});
