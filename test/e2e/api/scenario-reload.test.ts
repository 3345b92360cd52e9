/**
 * `POST /__sim/scenario` replaces everything the local stack derived from the scenario: the
 * registry and grants the handlers read, and the limiter's limits, effective on the next request.
 */
import { expect, it } from "vitest";
import { simAdmin } from "../../support/sim-admin.ts";
import { apiSuite, HIGH_LIMITS, LOGS, RUNTIME, scenario } from "./support.ts";

const suite = apiSuite(() => scenario(["INFO before"], { limits: HIGH_LIMITS }));
const { get } = suite;

it("follows a scenario replaced through the simulator's admin API", async () => {
  expect((await get(RUNTIME, "alice")).status).toBe(200);
  const next = scenario(["INFO after"], { limits: { burst: 1, ratePerSecond: 0.01 } });
  next.registry.grants = [
    { principalId: "zed", namespaceId: "acme", actions: ["read", "operate", "read_logs"] },
  ];
  await simAdmin(suite.stack).scenario(next);
  expect((await get(RUNTIME, "alice")).status).toBe(403);
  const page = await get(`${LOGS}?source=gateway`, "zed");
  expect(page.status).toBe(200);
  expect(page.text).toContain("INFO after");
  // The new limits apply too: a burst of one.
  expect((await get(`${LOGS}?source=gateway`, "zed")).status).toBe(429);
});
