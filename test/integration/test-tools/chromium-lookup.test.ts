/**
 * The Chromium lookup: a system candidate first, else the Chromium `@sparticuz/chromium` ships.
 * The packaged one is launched here whatever the machine has, so the fallback a bare machine
 * depends on is exercised on every run.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM_CANDIDATES_ENV, findChromium, systemCandidates } from "../../support/chromium.ts";

const dir = mkdtempSync(join(tmpdir(), "chromium-lookup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Chromium lookup", () => {
  it("reads the candidates from the environment; empty means none, unset means Debian's path", () => {
    expect(systemCandidates({})).toEqual(["/usr/bin/chromium"]);
    expect(systemCandidates({ [CHROMIUM_CANDIDATES_ENV]: "" })).toEqual([]);
    expect(systemCandidates({ [CHROMIUM_CANDIDATES_ENV]: "/a/chromium::/b/chrome" })).toEqual([
      "/a/chromium",
      "/b/chrome",
    ]);
  });

  it("takes the first executable candidate", async () => {
    const fake = join(dir, "chromium");
    writeFileSync(fake, "#!/bin/sh\n");
    chmodSync(fake, 0o755);
    const found = await findChromium({ candidates: [join(dir, "missing"), fake] });
    expect(found).toMatchObject({ executablePath: fake, origin: "system" });
  });

  it("launches the npm-shipped Chromium headless and renders a page with text", async () => {
    const found = await findChromium({ candidates: [] });
    expect(found.origin).toBe("npm");
    const browser = await chromium.launch({
      executablePath: found.executablePath,
      headless: true,
      args: found.args,
      ...(found.env ? { env: found.env } : {}),
    });
    try {
      const page = await browser.newPage();
      await page.setContent('<p id="t">runtime-logs</p>');
      expect(await page.textContent("#t")).toBe("runtime-logs");
      // The packaged fonts are found: the text has a width.
      const width = await page.locator("#t").evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return range.getBoundingClientRect().width;
      });
      expect(width).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
