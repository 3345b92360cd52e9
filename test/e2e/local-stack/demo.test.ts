/**
 * The first run: `npm start`'s demo scenario and the commands its banner prints. Every `curl`
 * line of the banner is split into words by a real POSIX shell (so its quoting is what a user
 * pastes) and sent; the answers must show what the product promises: secrets of several classes
 * masked, a withheld chat line, an error burst, a restart with its attribution, Events, a second
 * cluster, a crash-looping Harness, a follower that reports the gap of a restart, and the sandbox's
 * policy decisions with a denial appended live.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SCENARIO, type LocalStack, startLocalStack } from "../../../local/stack/index.ts";

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({ scenario: DEFAULT_SCENARIO, port: 0, quiet: true });
});
afterAll(async () => {
  await stack?.close();
});

/** The words a POSIX shell makes of one command line. */
function shellWords(line: string): string[] {
  const out = execFileSync("sh", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

interface Curl {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The banner's `curl` commands, as requests (only the flags the banner uses are understood). */
function bannerCurls(banner: string): Curl[] {
  return banner
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("curl "))
    .map((l) => {
      const words = shellWords(l.slice("curl ".length));
      const curl: Curl = { method: "GET", url: "", headers: {} };
      for (let i = 0; i < words.length; i++) {
        const w = words[i]!;
        if (w === "-H") {
          const h = words[++i]!;
          const colon = h.indexOf(":");
          curl.headers[h.slice(0, colon).toLowerCase()] = h.slice(colon + 1).trim();
        } else if (w === "-X") curl.method = words[++i]!;
        else if (w === "-d") curl.body = words[++i]!;
        else if (w.startsWith("-"))
          throw new Error(`the banner uses a curl flag this test does not know: ${w}`);
        else curl.url = w;
      }
      return curl;
    });
}

async function send(c: Curl): Promise<{ status: number; json: unknown }> {
  const res = await fetch(c.url, {
    method: c.method,
    headers: c.headers,
    ...(c.body !== undefined ? { body: c.body } : {}),
  });
  return { status: res.status, json: await res.json() };
}

interface PageRecord {
  type: string;
  time: string | null;
  level?: string;
  message?: string;
  count?: number;
  reason?: string;
}

/** Every secret the demo plants, as written in the scenario (none may leave the service). */
const PLANTED = [
  "Tr0ub4dor-and-3",
  "Zq8pL2vX9kWmT4",
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdXBwb3J0IiwiZXhwIjoxNzAwMDAwMDAwfQ",
  "sk-proj-4f8Kq2ZxT9mWbLr7VnC3sD1eYh6Jp0Ua",
  "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oOMN4gm7jJEkoAoGCCqGSM49",
  "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
  "hunter2",
  "sk-ant-api03-Zq8XyW7vU6tS5rR4qP3oN2mL1kJ0iH9g",
  "U024BE7LH",
  "agent:support:slack:C0451",
  "refund policy",
];

describe("the demo scenario through the banner's commands", () => {
  it("plants every secret the demo promises to mask (the scenario itself)", () => {
    const text = readFileSync(DEFAULT_SCENARIO, "utf8");
    for (const secret of PLANTED) expect(text).toContain(secret);
  });

  it("answers every curl of the banner, and the gateway page shows the product at work", async () => {
    const curls = bannerCurls(stack.banner).filter((c) => c.method === "GET");
    expect(curls.length).toBeGreaterThanOrEqual(4);
    const bodies: string[] = [];
    for (const c of curls) {
      const { status, json } = await send(c);
      expect(status, c.url).toBe(200);
      bodies.push(JSON.stringify(json));
    }
    for (const body of bodies) for (const secret of PLANTED) expect(body).not.toContain(secret);

    const logs = curls.find((c) => new URL(c.url).pathname.endsWith("/runtime/logs"));
    expect(logs).toBeDefined();
    const page = ((await send(logs!)).json as { data: { records: PageRecord[]; withheld: number } }).data;
    const masked = new Set(
      page.records.flatMap((r) =>
        [...(r.message ?? "").matchAll(/\[redacted:([a-z-]+)\]/g)].map((m) => m[1]),
      ),
    );
    for (const kind of ["key-value", "userinfo", "jwt", "token", "pem"]) expect(masked).toContain(kind);
    // The chat line the Gateway printed as JSON is withheld, counted, never shown.
    expect(page.withheld).toBeGreaterThanOrEqual(1);
    expect(page.records.some((r) => r.type === "withheld" && r.reason === "unrecognised_structured")).toBe(
      true,
    );
    // An error burst: at least five errors within one second.
    const errors = page.records
      .filter((r) => r.type === "line" && r.level === "error")
      .map((r) => Date.parse(r.time!));
    expect(errors.some((t) => errors.filter((u) => u >= t && u - t <= 1000).length >= 5)).toBe(true);
  });

  it("the runtime shows the OOM-killed Gateway's attribution, the agent's in-process restart and Events", async () => {
    const runtime = bannerCurls(stack.banner).find((c) => new URL(c.url).pathname.endsWith("/runtime"))!;
    const { data } = (await send(runtime)).json as {
      data: {
        pods: Array<{ role: string; events: Array<{ type: string }> }>;
        restarts: Array<{ scope: string; trigger: { category: string; confidence: string } }>;
      };
    };
    expect(data.restarts).toContainEqual(
      expect.objectContaining({
        scope: "container-restart",
        trigger: expect.objectContaining({ category: "oom", confidence: "confirmed" }),
      }),
    );
    expect(data.restarts).toContainEqual(
      expect.objectContaining({
        scope: "in-process",
        trigger: expect.objectContaining({ category: "config-write" }),
      }),
    );
    expect(data.pods.flatMap((p) => p.events).some((e) => e.type === "Warning")).toBe(true);
  });

  it("a second Agent runs across two clusters, its Harness crash-looping", async () => {
    const runtime = bannerCurls(stack.banner).find((c) => new URL(c.url).pathname.endsWith("/runtime"))!;
    const url = runtime.url.replace(
      /\/agents\/[^/]+\/deployments\/[^/]+\//,
      "/agents/research/deployments/r1/",
    );
    const { status, json } = await send({ ...runtime, url });
    expect(status).toBe(200);
    const { data } = json as {
      data: {
        pods: Array<{
          role: string;
          cluster: string;
          containers: Array<{ state: string; reason: string | null; restartCount: number }>;
        }>;
      };
    };
    expect(new Set(data.pods.map((p) => p.cluster))).toEqual(new Set(["control", "execution"]));
    const harness = data.pods.find((p) => p.role === "agent")?.containers[0];
    expect(harness).toMatchObject({ state: "waiting", reason: "CrashLoopBackOff" });
    expect(harness?.restartCount).toBeGreaterThan(0);
  });

  it("the banner's restart command replaces the followed instance: the next poll reports the gap", async () => {
    const logs = bannerCurls(stack.banner).find((c) => new URL(c.url).pathname.endsWith("/runtime/logs"))!;
    const first = ((await send(logs)).json as { data: { cursor: string } }).data;
    const restart = bannerCurls(stack.banner).find((c) => c.method === "POST");
    expect(restart?.url).toBe(`${stack.simUrl}/__sim/restart`);
    expect((await send(restart!)).status).toBe(200);
    const poll = new URL(logs.url);
    poll.search = new URLSearchParams({ source: "gateway", cursor: first.cursor }).toString();
    const next = ((await send({ ...logs, url: poll.href })).json as { data: { records: PageRecord[] } }).data;
    expect(next.records[0]).toMatchObject({ type: "gap", reason: "stream_replaced" });
  });

  it("the sandbox page shows denied connections with their fields; the banner's append reaches a follower", async () => {
    const sandbox = bannerCurls(stack.banner).find(
      (c) => new URL(c.url).searchParams.get("source") === "sandbox",
    );
    expect(sandbox).toBeDefined();
    type SandboxRecord = PageRecord & { fields?: Record<string, string>; format?: string };
    const first = ((await send(sandbox!)).json as { data: { records: SandboxRecord[]; cursor: string } })
      .data;
    const denied = first.records.filter((r) => r.fields?.action === "deny");
    expect(denied.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(denied[0]!.fields!)).toEqual([
      "action",
      "dst_host",
      "dst_port",
      "binary",
      "policy",
      "reason",
    ]);
    expect(first.records.some((r) => r.format === "ocsf")).toBe(true);
    expect(first.records.some((r) => r.level === "error")).toBe(true);
    expect(first.records.some((r) => r.fields?.api_key === "[redacted:key-value]")).toBe(true);

    const append = bannerCurls(stack.banner).find((c) => c.url.endsWith("/__sim/sandbox/append"));
    expect((await send(append!)).status).toBe(200);
    const poll = new URL(sandbox!.url);
    poll.search = new URLSearchParams({ source: "sandbox", cursor: first.cursor }).toString();
    const next = (
      (await send({ ...sandbox!, url: poll.href })).json as { data: { records: SandboxRecord[] } }
    ).data;
    expect(next.records.map((r) => [r.message, r.fields?.action])).toEqual([
      ["CONNECT pastebin.com:443", "deny"],
    ]);
  });
});
