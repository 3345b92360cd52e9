/**
 * P3 (docs/quality.md): a route that never talks to a cluster does not load the Kubernetes client.
 * A fresh Node process imports the `/health` function as Lambda would, answers `/health`, and a hook
 * reports every module Node loaded; then, as a control that the hook sees the client when it does
 * load, the same process makes the driver load it.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const HOOK = fileURLToPath(new URL("./module-log-hook.mjs", import.meta.url));

const SCRIPT = `
const { writeSync } = await import("node:fs");
const mark = (m) => writeSync(3, "MARK " + m + "\\n");
const { handler } = await import(${JSON.stringify(join(ROOT, "functions/health.ts"))});
const event = JSON.parse((await import("node:fs")).readFileSync(${JSON.stringify(join(ROOT, "events/status.json"))}, "utf8"));
const health = { ...event, routeKey: "GET /health", rawPath: "/health", pathParameters: undefined };
const context = { awsRequestId: "c0ffee00-0000-4000-8000-000000000000", functionName: "status", getRemainingTimeInMillis: () => 10000 };
const res = await handler(health, context);
mark("health " + res.statusCode);
await import(${JSON.stringify(join(ROOT, "lib/kube/driver.ts"))});
mark("driver loaded");
`;

function run(): Promise<{ lines: string[]; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--import", HOOK, "--input-type=module", "-e", SCRIPT],
      {
        cwd: ROOT,
        stdio: ["ignore", "ignore", "pipe", "pipe"],
        env: {
          PATH: process.env.PATH ?? "",
          RUNTIME_LOGS_ENABLED: "true",
          REGISTRY_TABLE: "registry",
          STATE_TABLE: "state",
          AUDIT_TABLE: "audit",
          CURSOR_KEY_SECRET: "arn:aws:secretsmanager:us-east-1:000000000000:secret:cursor",
          IDENTITY_KEY_SECRET: "arn:aws:secretsmanager:us-east-1:000000000000:secret:identity",
          AWS_REGION: "us-east-1",
          AWS_ACCESS_KEY_ID: "test",
          AWS_SECRET_ACCESS_KEY: "test",
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        },
      },
    );
    let out = "";
    let stderr = "";
    child.stdio[3]!.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("close", (code) => resolve({ lines: out.split("\n"), stderr, code }));
  });
}

describe("cold start of the /health function", () => {
  it("answers /health without loading the Kubernetes client; the driver loads it on first use", async () => {
    const { lines, stderr, code } = await run();
    expect(code, stderr).toBe(0);
    const health = lines.indexOf("MARK health 200");
    const driver = lines.indexOf("MARK driver loaded");
    expect(health, stderr).toBeGreaterThan(0);
    expect(driver).toBeGreaterThan(health);
    const isClient = (l: string) => l.includes("/node_modules/@kubernetes/client-node/");
    // Loaded modules are URLs; the function's own modules were seen, so the hook works.
    expect(lines.slice(0, health).some((l) => l.includes("/functions/health.ts"))).toBe(true);
    expect(lines.slice(0, health).filter(isClient)).toEqual([]);
    expect(lines.slice(health, driver).some(isClient)).toBe(true);
  }, 60_000);
});
