/** R4 over HTTP: 429 with a numeric Retry-After after the burst; denials spend nothing. */
import { expect, it } from "vitest";
import { apiSuite, LOGS, RUNTIME, scenario } from "./support.ts";

const suite = apiSuite(() => scenario(["INFO hello"], { limits: { burst: 3, ratePerSecond: 0.01 } }));
const { get } = suite;

it("answers 429 with a numeric Retry-After after the burst, and denials spend nothing", async () => {
  // bob may read the runtime but not the logs: five denials first, which must cost nothing.
  for (let i = 0; i < 5; i++) expect((await get(`${LOGS}?source=gateway`, "bob")).status).toBe(403);
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 5; i++) {
    const reply = await get(RUNTIME, "bob");
    statuses.push(reply.status);
    if (reply.status === 429) {
      retryAfter = reply.headers.get("retry-after");
      expect(reply.json.error.code).toBe("RUNTIME_LOGS_RATE_LIMITED");
    }
  }
  expect(statuses).toEqual([200, 200, 200, 429, 429]);
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  // Buckets are per principal and Agent: alice is unaffected.
  expect((await get(`${LOGS}?source=gateway`, "alice")).status).toBe(200);
});
