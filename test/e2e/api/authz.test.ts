/**
 * R7 over HTTP: the authorization matrix on every route, outsiders always 403, denials audited and
 * free of limiter tokens, revocation effective on the very next poll; and the limiter's 429.
 */
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { grantKey } from "../../../lib/registry/items.ts";
import { createDynamo, localDynamoOptions } from "../../../lib/state/dynamo.ts";
import { apiSuite, auditItems, HIGH_LIMITS, LOGS, NS, RUNTIME, scenario } from "./support.ts";

const suite = apiSuite(() => scenario(["INFO hello"], { limits: HIGH_LIMITS }));
const { get } = suite;

const routes = {
  status: RUNTIME,
  deployments: `/namespaces/${NS}/agents/support/deployments`,
  logs: `${LOGS}?source=gateway`,
  download: `${LOGS}/download?source=gateway`,
} as const;

describe("authorization matrix", () => {
  // principal → expected status per route on the standard Agent `support`
  const matrix: Record<string, Record<keyof typeof routes, number>> = {
    alice: { status: 200, deployments: 200, logs: 200, download: 200 },
    bob: { status: 200, deployments: 200, logs: 403, download: 403 },
    carol: { status: 200, deployments: 200, logs: 200, download: 200 },
    erin: { status: 403, deployments: 403, logs: 403, download: 403 },
    mallory: { status: 403, deployments: 403, logs: 403, download: 403 },
    nobody: { status: 403, deployments: 403, logs: 403, download: 403 },
  };
  for (const [principal, expected] of Object.entries(matrix)) {
    for (const [route, path] of Object.entries(routes)) {
      it(`${principal} ${route} → ${expected[route as keyof typeof routes]}`, async () => {
        const reply = await get(path, principal);
        expect(reply.status).toBe(expected[route as keyof typeof routes]);
        if (reply.status === 403) expect(reply.json.error.code).toBe("FORBIDDEN");
      });
    }
  }

  it("a sensitive Agent admits administer for status but not for logs", async () => {
    const base = `/namespaces/${NS}/agents/vault/deployments/v1/runtime`;
    expect((await get(base, "carol")).status).toBe(200);
    expect((await get(`${base}/logs?source=gateway`, "carol")).status).toBe(403);
    expect((await get(`${base}/logs?source=gateway`, "alice")).status).toBe(200);
  });

  it("answers 404 only to principals with access to the namespace", async () => {
    const unknown = `/namespaces/${NS}/agents/ghost/deployments/d1/runtime`;
    expect((await get(unknown, "alice")).status).toBe(404);
    expect((await get(unknown, "mallory")).status).toBe(403);
    expect((await get(`${RUNTIME.replace("d2", "d7")}`, "alice")).status).toBe(404);
    expect((await get(`/namespaces/other-ns/agents/support/deployments/d2/runtime`, "alice")).status).toBe(
      403,
    );
  });

  it("answers 401 without a principal and 501 for a driver-owned deployment", async () => {
    const none = await get(RUNTIME, null);
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe("UNAUTHENTICATED");
    expect((await get(RUNTIME.replace("d2", "d9"), "alice")).status).toBe(501);
    expect((await get(`${LOGS.replace("d2", "d9")}?source=gateway`, "alice")).status).toBe(501);
  });

  it("audits denials with the failed action", async () => {
    const reply = await get(`${LOGS}?source=gateway`, "bob");
    expect(reply.status).toBe(403);
    const denial = (await auditItems(suite.stack)).find(
      (i) => i.principalId === "bob" && i.outcome === "denied" && i.route === "logs",
    );
    expect(denial).toMatchObject({ event: "openclaw.agents.runtime_logs.view", action: "read_logs" });
  });

  it("names the route in a denial's event: a denied download is a download, however it was asked for", async () => {
    const denials = () => auditItems(suite.stack, "DENIED#");
    const counted = async (route: string) =>
      (await denials())
        .filter((i) => i.principalId === "bob" && i.route === route)
        .reduce((n, i) => n + (i.count as number), 0);
    const before = await counted("download");
    expect((await get(`${LOGS}?source=gateway&download=true`, "bob")).status).toBe(403);
    expect((await get(`${LOGS}/download?source=gateway`, "bob")).status).toBe(403);
    expect(await counted("download")).toBe(before + 2);
    const download = (await denials()).find((i) => i.principalId === "bob" && i.route === "download");
    expect(download).toMatchObject({ event: "openclaw.agents.runtime_logs.download", outcome: "denied" });
    expect((await get(RUNTIME, "erin")).status).toBe(403);
    const status = (await denials()).find((i) => i.principalId === "erin" && i.route === "status");
    expect(status).toMatchObject({ event: "openclaw.agents.runtime.read", action: "read" });
  });

  it("revoking a grant stops the very next poll", async () => {
    const page = await get(`${LOGS}?source=gateway`, "alice");
    expect(page.status).toBe(200);
    const { doc } = createDynamo(localDynamoOptions(suite.stack.dynamodbEndpoint));
    await doc.send(
      new DeleteCommand({
        TableName: suite.stack.environment.REGISTRY_TABLE,
        Key: grantKey("alice", NS, "*"),
      }),
    );
    const poll = await get(
      `${LOGS}?source=gateway&cursor=${encodeURIComponent(page.json.data.cursor)}`,
      "alice",
    );
    expect(poll.status).toBe(403);
  });
});
