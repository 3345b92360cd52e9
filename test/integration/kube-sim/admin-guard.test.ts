/**
 * The admin API changes the world, so it takes only JSON from loopback origins (docs/kube.md § Admin API),
 * and the `rawLog` fault serves a hostile body whatever the log query says.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KubeSim } from "../../../local/kube-sim/index.ts";
import { isJsonContentType, isLoopbackOrigin } from "../../../local/kube-sim/server.ts";
import { LOG, mainGet, startBasic } from "./helpers.ts";

let sim: KubeSim;
beforeEach(async () => {
  sim = await startBasic();
});
afterEach(async () => {
  await sim.close();
});

const appendBody = JSON.stringify({
  cluster: "main",
  namespace: "tenant-a",
  pod: "gw-0",
  container: "gateway",
  lines: [["now", "INFO written by a stranger"]],
});

async function post(path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${sim.url}/__sim${path}`, { method: "POST", headers, body });
  return { status: res.status, type: res.headers.get("content-type"), json: await res.json() };
}

describe("admin API guard", () => {
  it("refuses a cross-origin text/plain POST and changes nothing", async () => {
    const before = (await mainGet(sim, `${LOG}?timestamps=true`)).text;
    const cross = await post("/append", appendBody, {
      "content-type": "text/plain",
      origin: "https://evil.example",
    });
    expect(cross.status).toBe(403);
    expect(cross.type).toBe("application/json");
    expect(cross.json).toEqual({ ok: false, error: expect.any(String) });
    // A loopback origin with the wrong content type is still refused.
    const plain = await post("/append", appendBody, {
      "content-type": "text/plain",
      origin: "http://127.0.0.1:3000",
    });
    expect(plain.status).toBe(415);
    expect(plain.json.ok).toBe(false);
    const form = await post("/scenario", "a=b", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    // JSON from a non-loopback origin: refused too.
    const foreign = await post("/append", appendBody, {
      "content-type": "application/json",
      origin: "http://127.0.0.1.evil.example",
    });
    expect(foreign.status).toBe(403);
    expect((await mainGet(sim, `${LOG}?timestamps=true`)).text).toBe(before);
    // The same request with JSON and a loopback (or no) origin does change the log.
    const ok = await post("/append", appendBody, {
      "content-type": "application/json; charset=utf-8",
      origin: "http://localhost:8080",
    });
    expect(ok.status).toBe(200);
    expect((await mainGet(sim, `${LOG}?timestamps=true`)).text).toContain("written by a stranger");
  });

  it("every route under /__sim/ is guarded, unknown ones included", async () => {
    for (const path of ["/clock", "/fault", "/sandbox/anything", "/stats/reset"]) {
      expect((await post(path, "{}", { "content-type": "text/plain" })).status).toBe(415);
      expect((await post(path, "{}", { "content-type": "application/json", origin: "null" })).status).toBe(
        403,
      );
    }
  });

  it("origin and content-type rules", () => {
    for (const o of [undefined, "http://127.0.0.1", "https://localhost:1", "http://[::1]:65535"]) {
      expect(isLoopbackOrigin(o)).toBe(true);
    }
    for (const o of [
      "null",
      "http://10.0.0.1",
      "http://localhost.evil",
      "file://",
      "http://127.0.0.1/x",
      "",
    ]) {
      expect(isLoopbackOrigin(o)).toBe(false);
    }
    expect(isJsonContentType("Application/JSON; charset=utf-8")).toBe(true);
    expect(isJsonContentType("application/jsonx")).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
  });
});

describe("rawLog fault", () => {
  const target = { namespace: "tenant-a", pod: "gw-0", container: "gateway" };

  it("answers the body whatever the query says, over HTTP and in-process; null clears it", async () => {
    const set = await post(
      "/fault",
      JSON.stringify({ cluster: "main", rawLog: { ...target, body: "{\n", repeat: 5 } }),
      { "content-type": "application/json" },
    );
    expect(set.status).toBe(200);
    expect(set.json.faults.rawLogs).toEqual([{ ...target, bytes: 10 }]);
    const r = await mainGet(sim, `${LOG}?tailLines=1&limitBytes=3&sinceSeconds=1&timestamps=true`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("{\n".repeat(5));
    // Another container of the cluster is untouched.
    const other = await mainGet(sim, "/api/v1/namespaces/tenant-a/pods/gw-1/log?timestamps=true");
    expect(other.text).not.toContain("{\n{\n");
    sim.setFault({ cluster: "main", rawLog: { ...target, body: "x\n" } });
    expect((await mainGet(sim, LOG)).text).toBe("x\n");
    expect(sim.setFault({ cluster: "main", rawLog: null }).rawLogs).toEqual([]);
    expect((await mainGet(sim, LOG)).text).not.toBe("x\n");
  });

  it("refuses malformed and oversized raw bodies", async () => {
    const bad = await post(
      "/fault",
      JSON.stringify({ cluster: "main", rawLog: { ...target, body: "x", repeat: 0 } }),
      { "content-type": "application/json" },
    );
    expect(bad.status).toBe(400);
    expect(() =>
      sim.setFault({ cluster: "main", rawLog: { ...target, body: "x".repeat(1024), repeat: 1024 * 1024 } }),
    ).toThrow(/rawLog/);
  });
});
