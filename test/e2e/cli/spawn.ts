/**
 * Runs the built `occ` (package.json `bin.occ`, the esbuild bundle) as a child process, the way a
 * user would, and waits on what it prints. The bundle is rebuilt once per test process from the
 * current sources (atomically, so parallel test files never see half a file).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { bin: { occ: string } };
export const OCC = `${ROOT}${pkg.bin.occ}`;

let built = false;
/** Builds the bundle with the same script `npm ci` runs (`prepare`). */
export function ensureOccBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, [`${ROOT}cli/build.mjs`], { stdio: "ignore" });
  built = true;
}

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or 128 + signal number when killed). */
  exited: Promise<number>;
  /** Resolves once `predicate` holds for the output so far; rejects after `timeoutMs`. */
  until: (
    predicate: (out: { stdout: string; stderr: string }) => boolean,
    timeoutMs?: number,
  ) => Promise<void>;
}

export function startOcc(args: string[], env: Record<string, string>, cwd?: string, bin = OCC): Running {
  ensureOccBuilt();
  // Run as the bin itself (its #! line), not as `node FILE`: the executable bit is part of the contract.
  const child = spawn(bin, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    wake();
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    wake();
  });
  const exited = new Promise<number>((resolve) => {
    child.on("close", (code, signal) => {
      wake();
      resolve(code ?? (signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 255));
    });
  });
  const until: Running["until"] = (predicate, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (predicate({ stdout, stderr })) {
          done();
          resolve();
        } else if (child.exitCode !== null) {
          done();
          reject(
            new Error(
              `occ exited (${child.exitCode}) before the expected output.\nstdout:\n${stdout}\nstderr:\n${stderr}`,
            ),
          );
        }
      };
      // Conditions on the world outside the output (a proxy's request count) are re-checked too.
      const tick = setInterval(check, 100);
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for occ output.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        clearInterval(tick);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, exited, until };
}

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runOcc(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  bin = OCC,
): Promise<Finished> {
  const r = startOcc(args, env, cwd, bin);
  const code = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

/** Characters that must never reach a terminal raw. */
export const RAW_HAZARD =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
