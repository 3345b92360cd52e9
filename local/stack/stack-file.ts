/**
 * `.local/stack.json`: how tools, scripts and `npm run invoke` find a running local stack. Written
 * atomically before `/health` first answers; removed on exit only by the process that wrote it.
 */
import { readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "./files.ts";

export interface StackInfo {
  apiUrl: string;
  simUrl: string;
  dynamodbEndpoint: string;
  kubeconfigs: Record<string, string>;
  /** OpenShell gateways of the scenario, `{gatewayId: "host:port"}`; absent when it has none. */
  openshell?: Record<string, string>;
  pid: number;
}

export function writeStackFile(path: string, info: StackInfo): void {
  writeFileAtomic(path, `${JSON.stringify(info, null, 2)}\n`);
}

/** The parsed file, or null when it is absent or not a stack file. */
export function readStackFile(path: string): StackInfo | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const p = parsed as Record<string, unknown>;
  const ok =
    typeof p.apiUrl === "string" &&
    typeof p.simUrl === "string" &&
    typeof p.dynamodbEndpoint === "string" &&
    typeof p.kubeconfigs === "object" &&
    p.kubeconfigs !== null &&
    Number.isSafeInteger(p.pid);
  return ok ? (p as unknown as StackInfo) : null;
}

/** Whether a process with this pid exists (signal 0 probes without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes a JSON file only if its `pid` is ours (another stack may have taken it over). */
export function removeFileIfOwned(path: string, pid: number = process.pid): boolean {
  let owner: unknown;
  try {
    owner = (JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown }).pid;
  } catch {
    return false;
  }
  if (owner !== pid) return false;
  rmSync(path, { force: true });
  return true;
}

/** A stack file whose process still runs, or null. */
export function findRunningStack(path: string): StackInfo | null {
  const info = readStackFile(path);
  return info && isAlive(info.pid) ? info : null;
}

/** A live stack already owns this state directory (docs/surfaces.md § One stack per state directory). */
export class StackInUseError extends Error {
  override name = "StackInUseError";
  constructor(
    readonly stackFile: string,
    readonly running: StackInfo,
  ) {
    super(
      `another local stack (pid ${running.pid}, API ${running.apiUrl}) is running with ${stackFile}; ` +
        "stop it first, or start this one with its own --state-dir DIR (and --port N)",
    );
  }
}

/**
 * Refuses when the stack file names a live process; a file naming a dead one is stale and will be
 * replaced. Called before the stack starts anything, and again right before it writes the file.
 */
export function assertStackFileFree(path: string): void {
  const running = findRunningStack(path);
  if (running) throw new StackInUseError(path, running);
}
