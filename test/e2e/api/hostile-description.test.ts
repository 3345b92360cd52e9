/**
 * R9 through the simulator: a cluster whose Pod list repeats a UID is not describing real Pods.
 * Status and logs answer 503 RUNTIME_LOGS_UNAVAILABLE rather than guessing which Pod is meant.
 */
import { describe, expect, it } from "vitest";
import { apiSuite, GW_UID, LOGS, RUNTIME, scenario } from "./support.ts";

const suite = apiSuite(() => {
  const raw = scenario(["INFO hello"]);
  const pods = raw.clusters[0]?.namespaces[0]?.pods as Record<string, unknown>[];
  const twin = structuredClone(pods[0]) as Record<string, unknown>;
  // A second gateway Pod of another name that claims the first one's UID.
  pods.push({ ...twin, name: "gw-1", uid: GW_UID, createdAt: "now-30m" });
  return raw;
});
const { get } = suite;

describe("a Pod list that repeats a UID", () => {
  it("makes status and logs unavailable, with the fixed message only", async () => {
    for (const path of [RUNTIME, `${LOGS}?source=gateway`, `${LOGS}/download?source=gateway`]) {
      const reply = await get(path);
      expect(reply.status).toBe(503);
      expect(reply.json.error.code).toBe("RUNTIME_LOGS_UNAVAILABLE");
      expect(reply.text).not.toContain(GW_UID);
    }
  });

  it("still serves the other role, whose list is sound", async () => {
    expect((await get(`${LOGS}?source=agent`)).status).toBe(200);
  });
});
