/** Shared fixtures for the simulator tests: the fixed kube-basic scenario and a tiny HTTP client. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type KubeSim, startKubeSim } from "../../../local/kube-sim/index.ts";

export const BASIC_PATH = fileURLToPath(new URL("../../../local/scenarios/kube-basic.json", import.meta.url));
export const DEMO_PATH = fileURLToPath(new URL("../../../local/scenarios/demo.json", import.meta.url));

export function basicScenario(): Record<string, unknown> {
  return JSON.parse(readFileSync(BASIC_PATH, "utf8")) as Record<string, unknown>;
}

export function startBasic(): Promise<KubeSim> {
  return startKubeSim({ scenario: basicScenario() });
}

export interface Reply {
  status: number;
  contentType: string | null;
  text: string;
  bytes: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience for JSON bodies
  json: any;
}

export async function request(
  url: string,
  init: { token?: string | null; method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  // The admin API takes JSON only; name it unless the test sets its own.
  if (init.method === "POST" || init.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body:
      init.body === undefined ? null : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString("utf8");
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, contentType: res.headers.get("content-type"), text, bytes, json };
}

/** GET on cluster `main` of kube-basic with its token. */
export function mainGet(sim: KubeSim, path: string, token: string | null = "main-token"): Promise<Reply> {
  return request(`${sim.clusterUrl("main")}${path}`, { token });
}

export const LOG = "/api/v1/namespaces/tenant-a/pods/gw-0/log";
