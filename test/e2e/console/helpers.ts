/** Steps the console's browser tests share: sign in, choose the Agent, find rows. */
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { AGENT, NS } from "./scenario.ts";

export const POLL = "?poll=200";

/**
 * `expect.poll` with room for a loaded machine: a condition the console reaches in milliseconds on
 * an idle one may take seconds when every core is busy. Nothing here waits longer than it must.
 */
export const poll = <T>(fn: () => T | Promise<T>, options: { timeout?: number } = {}) =>
  expect.poll(fn, { timeout: 10_000, ...options });

export async function signIn(page: Page, apiUrl: string, principal: string, query = POLL): Promise<void> {
  await page.goto(`${apiUrl}/${query}`);
  await page.getByLabel("Local principal").selectOption(principal);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function choose(page: Page, deployment?: string): Promise<void> {
  await page.getByLabel("Namespace", { exact: true }).fill(NS);
  await page.getByLabel("Agent", { exact: true }).fill(AGENT);
  await page.getByRole("button", { name: "Show deployments" }).click();
  await poll(() => page.locator("#deployment option").count()).toBe(3);
  if (deployment) await page.getByLabel("Deployment", { exact: true }).selectOption(deployment);
}

export const rows = (page: Page) => page.locator("#log-rows > li");
export const visibleRows = (page: Page) => page.locator("#log-rows > li:not([hidden])");

export async function waitForRow(page: Page, text: string): Promise<void> {
  await page.locator("#log-rows > li", { hasText: text }).first().waitFor({ timeout: 10_000 });
}
