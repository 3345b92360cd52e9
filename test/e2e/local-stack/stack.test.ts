/**
 * The local stack started in-process on port 0 with a small scenario and a temp data dir: /health
 * answers with the contract headers, stack.json is written with the right fields (and removed on
 * close), the tables and the registry are in dynalite, the keys are on disk and kept across a
 * restart with the same data dir, and the local-only routes answer.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV } from "../../../lib/config.ts";
import { createDynamo, localDynamoOptions } from "../../../lib/state/dynamo.ts";
import { LOCAL_TABLE_NAMES } from "../../../local/stack/dynamo.ts";
import { type LocalStack, lambdaEnvFileFor, startLocalStack } from "../../../local/stack/index.ts";
import { SMALL_SCENARIO } from "./fixtures.ts";

let root: string;
let stack: LocalStack;

const paths = () => ({ workDir: join(root, "work"), dataDir: join(root, "data") });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "local-stack-test-"));
  stack = await startLocalStack({ scenario: SMALL_SCENARIO, port: 0, quiet: true, ...paths() });
});

afterAll(async () => {
  await stack?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("the local stack", () => {
  it("answers /health with 200 and the contract headers", async () => {
    const res = await fetch(`${stack.apiUrl}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f-]{36}$/);
    const body = (await res.json()) as { meta: { requestId: string } };
    expect(body.meta.requestId).toBe(res.headers.get("x-request-id"));
  });

  it("wrote stack.json with its endpoints, kubeconfigs and pid", async () => {
    const info = JSON.parse(readFileSync(stack.stackFile, "utf8"));
    expect(stack.stackFile).toBe(join(paths().workDir, "stack.json"));
    expect(Object.keys(info).sort()).toEqual(["apiUrl", "dynamodbEndpoint", "kubeconfigs", "pid", "simUrl"]);
    expect(info.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    expect(info.apiUrl).toBe(stack.apiUrl);
    expect(info.simUrl).toBe(stack.sim.url);
    expect(info.dynamodbEndpoint).toBe(stack.dynamodbEndpoint);
    expect(info.pid).toBe(process.pid);
    expect(Object.keys(info.kubeconfigs)).toEqual(["kind-a"]);
    const kubeconfig = readFileSync(info.kubeconfigs["kind-a"], "utf8");
    expect(kubeconfig).toContain(`${stack.sim.url}/clusters/kind-a`);
    expect(info.kubeconfigs["kind-a"].startsWith(join(paths().workDir, "kubeconfigs"))).toBe(true);
    // The simulator really serves that cluster.
    const version = await fetch(`${stack.sim.url}/clusters/kind-a/version`, {
      headers: { authorization: `Bearer ${stack.sim.token("kind-a")}` },
    });
    expect(version.status).toBe(200);
  });

  it("created the three tables and loaded the registry from the scenario", async () => {
    const { client, doc } = createDynamo(localDynamoOptions(stack.dynamodbEndpoint));
    try {
      const tables = await client.send(new ListTablesCommand({}));
      expect(tables.TableNames?.sort()).toEqual(Object.values(LOCAL_TABLE_NAMES).sort());
      const grant = await doc.send(
        new GetCommand({
          TableName: LOCAL_TABLE_NAMES.registry,
          Key: { pk: "PRINCIPAL#alice", sk: "NS#lab#AGENT#*" },
        }),
      );
      expect(grant.Item).toBeDefined();
      const cluster = await doc.send(
        new GetCommand({ TableName: LOCAL_TABLE_NAMES.registry, Key: { pk: "CLUSTER#kind-a", sk: "META" } }),
      );
      expect(cluster.Item?.kubeconfigRef).toBe(`file:${stack.kubeconfigs["kind-a"]}`);
    } finally {
      client.destroy();
    }
  });

  it("set the functions' environment and wrote owner-only key files", () => {
    const env = stack.environment;
    expect(process.env[ENV.dynamodbEndpoint]).toBe(stack.dynamodbEndpoint);
    expect(env[ENV.allowInsecureClusters]).toBe("true");
    expect(env[ENV.registryTable]).toBe(LOCAL_TABLE_NAMES.registry);
    expect(env.AWS_ACCESS_KEY_ID).toBe("local");
    for (const file of [env[ENV.cursorKeyFile]!, env[ENV.identityKeyFile]!]) {
      expect(file.startsWith(join(paths().workDir, "keys"))).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const key = JSON.parse(readFileSync(file, "utf8"));
      expect(key.keyId).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
      expect(Buffer.from(key.secret, "base64").length).toBeGreaterThanOrEqual(32);
    }
    expect(readFileSync(env[ENV.cursorKeyFile]!, "utf8")).not.toBe(
      readFileSync(env[ENV.identityKeyFile]!, "utf8"),
    );
    const saved = JSON.parse(readFileSync(lambdaEnvFileFor(stack.stackFile), "utf8"));
    expect(saved).toEqual({ pid: process.pid, environment: env });
  });

  it("lists the granted principals, serves the favicon, and 404s unknown routes like API Gateway", async () => {
    expect(await (await fetch(`${stack.apiUrl}/__local/principals`)).json()).toEqual({
      principals: ["alice", "bob"],
    });
    const icon = await fetch(`${stack.apiUrl}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/x-icon");
    for (const [method, path] of [
      ["GET", "/nope"],
      ["POST", "/health"],
      ["GET", "/namespaces/lab"],
    ] as const) {
      const res = await fetch(`${stack.apiUrl}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({ message: "Not Found" });
    }
  });

  it("serves the console (or the not-built page) at /", async () => {
    const res = await fetch(`${stack.apiUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
  });

  it("reloads the registry and principals with a new scenario", async () => {
    const next = structuredClone(SMALL_SCENARIO);
    next.registry.grants = [{ principalId: "carol", namespaceId: "lab", actions: ["read"] }];
    await stack.reloadScenario(next);
    expect(await (await fetch(`${stack.apiUrl}/__local/principals`)).json()).toEqual({
      principals: ["carol"],
    });
    const { client, doc } = createDynamo(localDynamoOptions(stack.dynamodbEndpoint));
    try {
      const get = (pk: string, sk: string) =>
        doc.send(new GetCommand({ TableName: LOCAL_TABLE_NAMES.registry, Key: { pk, sk } }));
      expect((await get("PRINCIPAL#carol", "NS#lab#AGENT#*")).Item).toBeDefined();
      expect((await get("PRINCIPAL#alice", "NS#lab#AGENT#*")).Item).toBeUndefined();
    } finally {
      client.destroy();
    }
    expect(JSON.parse(readFileSync(stack.stackFile, "utf8")).kubeconfigs).toEqual(stack.kubeconfigs);
  });

  it("removes stack.json on close and keeps keys and tables across a restart with the same data dir", async () => {
    const keyBefore = readFileSync(stack.environment[ENV.cursorKeyFile]!, "utf8");
    const { apiUrl, stackFile } = stack;
    await stack.close();
    expect(existsSync(stackFile)).toBe(false);
    expect(existsSync(lambdaEnvFileFor(stackFile))).toBe(false);
    await expect(fetch(`${apiUrl}/health`)).rejects.toThrow();

    stack = await startLocalStack({ scenario: SMALL_SCENARIO, port: 0, quiet: true, ...paths() });
    expect(readFileSync(stack.environment[ENV.cursorKeyFile]!, "utf8")).toBe(keyBefore);
    expect((await fetch(`${stack.apiUrl}/health`)).status).toBe(200);
    const { client } = createDynamo(localDynamoOptions(stack.dynamodbEndpoint));
    try {
      expect((await client.send(new ListTablesCommand({}))).TableNames).toHaveLength(3);
    } finally {
      client.destroy();
    }
  });

  it("regenerates the keys without a data dir and cleans up its private work dir", async () => {
    const workDir = join(root, "work-ephemeral");
    const keyOf = async () => {
      const s = await startLocalStack({ scenario: SMALL_SCENARIO, port: 0, quiet: true, workDir });
      const key = JSON.parse(readFileSync(s.environment[ENV.cursorKeyFile]!, "utf8")).secret as string;
      await s.close();
      return key;
    };
    expect(await keyOf()).not.toBe(await keyOf());
    const temp = await startLocalStack({ scenario: SMALL_SCENARIO, port: 0, quiet: true });
    expect(existsSync(temp.stackFile)).toBe(true);
    await temp.close();
    expect(existsSync(temp.workDir)).toBe(false);
  });
});
