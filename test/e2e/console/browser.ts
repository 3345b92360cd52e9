/**
 * Headless Chromium (Debian's, else the one an npm package ships: test/support/chromium.ts) driven
 * by playwright-core, with request/console bookkeeping per page. These tests are never skipped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page, type Request } from "playwright-core";
import { findChromium } from "../../support/chromium.ts";

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  const found = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), "console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: found.executablePath,
    headless: true,
    args: found.args,
    ...(found.env ? { env: found.env } : {}),
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface Seen {
  method: string;
  url: URL;
  at: number;
  status?: number;
}

/** A fresh tab (fresh sessionStorage) that records its requests, console errors and page errors. */
export async function openPage(context: BrowserContext) {
  const page: Page = await context.newPage();
  const requests: Seen[] = [];
  const byRequest = new Map<Request, Seen>();
  const consoleErrors: string[] = [];
  page.on("request", (r) => {
    const seen = { method: r.method(), url: new URL(r.url()), at: Date.now() };
    byRequest.set(r, seen);
    requests.push(seen);
  });
  page.on("response", (r) => {
    const seen = byRequest.get(r.request());
    if (seen) seen.status = r.status();
  });
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
  /** Log-page reads (not downloads) made so far, optionally for one source. */
  const logReads = (source?: string) =>
    requests.filter(
      (r) =>
        r.url.pathname.endsWith("/runtime/logs") && (!source || r.url.searchParams.get("source") === source),
    );
  return { page, requests, consoleErrors, logReads };
}
