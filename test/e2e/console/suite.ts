/**
 * What every browser suite starts with: one local stack on its own scenario and one Chromium,
 * started together before the suite and closed after it; screenshots go to `test-results/`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type LocalStack, REPO_ROOT, startLocalStack } from "../../../local/stack/index.ts";
import { type Browser, launch } from "./browser.ts";

export const RESULTS = join(REPO_ROOT, "test-results");

export interface ConsoleSuite {
  readonly stack: LocalStack;
  readonly browser: Browser;
}

/** Registers the suite's setup and teardown; the fields are set once `beforeAll` has run. */
export function consoleSuite(scenario: () => object): ConsoleSuite {
  const suite = {} as { stack: LocalStack; browser: Browser };
  beforeAll(async () => {
    mkdirSync(RESULTS, { recursive: true });
    [suite.stack, suite.browser] = await Promise.all([
      startLocalStack({ scenario: scenario(), port: 0, quiet: true, warm: true }),
      launch(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.stack?.close();
  });
  return suite;
}
