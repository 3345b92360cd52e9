/**
 * The admin API over HTTP (docs/kube.md § Admin API): JSON bodies mapped onto the in-process
 * operations. Answers `{ok: true, …}` or `{ok: false, error, issues?}` with a 4xx status.
 */

import { SandboxSimError } from "../openshell-sim/world.ts";
import { ScenarioError } from "../scenario/schema.ts";
import type { ApiResponse } from "./cluster-api.ts";
import type { SimStats } from "./server.ts";
import { SimError } from "./world.ts";

/** The operations the admin API exposes (implemented by KubeSim). */
export interface AdminOperations {
  loadScenario(raw: unknown): unknown;
  append(input: unknown): unknown;
  restart(input: unknown): unknown;
  replacePod(input: unknown): unknown;
  addEvent(input: unknown): unknown;
  setClock(now: string): unknown;
  advanceClock(ms: number): unknown;
  setFault(input: unknown): unknown;
  stats(): SimStats;
  resetStats(): void;
  nowText(): string;
  /**
   * `POST /sandbox/{op}`: the OpenShell simulator's admin operations (docs/admin-api.md § Sandbox
   * routes), served here so both simulators share one `simUrl` and one guard. Absent: no sandbox.
   */
  sandbox?: (op: string, body: unknown) => unknown;
}

const reply = (status: number, body: unknown): ApiResponse => ({
  status,
  contentType: "application/json",
  body: JSON.stringify(body),
});

function clockInput(body: unknown): { now: string } | { advanceMs: number } {
  if (typeof body === "object" && body !== null) {
    const keys = Object.keys(body);
    const b = body as Record<string, unknown>;
    if (keys.length === 1 && typeof b.now === "string") return { now: b.now };
    if (keys.length === 1 && typeof b.advanceMs === "number") return { advanceMs: b.advanceMs };
  }
  throw new SimError(400, "clock: expected exactly one of {now: time} or {advanceMs: number}");
}

export async function handleAdmin(
  ops: AdminOperations,
  method: string,
  path: string,
  text: string,
): Promise<ApiResponse> {
  try {
    if (method === "GET" && path === "/stats") return reply(200, ops.stats());
    if (method === "GET" && path === "/clock") return reply(200, { now: ops.nowText() });
    if (method !== "POST") return reply(405, { ok: false, error: "method not allowed" });
    if (path === "/stats/reset") {
      ops.resetStats();
      return reply(200, { ok: true });
    }
    let body: unknown;
    try {
      body = text === "" ? {} : JSON.parse(text);
    } catch {
      return reply(400, { ok: false, error: "the body is not valid JSON" });
    }
    if (path.startsWith("/sandbox/")) {
      if (!ops.sandbox) return reply(404, { ok: false, error: "the scenario has no OpenShell gateways" });
      return reply(200, { ok: true, ...(ops.sandbox(path.slice("/sandbox/".length), body) as object) });
    }
    switch (path) {
      case "/scenario":
        await ops.loadScenario(body);
        return reply(200, { ok: true });
      case "/append":
        return reply(200, { ok: true, ...(ops.append(body) as object) });
      case "/restart":
        return reply(200, { ok: true, ...(ops.restart(body) as object) });
      case "/replace-pod":
        return reply(200, { ok: true, ...(ops.replacePod(body) as object) });
      case "/event":
        return reply(200, { ok: true, ...(ops.addEvent(body) as object) });
      case "/clock": {
        const c = clockInput(body);
        const result = "now" in c ? ops.setClock(c.now) : ops.advanceClock(c.advanceMs);
        return reply(200, { ok: true, ...(result as object) });
      }
      case "/fault":
        return reply(200, { ok: true, faults: ops.setFault(body) });
      default:
        return reply(404, { ok: false, error: `no admin operation ${path}` });
    }
  } catch (e) {
    if (e instanceof ScenarioError) return reply(400, { ok: false, error: e.message, issues: e.issues });
    if (e instanceof SimError || e instanceof SandboxSimError) {
      return reply(e.status, { ok: false, error: e.message });
    }
    return reply(500, { ok: false, error: "admin operation failed" });
  }
}
