/**
 * R5 over HTTP: cluster 403, latency past the per-call timeout, an unreachable cluster, the audit
 * table failing and DynamoDB failing each give their documented code, and no log byte is served
 * without its audit record.
 */
import { CreateTableCommand, DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import { afterEach, describe, expect, it } from "vitest";
import { createDynamo, localDynamoOptions } from "../../../lib/state/dynamo.ts";
import { AUDIT_TABLE, createTableInput, REGISTRY_TABLE } from "../../../lib/state/tables.ts";
import { apiSuite, CLUSTER, HIGH_LIMITS, LOGS, RUNTIME, scenario } from "./support.ts";

const SECRET_LINE = "INFO the marker line 7c1e";

const suite = apiSuite(() => scenario([SECRET_LINE], { limits: HIGH_LIMITS }));
const { get } = suite;
afterEach(() => {
  suite.stack.sim.setFault({ cluster: CLUSTER, latencyMs: 0, failRate: 0, status: null, unreachable: false });
});

const logReads = () => suite.stack.sim.stats().total.logReads;

async function withTableGone(table: typeof AUDIT_TABLE, name: string, fn: () => Promise<void>) {
  const { client: ddb } = createDynamo(localDynamoOptions(suite.stack.dynamodbEndpoint));
  await ddb.send(new DeleteTableCommand({ TableName: name }));
  try {
    await fn();
  } finally {
    await ddb.send(new CreateTableCommand(createTableInput(table, name)));
  }
}

describe("faults", () => {
  it("cluster 403 → 503 RUNTIME_LOGS_CLUSTER_RBAC, with no cluster text", async () => {
    suite.stack.sim.setFault({ cluster: CLUSTER, status: 403 });
    const reply = await get(RUNTIME, "carol");
    expect(reply.status).toBe(503);
    expect(reply.json.error.code).toBe("RUNTIME_LOGS_CLUSTER_RBAC");
    expect(reply.text).not.toMatch(/forbidden|tenant-a|pods/i);
  });

  it("unreachable cluster → 503 RUNTIME_LOGS_UNAVAILABLE", async () => {
    suite.stack.sim.setFault({ cluster: CLUSTER, unreachable: true });
    const reply = await get(RUNTIME, "carol");
    expect(reply.status).toBe(503);
    expect(reply.json.error.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("a lone cluster call past its 5 s timeout → 503 RUNTIME_LOGS_UNAVAILABLE", async () => {
    suite.stack.sim.setFault({ cluster: CLUSTER, latencyMs: 5_600 });
    const reply = await get(RUNTIME, "carol");
    expect(reply.status).toBe(503);
    expect(reply.json.error.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
  });

  it("calls that together pass the 10 s request deadline → 504 RUNTIME_LOGS_TIMEOUT, no log bytes", async () => {
    expect((await get(`${LOGS}?source=gateway`, "carol")).status).toBe(200); // warm: time the deadline, not the import
    suite.stack.sim.setFault({ cluster: CLUSTER, latencyMs: 3_600 });
    const started = Date.now();
    const reply = await get(`${LOGS}?source=gateway`, "carol");
    expect(reply.status).toBe(504);
    expect(reply.json.error.code).toBe("RUNTIME_LOGS_TIMEOUT");
    expect(reply.text).not.toContain("marker");
    expect(Date.now() - started).toBeLessThan(10_800);
  });

  it("audit failing → 503 RUNTIME_LOGS_AUDIT_UNAVAILABLE and nothing read", async () => {
    await withTableGone(AUDIT_TABLE, suite.stack.environment.AUDIT_TABLE as string, async () => {
      const before = logReads();
      const reply = await get(`${LOGS}?source=gateway`, "carol");
      expect(reply.status).toBe(503);
      expect(reply.json.error.code).toBe("RUNTIME_LOGS_AUDIT_UNAVAILABLE");
      expect(reply.text).not.toContain("marker");
      expect(logReads()).toBe(before);
      // A denial that cannot be audited is 503, not 403.
      const denied = await get(`${LOGS}?source=gateway`, "bob");
      expect(denied.status).toBe(503);
      expect(denied.json.error.code).toBe("DEPENDENCY_UNAVAILABLE");
    });
  });

  it("registry failing → 503 DEPENDENCY_UNAVAILABLE", async () => {
    await withTableGone(REGISTRY_TABLE, suite.stack.environment.REGISTRY_TABLE as string, async () => {
      const reply = await get(`${LOGS}?source=gateway`, "dave");
      expect(reply.status).toBe(503);
      expect(reply.json.error.code).toBe("DEPENDENCY_UNAVAILABLE");
      expect(reply.text).not.toMatch(/ResourceNotFound|dynamo/i);
    });
  });
});
