/**
 * `npm start` as a user runs it: local/main.ts in a child process on an ephemeral port. It prints
 * the actual URL, writes stack.json before /health answers, and on SIGTERM exits 0 and removes it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPO_ROOT } from "../../../local/stack/index.ts";
import { isAlive } from "../../../local/stack/stack-file.ts";
import { SMALL_SCENARIO } from "./fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "local-main-test-"));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** Resolves with everything printed once `pattern` appears on stdout (or rejects if the child exits). */
function waitForOutput(proc: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    proc.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    proc.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      if (pattern.test(out)) resolve(out);
    });
    proc.once("exit", (code) => reject(new Error(`exited early with ${code}: ${err}`)));
  });
}

it("starts, serves /health, and stops cleanly on SIGTERM", async () => {
  const scenarioFile = join(root, "scenario.json");
  writeFileSync(scenarioFile, JSON.stringify(SMALL_SCENARIO));
  const stateDir = join(root, "state");
  const stackFile = join(stateDir, "stack.json");
  const started = performance.now();
  child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs"),
      join(REPO_ROOT, "local/main.ts"),
      "--port",
      "0",
      "--scenario",
      scenarioFile,
      "--state-dir",
      stateDir,
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  const banner = await waitForOutput(child, /Ctrl-C stops the stack/);
  const readyMs = performance.now() - started;
  console.info(`npm start equivalent: ready in ${readyMs.toFixed(0)} ms`);

  const info = JSON.parse(readFileSync(stackFile, "utf8"));
  // tsx runs the script in a child of its own: the stack file names that process.
  expect(isAlive(info.pid)).toBe(true);
  expect(info.pid).not.toBe(process.pid);
  expect(info.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
  expect(banner).toContain(info.apiUrl);
  expect(banner).toContain(
    `curl -H 'Authorization: Bearer local:alice' ${info.apiUrl}/namespaces/lab/agents/helper`,
  );
  expect(banner).toContain(
    `npx occ --endpoint ${info.apiUrl} --namespace lab --token local:alice agent logs helper`,
  );
  // The target is 5 s on an idle machine; the bound here leaves room for a busy CI runner.
  expect(readyMs).toBeLessThan(20_000);

  const health = await fetch(`${info.apiUrl}/health`);
  expect(health.status).toBe(200);

  const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
  expect(existsSync(stackFile)).toBe(false);
  expect(isAlive(info.pid)).toBe(false);
  await expect(fetch(`${info.apiUrl}/health`)).rejects.toThrow();
}, 90_000);
