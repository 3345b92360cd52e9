/**
 * The web console in headless chromium against the local stack (dynalite + kube API simulator + the
 * real handlers), in-process: load, sign-in, chooser and Pod cards, follow across appends and a
 * restart, client-side filtering, download, 403, 429, cursor recovery, 501 and "no running Pod".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openPage } from "./browser.ts";
import { choose, poll, rows, visibleRows, waitForRow } from "./helpers.ts";
import {
  AGENT,
  CLUSTER,
  consoleScenario,
  FIRST_GATEWAY_LINE,
  GW_POD,
  H_POD,
  K8S_NS,
  NS,
} from "./scenario.ts";
import { consoleSuite, RESULTS } from "./suite.ts";

const SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";

const suite = consoleSuite(consoleScenario);

const harness = { cluster: CLUSTER, namespace: K8S_NS, pod: H_POD, container: "harness" };

describe("web console", () => {
  it("loads with no failing request or console error, serves a favicon, and signs in", async () => {
    const { page, requests, consoleErrors } = await openPage(suite.browser.context);
    await page.goto(`${suite.stack.apiUrl}/`);
    await page.getByLabel("Local principal").waitFor();
    const fcp = await page.evaluate(
      () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
    );
    await page.reload();
    await page.getByLabel("Local principal").waitFor();
    const warm = await page.evaluate(
      () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
    );
    // Figures for the report, not timed assertions (the first load also starts esbuild).
    console.log(`console first-contentful-paint: ${Math.round(fcp)} ms cold, ${Math.round(warm)} ms warm`);
    const favicon = await page.evaluate(async () => {
      const href = document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href ?? "";
      const r = await fetch(href);
      return {
        status: r.status,
        type: r.headers.get("content-type"),
        size: (await r.arrayBuffer()).byteLength,
      };
    });
    expect(favicon).toMatchObject({ status: 200, type: "image/x-icon" });
    expect(favicon.size).toBeGreaterThan(0);
    // Principals only: no API read before sign-in, and nothing failed.
    expect(requests.filter((r) => r.url.pathname.startsWith("/namespaces"))).toEqual([]);
    expect(requests.filter((r) => (r.status ?? 0) >= 400)).toEqual([]);
    const options = await page.locator("#principal option").allTextContents();
    expect(options).toEqual(expect.arrayContaining(["alice", "bob", "rita"]));

    await page.getByLabel("Local principal").selectOption("alice");
    await page.getByRole("button", { name: "Sign in" }).click();
    await poll(() => page.locator("#who").textContent()).toContain("alice");
    const storage = await page.evaluate(() => ({
      session: sessionStorage.getItem("runtime-logs.token"),
      local: localStorage.length,
      cookie: document.cookie,
      tokenField: (document.getElementById("token") as HTMLInputElement).value,
    }));
    expect(storage).toEqual({ session: "local:alice", local: 0, cookie: "", tokenField: "" });
    const bundle = await page.evaluate(async () => (await (await fetch("main.js")).arrayBuffer()).byteLength);
    expect(bundle).toBeLessThan(100 * 1024);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("chooses the active deployment, shows Pod cards, follows across appends and a restart", async () => {
    const { page, consoleErrors, logReads } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice");
    await choose(page);
    await expect(page.getByLabel("Deployment", { exact: true }).inputValue()).resolves.toBe("d2");
    expect(await page.locator("#deployment option:checked").textContent()).toContain("active");
    const card = page.locator("article.pod-card", { hasText: GW_POD });
    await card.waitFor();
    expect(await card.textContent()).toContain("Running");
    expect(await card.locator(".warnings.earlier").textContent()).toContain("Liveness probe failed");
    expect(await page.locator("article.pod-card").count()).toBe(2);

    await waitForRow(page, FIRST_GATEWAY_LINE);
    expect(await page.locator("#log-rows .withheld").count()).toBe(1);
    const text = (await page.locator("#log-rows").textContent()) ?? "";
    expect(text).toContain("[redacted:");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("Jane");
    expect(await page.getByLabel("Previous instance").isVisible()).toBe(false);

    // Follow the Harness (the Gateway's log stays as loaded for the other tests).
    await page.getByLabel("Source", { exact: true }).selectOption("agent");
    await waitForRow(page, "harness up");
    expect(await rows(page).filter({ hasText: FIRST_GATEWAY_LINE }).count()).toBe(0);
    await page.getByRole("button", { name: "Follow" }).click();
    expect(await page.locator("#follow").getAttribute("aria-pressed")).toBe("true");
    suite.stack.sim.advanceClock(1000);
    suite.stack.sim.append({ ...harness, lines: [["now", "INFO appended while following"]] });
    await waitForRow(page, "appended while following");
    expect(logReads("agent").some((r) => r.url.searchParams.has("cursor"))).toBe(true);

    suite.stack.sim.advanceClock(1000);
    suite.stack.sim.restart({ ...harness, exitCode: 137, reason: "OOMKilled" });
    suite.stack.sim.advanceClock(1000);
    suite.stack.sim.append({ ...harness, lines: [["now", "INFO new instance up"]] });
    await waitForRow(page, "new instance up");
    expect(await page.locator("#log-rows .row.restart", { hasText: "restarted" }).count()).toBe(1);
    // The stream change re-reads the runtime: the card and the previous-instance toggle follow.
    const harnessCard = page.locator("article.pod-card", { hasText: H_POD });
    await poll(() => harnessCard.locator(".restarts").first().textContent()).toMatch(/restarted 1×; last: /);
    expect(await harnessCard.textContent()).toContain("OOMKilled");
    await page.getByLabel("Previous instance").waitFor();
    const appended = await rows(page).allTextContents();
    expect(appended.filter((t) => t.includes("appended while following"))).toHaveLength(1);

    await page.screenshot({ path: join(RESULTS, "console.png"), fullPage: true });

    await page.getByLabel("Previous instance").check();
    await poll(() => page.locator("#follow").isDisabled()).toBe(true);
    await waitForRow(page, "appended while following");
    expect(await rows(page).filter({ hasText: "new instance up" }).count()).toBe(0);
    const last = logReads().at(-1)!;
    expect(last.url.searchParams.get("previous")).toBe("true");
    expect(last.url.searchParams.has("cursor")).toBe(false);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("filters by level and text on the client, without a new read", async () => {
    const { page, logReads } = await suite.openLogs("alice");
    const total = await rows(page).count();
    const reads = logReads().length;
    await page.getByRole("button", { name: "debug", exact: true }).click();
    expect(await page.getByRole("button", { name: "debug", exact: true }).getAttribute("aria-pressed")).toBe(
      "false",
    );
    await page.getByLabel("Filter text").fill("heartbeat");
    const shown = await visibleRows(page).count();
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(total);
    for (const t of await visibleRows(page).allTextContents()) {
      if (!t.includes("WITHHELD") && !t.includes("GAP")) expect(t.toLowerCase()).toContain("heartbeat");
      expect(t).not.toMatch(/DEBUG/);
    }
    expect(await page.locator("#log-count").textContent()).toBe(`Showing ${shown} of ${total} rows`);
    await page.getByLabel("Filter text").fill("");
    await page.getByRole("button", { name: "debug", exact: true }).click();
    expect(await visibleRows(page).count()).toBe(total);
    await page.waitForTimeout(400);
    expect(logReads()).toHaveLength(reads);
    await page.close();
  });

  it("pauses Follow while scrolled up and resumes at the bottom", async () => {
    const { page, logReads } = await suite.openLogs("alice");
    const scroller = page.locator("#log-scroll");
    expect(await scroller.evaluate((e) => e.scrollHeight > e.clientHeight)).toBe(true);
    await page.getByRole("button", { name: "Follow" }).click();
    await poll(() => logReads().filter((r) => r.url.searchParams.has("cursor")).length).toBeGreaterThan(0);
    await scroller.evaluate((e) => {
      e.scrollTop = 0;
    });
    await poll(() => page.locator("#follow-status").textContent()).toContain("you scrolled up");
    await page.waitForTimeout(300); // a poll already in flight may land
    const paused = logReads().length;
    await page.waitForTimeout(800);
    expect(logReads()).toHaveLength(paused);
    expect(await page.getByRole("button", { name: "Resume at the bottom" }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "Resume at the bottom" }).click();
    await poll(() => logReads().length).toBeGreaterThan(paused);
    expect(await page.locator("#follow-status").textContent()).toContain("Following");
    await page.close();
  });

  it("downloads the server's text/plain file under its filename", async () => {
    const { page, requests } = await suite.openLogs("alice");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${AGENT}-d2-gateway-${GW_POD}.log`);
    const file = join(RESULTS, "console-download.log");
    await download.saveAs(file);
    const body = readFileSync(file, "utf8");
    expect(body.startsWith(`# agent=${AGENT} deployment=d2 source=gateway pod=${GW_POD}`)).toBe(true);
    expect(body).toContain(FIRST_GATEWAY_LINE);
    expect(body).not.toContain(SECRET);
    const dl = requests.find((r) => r.url.pathname.endsWith("/runtime/logs/download"));
    expect(dl?.status).toBe(200);
    await page.close();
  });

  it("stops on 403 with the request ID and remembers the denial for that selection", async () => {
    const { page, logReads } = await openPage(suite.browser.context);
    await suite.signIn(page, "bob");
    await choose(page);
    await page.locator("article.pod-card").first().waitFor();
    const error = page.locator("#log-error");
    await poll(() => error.textContent()).toMatch(/not allowed.*FORBIDDEN.*request req_[0-9a-f-]{36}/);
    // Follow was never on: nothing "stopped".
    expect(await error.textContent()).not.toMatch(/stopped/i);
    expect(await page.locator("#follow").isDisabled()).toBe(true);
    await page.waitForTimeout(800);
    expect(logReads("gateway")).toHaveLength(1);

    await page.getByLabel("Source", { exact: true }).selectOption("agent");
    await poll(() => logReads("agent").length).toBe(1);
    await page.getByLabel("Source", { exact: true }).selectOption("gateway");
    await poll(() => error.textContent()).toContain("Refresh to try again");
    await page.waitForTimeout(400);
    expect(logReads("gateway")).toHaveLength(1);
    expect(await rows(page).count()).toBe(0);
    await page.close();
  });

  it("waits for Retry-After on 429 and keeps the rows meanwhile", async () => {
    const { page, logReads } = await suite.openLogs("rita");
    const before = await rows(page).count();
    // Keep rita's bucket empty from outside the page until the console has met a 429.
    const path = `/namespaces/${NS}/agents/${AGENT}/deployments/d2/runtime/logs?source=gateway&tailLines=1`;
    let stop = false;
    let limited = 0;
    // A few readers at once (more would contend on the bucket and meet 503 BUSY instead): on a
    // loaded machine that serves only a few reads a second the bucket still empties, slowly.
    const reader = async () => {
      for (let i = 0; i < 150 && !stop; i++) {
        try {
          const r = await fetch(`${suite.stack.apiUrl}${path}`, {
            headers: { authorization: "Bearer local:rita" },
          });
          await r.arrayBuffer();
          if (r.status === 429) limited++;
        } catch {
          // A kept-alive connection closed under load: the next read opens another.
        }
      }
    };
    const hammer = Promise.all(Array.from({ length: 4 }, reader));
    await poll(() => limited, { timeout: 30_000 }).toBeGreaterThan(0);
    const readsBefore = logReads().length;
    const sawLimit = () =>
      logReads()
        .slice(readsBefore)
        .some((r) => r.status === 429);
    // A token may free up between two of the hammer's reads: press Refresh until one is refused.
    for (let i = 0; i < 20 && !sawLimit(); i++) {
      const n = logReads().length;
      await page.getByRole("button", { name: "Refresh" }).click();
      await poll(() => logReads().length > n && logReads().at(-1)!.status !== undefined).toBe(true);
    }
    const error = page.locator("#log-error");
    let message = "";
    let rowsWhileWaiting = 0;
    try {
      await poll(async () => (message = (await error.textContent()) ?? ""), { timeout: 10_000 }).toMatch(
        /Retrying in \d+ s.*RUNTIME_LOGS_RATE_LIMITED.*request req_/,
      );
      rowsWhileWaiting = await rows(page).count();
    } finally {
      stop = true;
      await hammer;
    }
    const wait = Number(/Retrying in (\d+) s/.exec(message)?.[1]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(rowsWhileWaiting).toBe(before);
    const first429 = logReads().findIndex((r, i) => i >= readsBefore && r.status === 429);
    await poll(() => logReads().length, { timeout: 10_000 }).toBeGreaterThan(first429 + 1);
    const [limitedRead, retry] = logReads().slice(first429);
    expect(retry!.at - limitedRead!.at).toBeGreaterThanOrEqual(wait * 1000 - 100);
    await poll(() => error.isHidden()).toBe(true);
    expect(await rows(page).count()).toBeGreaterThan(0);
    await page.close();
  }, 90_000);

  it("starts one new view when the cursor is rejected", async () => {
    const { page, logReads } = await openPage(suite.browser.context);
    let tampered = 0;
    await page.route(/\/runtime\/logs\?/, async (route) => {
      const url = new URL(route.request().url());
      const cursor = url.searchParams.get("cursor");
      if (cursor && tampered === 0) {
        tampered++;
        const flip = cursor.endsWith("A") ? "B" : "A";
        url.searchParams.set("cursor", `${cursor.slice(0, -1)}${flip}`);
        await route.continue({ url: url.href });
        return;
      }
      await route.continue();
    });
    await suite.signIn(page, "alice");
    await choose(page);
    await waitForRow(page, FIRST_GATEWAY_LINE);
    await page.getByRole("button", { name: "Follow" }).click();
    await poll(() => page.locator("#log-notice").textContent()).toContain("RUNTIME_LOGS_CURSOR_INVALID");
    await poll(() => logReads().filter((r) => r.url.searchParams.has("cursor")).length).toBeGreaterThan(1);
    const reads = logReads();
    const bad = reads.findIndex((r) => r.status === 400);
    expect(bad).toBeGreaterThan(0);
    expect(reads[bad + 1]!.url.searchParams.has("cursor")).toBe(false);
    expect(reads[bad + 1]!.status).toBe(200);
    expect(reads.filter((r) => r.status === 400)).toHaveLength(1);
    expect(await page.locator("#follow").getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator("#log-error").isHidden()).toBe(true);
    const texts = await rows(page).allTextContents();
    expect(texts.filter((t) => t.includes(FIRST_GATEWAY_LINE))).toHaveLength(1);
    await page.close();
  });

  it("clears output on a selection change; says 'no running Pod' and stops on 501", async () => {
    const { page } = await suite.openLogs("alice");

    await page.getByLabel("Deployment", { exact: true }).selectOption("d1");
    await poll(() => page.locator("#pod-cards").textContent()).toContain("No running Pod");
    expect(await rows(page).count()).toBe(0);

    await page.getByLabel("Deployment", { exact: true }).selectOption("d9");
    await poll(() => page.locator("#log-error").textContent()).toMatch(
      /not available for this deployment.*NOT_IMPLEMENTED/,
    );
    expect(await page.locator("#follow").isDisabled()).toBe(true);
    expect(await rows(page).count()).toBe(0);
    await page.close();
  });
});
