/** Steps the console's browser tests share: sign in, choose the Agent, find rows. */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { AGENT, NS } from "./scenario.ts";

export const POLL = "?poll=200";

export async function signIn(page: Page, apiUrl: string, principal: string, query = POLL): Promise<void> {
  await page.goto(`${apiUrl}/${query}`);
  await page.getByLabel("Local principal").selectOption(principal);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function choose(page: Page, deployment?: string): Promise<void> {
  await page.getByLabel("Namespace", { exact: true }).fill(NS);
  await page.getByLabel("Agent", { exact: true }).fill(AGENT);
  await page.getByRole("button", { name: "Show deployments" }).click();
  await expect.poll(() => page.locator("#deployment option").count(), { timeout: 10_000 }).toBe(3);
  if (deployment) await page.getByLabel("Deployment", { exact: true }).selectOption(deployment);
}

export const rows = (page: Page) => page.locator("#log-rows > li");
export const visibleRows = (page: Page) => page.locator("#log-rows > li:not([hidden])");

export async function waitForRow(page: Page, text: string): Promise<void> {
  await page.locator("#log-rows > li", { hasText: text }).first().waitFor({ timeout: 10_000 });
}
