/**
 * `POST /__sim/scenario` replaces everything the local stack derived from the scenario: the
 * registry and grants the handlers read, and the limiter's limits, effective on the next request.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { LocalStack } from "../../../local/stack/index.ts";
import { simAdmin } from "../../support/sim-admin.ts";
import { client, LOGS, RUNTIME, scenario, startStack } from "./support.ts";

let stack: LocalStack;
let get: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack(scenario(["INFO before"], { limits: { burst: 1000, ratePerSecond: 1000 } }));
  get = client(stack);
});
afterAll(async () => stack?.close());

it("follows a scenario replaced through the simulator's admin API", async () => {
  expect((await get(RUNTIME, "alice")).status).toBe(200);
  const next = scenario(["INFO after"], { limits: { burst: 1, ratePerSecond: 0.01 } });
  next.registry.grants = [
    { principalId: "zed", namespaceId: "acme", actions: ["read", "operate", "read_logs"] },
  ];
  await simAdmin(stack).scenario(next);
  expect((await get(RUNTIME, "alice")).status).toBe(403);
  const page = await get(`${LOGS}?source=gateway`, "zed");
  expect(page.status).toBe(200);
  expect(page.text).toContain("INFO after");
  // The new limits apply too: a burst of one.
  expect((await get(`${LOGS}?source=gateway`, "zed")).status).toBe(429);
});
