/**
 * `occ` and the limiter, end to end: a scenario with a tiny bucket (burst 2, 0.25 token/s) makes the
 * local stack answer 429; a single read reports it (exit 1), a follow waits for Retry-After and goes on.
 */
import { describe, expect, it } from "vitest";
import { cliScenario, occSuite } from "../../support/occ-suite.ts";
import { runOcc, startOcc } from "./spawn.ts";

const suite = occSuite(() => ({
  ...cliScenario(),
  // In-flight caps raised so that concurrent reads meet the bucket, not the lease (503); one token
  // every 4 s, so a follow polling every 2 s keeps meeting an empty bucket.
  limits: { burst: 2, ratePerSecond: 0.25, principalInFlight: 16, agentInFlight: 32 },
}));

const LOGS = ["agent", "logs", "shop", "--source", "gateway", "--deployment", "d1"];

describe("rate limiting", { timeout: 120_000 }, () => {
  it("reports a 429 with its Retry-After (exit 1), then a follow waits it out and continues", async () => {
    // Four reads at once against a burst of 2: some are refused.
    const results = await Promise.all([1, 2, 3, 4].map(() => runOcc(LOGS, suite.env)));
    const refused = results.filter((r) => r.code === 1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => r.code === 0 || r.code === 1)).toBe(true);
    for (const r of refused)
      expect(r.stderr).toMatch(
        /^HTTP 429 RUNTIME_LOGS_RATE_LIMITED: [^\n]+\nRetry-After: [1-9]\d*s\nRequest ID: req_[0-9a-f-]+\n$/,
      );

    const f = startOcc([...LOGS, "--follow"], suite.env);
    await f.until(({ stderr }) => stderr.includes("occ: rate limited; retrying in"));
    await f.until(({ stdout }) => stdout.includes("hostile"));
    // Polls every 2 s against 0.25 token/s: it keeps being limited, and keeps going.
    await f.until(({ stderr }) => (stderr.match(/rate limited; retrying in (\d+)s/g) ?? []).length >= 2);
    const waits = [...f.stderr().matchAll(/rate limited; retrying in (\d+)s/g)].map((m) => Number(m[1]));
    expect(waits.every((w) => w >= 2)).toBe(true);
    f.child.kill("SIGTERM");
    expect(await f.exited).toBe(0);
    expect(f.stderr()).not.toMatch(/^HTTP /m);
  });
});
