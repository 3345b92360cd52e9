/**
 * What ships is what is tested: the local stack serving the deployable esbuild bundles (built with
 * the CDK stack's own options, `npm start -- --bundled`) instead of the TypeScript sources, through
 * the same HTTP routes: /health, deployments, status, a log page resumed with its cursor, a
 * download, the contract's errors, and a sandbox read over mTLS. Random canaries check that the
 * bundled pipeline redacts.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalStack, startLocalStack } from "../../../local/stack/index.ts";
import { PROXY_TARGET, withSandbox } from "../../support/sandbox.ts";
import { CLUSTER, canaries, client, GW_POD, K8S_NS, LOGS, NS, RUNTIME, scenario } from "../api/support.ts";

const secrets = canaries();
let stack: LocalStack;
let get: ReturnType<typeof client>;

/** The API suite's world, with an OpenShell sandbox on d2 (the gRPC client is in the bundle too). */
const bundledScenario = () =>
  withSandbox(scenario(secrets.lines), {
    agent: "support",
    deployment: "d2",
    name: "sb",
    id: "sbx-1",
    lines: [["now-5s", "WARN", PROXY_TARGET, `CONNECT x:22 ${secrets.secrets.github}`, { action: "deny" }]],
  });

beforeAll(async () => {
  // warm: the bundles start loading at once, as the first request of each would make them.
  stack = await startLocalStack({
    scenario: bundledScenario(),
    port: 0,
    quiet: true,
    bundled: true,
    warm: true,
  });
  get = client(stack);
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const noCanary = (text: string) => {
  for (const value of secrets.values) expect(text).not.toContain(value);
};

// A cold import of a 2.5 MiB bundle takes seconds on a loaded two-core machine: generous limits.
describe("the local stack on the deployable bundles", { timeout: 120_000 }, () => {
  it("loads each handler from its esbuild bundle, not from functions/*.ts", () => {
    expect(stack.handlerSource.kind).toBe("bundles");
    for (const fn of ["status", "logs", "download"]) {
      expect(existsSync(join(stack.handlerSource.dir, fn, "index.mjs"))).toBe(true);
    }
  });

  it("answers /health and lists deployments", async () => {
    const health = await get("/health", null);
    expect(health.status).toBe(200);
    expect(health.headers.get("x-request-id")).toMatch(/^req_/);
    const deployments = await get(`/namespaces/${NS}/agents/support/deployments`);
    expect(deployments.status).toBe(200);
    expect(deployments.json.data.map((d: { deploymentId: string }) => d.deploymentId)).toContain("d2");
  });

  it("describes the runtime, Events redacted", async () => {
    const status = await get(RUNTIME);
    expect(status.status).toBe(200);
    expect(status.json.data.pods.map((p: { name: string }) => p.name)).toContain(GW_POD);
    noCanary(status.text);
  });

  it("serves a redacted page, then resumes with its cursor delivering only the new line", async () => {
    const first = await get(`${LOGS}?source=gateway`);
    expect(first.status).toBe(200);
    noCanary(first.text);
    expect(first.text).toContain("[redacted:");
    const cursor: string = first.json.data.cursor;
    expect(cursor).toMatch(/^v1\./);
    stack.sim.append({
      cluster: CLUSTER,
      namespace: K8S_NS,
      pod: GW_POD,
      container: "gateway",
      lines: [[new Date(stack.sim.now().getTime() + 1).toISOString(), "INFO bundled line after the cursor"]],
    });
    stack.sim.advanceClock(1000);
    const next = await get(`${LOGS}?source=gateway&cursor=${encodeURIComponent(cursor)}`);
    expect(next.status).toBe(200);
    const messages = next.json.data.records
      .filter((r: { type: string }) => r.type === "line")
      .map((r: { message: string }) => r.message);
    expect(messages).toEqual(["INFO bundled line after the cursor"]);
  });

  it("downloads the attachment, redacted", async () => {
    const download = await get(`${LOGS}/download?source=gateway`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="support-d2-gateway-${GW_POD}.log"`,
    );
    expect(download.text.startsWith("# agent=support deployment=d2 source=gateway")).toBe(true);
    noCanary(download.text);
  });

  it("keeps the contract's errors: a tampered cursor, an outsider, no principal", async () => {
    const tampered = await get(`${LOGS}?source=gateway&cursor=v1.AAAA.BBBB`);
    expect(tampered.status).toBe(400);
    expect(tampered.json.error.code).toBe("RUNTIME_LOGS_CURSOR_INVALID");
    const outsider = await get(RUNTIME, "mallory");
    expect(outsider.status).toBe(403);
    expect(outsider.json.error.code).toBe("FORBIDDEN");
    const anonymous = await get(RUNTIME, null);
    expect(anonymous.status).toBe(401);
  });

  it("reads the sandbox over mTLS through the bundled gRPC client, redacted, and resumes", async () => {
    const first = await get(`${LOGS}?source=sandbox`);
    expect(first.status, first.text).toBe(200);
    expect(first.json.data.records).toMatchObject([
      { kind: "sandbox", level: "warn", fields: { action: "deny" } },
    ]);
    noCanary(first.text);
    stack.openshell.sim!.append({ gateway: "os1", sandbox: "sb", lines: [["now", "INFO", "t", "after"]] });
    const next = await get(`${LOGS}?source=sandbox&cursor=${encodeURIComponent(first.json.data.cursor)}`);
    expect(next.json.data.records.map((r: { message: string }) => r.message)).toEqual(["after"]);
  });
});
