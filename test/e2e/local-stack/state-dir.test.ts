/**
 * One stack per state directory: a stack file naming a live process makes a second start refuse
 * (in-process, and `npm start` itself with exit 1 and a message naming the running one); a file
 * naming a dead process is stale and replaced.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startLocalStack } from "../../../local/stack/index.ts";
import { isAlive, type StackInfo, StackInUseError } from "../../../local/stack/stack-file.ts";
import { SMALL_SCENARIO } from "./fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "local-state-dir-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
function stateDir(): string {
  const dir = join(root, `state-${++dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const stackInfo = (pid: number): StackInfo => ({
  apiUrl: "http://127.0.0.1:1",
  simUrl: "http://127.0.0.1:2",
  dynamodbEndpoint: "http://127.0.0.1:3",
  kubeconfigs: {},
  pid,
});

/** The pid of a process that has exited (and was reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  expect(isAlive(child.pid!)).toBe(false);
  return child.pid!;
}

const start = (workDir: string) =>
  startLocalStack({ scenario: SMALL_SCENARIO, port: 0, quiet: true, workDir });

describe("one stack per state directory", () => {
  it("refuses at once when the stack file names a live process, leaving the file alone", async () => {
    const dir = stateDir();
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      const file = join(dir, "stack.json");
      const text = `${JSON.stringify(stackInfo(holder.pid!))}\n`;
      writeFileSync(file, text);
      const attempt = start(dir);
      await expect(attempt).rejects.toBeInstanceOf(StackInUseError);
      await expect(attempt).rejects.toThrow(`pid ${holder.pid}`);
      expect(readFileSync(file, "utf8")).toBe(text);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("replaces a stale stack file whose process is gone", async () => {
    const dir = stateDir();
    const file = join(dir, "stack.json");
    writeFileSync(file, JSON.stringify(stackInfo(await deadPid())));
    const stack = await start(dir);
    try {
      expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
        pid: process.pid,
        apiUrl: stack.apiUrl,
      });
    } finally {
      await stack.close();
    }
  });

  it("a second stack on a running stack's directory refuses; with its own directory it starts", async () => {
    const dir = stateDir();
    const first = await start(dir);
    try {
      await expect(start(dir)).rejects.toThrow(`API ${first.apiUrl}`);
      expect((await fetch(`${first.apiUrl}/health`)).status).toBe(200);
      const second = await start(stateDir());
      await second.close();
    } finally {
      await first.close();
    }
  });

  it("npm start on a directory in use exits 1 and names the running stack", async () => {
    const dir = stateDir();
    const first = await start(dir);
    try {
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs"),
          join(REPO_ROOT, "local/main.ts"),
          "--port",
          "0",
          "--state-dir",
          dir,
        ],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(`another local stack (pid ${process.pid}, API ${first.apiUrl})`);
      expect(stderr).toContain("--state-dir");
      expect(JSON.parse(readFileSync(join(dir, "stack.json"), "utf8")).pid).toBe(process.pid);
    } finally {
      await first.close();
    }
  }, 60_000);
});
