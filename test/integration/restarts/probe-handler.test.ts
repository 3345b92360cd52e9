/**
 * The probe's Lambda wiring end to end: configuration from environment variables, the service's
 * dependencies (dynalite, key files, file kubeconfigs, the simulator), the middy handler with the
 * sample scheduled event, one report log line and one EMF line.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Logger } from "@aws-lambda-powertools/logger";
import type { Context } from "aws-lambda";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { loadConfig } from "../../../lib/config.ts";
import { buildProbeDeps } from "../../../lib/probe/deps.ts";
import { createProbeHandler } from "../../../lib/probe/handler.ts";
import type { ProbeReport } from "../../../lib/probe/report.ts";
import { buildServiceDeps } from "../../../lib/service/deps.ts";
import { type KubeSim, startKubeSim } from "../../../local/kube-sim/index.ts";
import { loadRegistry, localCluster } from "../../../local/registry-loader.ts";
import { type LocalDynamo, startDynalite } from "../../support/dynalite.ts";
import { CLUSTER, NS, scenario } from "./harness.ts";

let dir: string;
let dynamo: LocalDynamo;
let sim: KubeSim;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "probe-handler-"));
  dynamo = await startDynalite();
  sim = await startKubeSim({ scenario: scenario({ rbacDeny: [{ namespace: NS, resource: "events" }] }) });
  const paths = await sim.writeKubeconfigs(dir);
  await loadRegistry({ doc: dynamo.doc, tableName: dynamo.tableNames.registry }, sim.scenario.registry, [
    localCluster(CLUSTER, paths[CLUSTER] as string),
  ]);
  for (const name of ["cursor", "identity"]) {
    const doc = { keyId: `${name}-1`, secret: randomBytes(32).toString("base64") };
    await writeFile(join(dir, `${name}.json`), JSON.stringify(doc), { mode: 0o600 });
  }
});

afterEach(async () => {
  await sim.close();
  await dynamo.close();
  await rm(dir, { recursive: true, force: true });
});

it("runs from configuration with the sample event, logs one report and writes one EMF line", async () => {
  const config = loadConfig({
    REGISTRY_TABLE: dynamo.tableNames.registry,
    STATE_TABLE: dynamo.tableNames.state,
    AUDIT_TABLE: dynamo.tableNames.audit,
    CURSOR_KEY_FILE: join(dir, "cursor.json"),
    IDENTITY_KEY_FILE: join(dir, "identity.json"),
    ALLOW_INSECURE_CLUSTERS: "true",
    DYNAMODB_ENDPOINT: dynamo.endpoint,
  });
  const logger = new Logger({ serviceName: "runtime-logs-test" });
  const info = vi.spyOn(logger, "info").mockImplementation(() => {});
  const handler = createProbeHandler({
    logger,
    deps: async () => buildProbeDeps(buildServiceDeps(config, logger)),
  });
  const event = JSON.parse(await readFile("events/health-probe.json", "utf8"));
  const context = { getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

  // Powertools writes the EMF document to stdout, as Lambda expects; capture it there.
  const metrics: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    const text = String(chunk);
    if (text.includes('"_aws"')) metrics.push(text.trim());
    return true;
  });
  let report: ProbeReport;
  try {
    report = (await handler(event, context)) as ProbeReport;
  } finally {
    write.mockRestore();
  }

  expect(report.report).toBe("runtime-logs.health-probe");
  expect(report.budgetMs).toBe(50_000);
  expect(report.checks.stores).toMatchObject({
    status: "ok",
    keys: { status: "ok" },
    tables: [
      { table: "registry", status: "ok" },
      { table: "state", status: "ok" },
      { table: "audit", status: "ok" },
    ],
  });
  expect(report.checks.clusters.clusters[0]?.namespaces[0]?.missing).toEqual(["list events"]);
  // Events denied: the deployment is still observed, without Events, and the check says so.
  expect(report.checks.restarts).toMatchObject({
    deployments: 1,
    observed: 1,
    withoutEvents: 1,
    status: "degraded",
  });
  expect(report.status).toBe("failed");

  const reportLogs = info.mock.calls.filter(([message]) => message === "health probe report");
  expect(reportLogs).toHaveLength(1);
  expect(metrics).toHaveLength(1);
  const emf = JSON.parse(metrics[0] as string);
  expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe("RuntimeLogs");
  expect(emf).toMatchObject({ ProbeFailures: expect.any(Number), ClusterPermissionsMissing: 1 });
  expect(emf.ProbeFailures).toBeGreaterThanOrEqual(1);
});
