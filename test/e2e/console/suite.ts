/**
 * What every browser suite starts with: one local stack on its own scenario and one Chromium,
 * started together before the suite and closed after it; screenshots go to `test-results/`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { type LocalStack, REPO_ROOT, startLocalStack } from "../../../local/stack/index.ts";
import { type Browser, launch, openPage } from "./browser.ts";
import { choose, POLL, signIn, waitForRow } from "./helpers.ts";
import { FIRST_GATEWAY_LINE } from "./scenario.ts";

export const RESULTS = join(REPO_ROOT, "test-results");

export type OpenedPage = Awaited<ReturnType<typeof openPage>>;

export interface ConsoleSuite {
  readonly stack: LocalStack;
  readonly browser: Browser;
  /** Signs `page` in to this suite's console as `principal` (the console's query string: `query`). */
  signIn(page: Page, principal: string, query?: string): Promise<void>;
  /**
   * A new page signed in as `principal`, on the Agent's active deployment, once its Gateway's first
   * line is shown.
   */
  openLogs(principal?: string): Promise<OpenedPage>;
}

/** Registers the suite's setup and teardown; the fields are set once `beforeAll` has run. */
export function consoleSuite(scenario: () => object): ConsoleSuite {
  const suite = {
    signIn: (page: Page, principal: string, query = POLL) =>
      signIn(page, suite.stack.apiUrl, principal, query),
    async openLogs(principal = "alice") {
      const opened = await openPage(suite.browser.context);
      await suite.signIn(opened.page, principal);
      await choose(opened.page);
      await waitForRow(opened.page, FIRST_GATEWAY_LINE);
      return opened;
    },
  } as ConsoleSuite & { stack: LocalStack; browser: Browser };
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
