/**
 * The console as an on-call operator uses it, in headless Chromium against the local stack: rows
 * that say date, time and level once, wrapping, light and dark themes, the window's width, deep
 * links that survive a reload, the status re-read while visible (and stopped by a denial), links
 * from the cards, restarts marked inline with their attribution, init containers, the copy, and
 * the backoff on a busy service.
 */
import { join } from "node:path";
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openPage } from "./browser.ts";
import { choose, poll, rows, waitForRow } from "./helpers.ts";
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

const LONG = `INFO ${Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ")}`;

/** The console scenario with a completed init container in the Harness Pod and a long line. */
function operatorScenario() {
  const s = consoleScenario();
  const pods = s.clusters[0]!.namespaces[0]!.pods as Record<string, unknown>[];
  const harnessPod = pods.find((p) => p.name === H_POD)!;
  harnessPod.containers = [
    {
      name: "workspace-init",
      init: true,
      state: { terminated: { exitCode: 0, reason: "Completed", startedAt: "now-1h", finishedAt: "now-59m" } },
      logs: { current: [["now-59m", "INFO workspace ready (412 files)"]] },
    },
    ...(harnessPod.containers as unknown[]),
  ];
  const gateway = pods.find((p) => p.name === GW_POD)!;
  const gw = (gateway.containers as { logs: { current: string[][] } }[])[0]!;
  gw.logs.current.push(["now-10s", LONG]);
  return s;
}

const suite = consoleSuite(operatorScenario);

const harness = { cluster: CLUSTER, namespace: K8S_NS, pod: H_POD, container: "harness" };
const runtimeReads = (requests: { url: URL; status?: number }[]) =>
  requests.filter((r) => r.url.pathname.endsWith("/runtime"));
const envelope = (status: number, code: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { "content-type": "application/json", "x-request-id": "req_test", ...headers },
  body: JSON.stringify({ error: { code, message: "fixed" }, meta: { requestId: "req_test" } }),
});

/** Relative luminance of a computed `rgb(…)` colour (WCAG). */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe("console for operators", () => {
  it("shows date and time once and the level once per row, and wraps long lines on demand", async () => {
    const { page, consoleErrors } = await suite.openLogs("alice");
    const row = rows(page).filter({ hasText: FIRST_GATEWAY_LINE }).first();
    expect(await row.locator("time").textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(await row.locator(".lvl").textContent()).toBe("INFO");
    expect(await row.locator(".msg").textContent()).toBe("request 0 handled");
    expect(((await row.textContent()) ?? "").match(/INFO/g)).toHaveLength(1);
    expect(await page.locator("#log-notice").textContent()).toBe("1 line withheld in this page.");
    expect(await page.locator("#log-rows .withheld").textContent()).toContain("1 line withheld");

    const long = rows(page).filter({ hasText: "word59" });
    const lineHeight = await row.evaluate((e) => e.getBoundingClientRect().height);
    const wrapped = await long.evaluate((e) => e.getBoundingClientRect().height);
    expect(wrapped).toBeGreaterThan(lineHeight * 1.8);
    const scroller = page.locator("#log-scroll");
    expect(await scroller.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    await page.getByLabel("Wrap long lines").uncheck();
    expect(await long.evaluate((e) => e.getBoundingClientRect().height)).toBeLessThan(lineHeight * 1.5);
    expect(await scroller.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
    await page.getByLabel("Wrap long lines").check();
    expect(await long.evaluate((e) => e.getBoundingClientRect().height)).toBeGreaterThan(lineHeight * 1.8);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("follows prefers-color-scheme with readable text in both themes", async () => {
    const { page } = await suite.openLogs("alice");
    const colours = () =>
      page.evaluate(() => {
        const style = (sel: string) => getComputedStyle(document.querySelector(sel) as Element);
        return {
          page: style("body").backgroundColor,
          panel: style(".panel").backgroundColor,
          text: style(".panel").color,
          log: style("#log-scroll").backgroundColor,
          row: style("#log-rows .row.line .msg").color,
        };
      });
    await page.emulateMedia({ colorScheme: "light" });
    const light = await colours();
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = await colours();
    expect(luminance(light.panel)).toBeGreaterThan(0.8);
    expect(luminance(dark.panel)).toBeLessThan(0.05);
    for (const theme of [light, dark]) {
      expect(contrast(theme.text, theme.panel)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(theme.row, theme.log)).toBeGreaterThanOrEqual(4.5);
    }
    await page.screenshot({ path: join(RESULTS, "console-dark.png") });
    await page.close();
  });

  it("uses the window's width, wide and narrow", async () => {
    const { page } = await openPage(suite.browser.context);
    await page.setViewportSize({ width: 1600, height: 900 });
    await suite.signIn(page, "alice");
    await choose(page);
    await page.locator("article.pod-card").nth(1).waitFor();
    const layout = () =>
      page.evaluate(() => {
        const cards = [...document.querySelectorAll("article.pod-card")].map((c) =>
          c.getBoundingClientRect(),
        );
        return {
          viewport: document.documentElement.clientWidth,
          page: document.documentElement.scrollWidth,
          logs: (document.getElementById("log-scroll") as HTMLElement).getBoundingClientRect().width,
          tops: cards.map((c) => Math.round(c.top)),
        };
      });
    const wide = await layout();
    expect(wide.logs).toBeGreaterThan(wide.viewport * 0.9);
    expect(wide.tops[0]).toBe(wide.tops[1]);
    await page.setViewportSize({ width: 420, height: 900 });
    const narrow = await layout();
    expect(narrow.page).toBeLessThanOrEqual(narrow.viewport);
    expect(narrow.logs).toBeGreaterThan(narrow.viewport * 0.8);
    expect(narrow.tops[1]).toBeGreaterThan(narrow.tops[0]!);
    expect(await page.getByRole("button", { name: "Follow" }).isVisible()).toBe(true);
    await page.close();
  });

  it("carries the view in the URL: a fresh page opens it, a reload keeps it", async () => {
    const first = await suite.openLogs("alice");
    await first.page.getByLabel("Source", { exact: true }).selectOption("agent");
    await waitForRow(first.page, "harness up");
    await first.page.getByLabel("Container", { exact: true }).selectOption("workspace-init");
    await waitForRow(first.page, "workspace ready");
    const link = new URL(first.page.url());
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      namespace: NS,
      agent: AGENT,
      deployment: "d2",
      source: "agent",
      pod: H_POD,
      container: "workspace-init",
    });
    await first.page.close();

    const { page, consoleErrors } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice", link.search);
    const view = async () => ({
      namespace: await page.getByLabel("Namespace", { exact: true }).inputValue(),
      deployment: await page.getByLabel("Deployment", { exact: true }).inputValue(),
      source: await page.getByLabel("Source", { exact: true }).inputValue(),
      pod: await page.getByLabel("Pod", { exact: true }).inputValue(),
      container: await page.getByLabel("Container", { exact: true }).inputValue(),
      url: page.url(),
    });
    await waitForRow(page, "workspace ready");
    const opened = await view();
    expect(opened).toEqual({
      namespace: NS,
      deployment: "d2",
      source: "agent",
      pod: H_POD,
      container: "workspace-init",
      url: link.href,
    });
    expect(await rows(page).filter({ hasText: "harness up" }).count()).toBe(0);
    await page.reload();
    await waitForRow(page, "workspace ready");
    expect(await view()).toEqual(opened);
    expect(await page.locator("#who").textContent()).toContain("alice");
    await page.screenshot({ path: join(RESULTS, "console-deeplink.png"), fullPage: true });
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("links a Gateway card to its Harness output, and a Pod-less deployment to the active one", async () => {
    const { page } = await suite.openLogs("alice");
    expect(await page.locator("#app-notice").textContent()).toBe(
      "3 deployments; the active one is selected.",
    );
    const gatewayCard = page.locator("article.pod-card", { hasText: GW_POD });
    await gatewayCard.getByRole("link", { name: "Harness output" }).click();
    await waitForRow(page, "harness up");
    expect(await page.getByLabel("Source", { exact: true }).inputValue()).toBe("agent");
    expect(new URL(page.url()).searchParams.get("pod")).toBe(H_POD);

    await page.getByLabel("Deployment", { exact: true }).selectOption("d1");
    await poll(() => page.locator("#pod-cards").textContent()).toContain("No running Pod");
    expect(await page.locator("#app-notice").textContent()).toBe(
      "3 deployments; d1 is selected (the active one is d2).",
    );
    await page.getByRole("link", { name: "the logs of the active deployment, d2" }).click();
    await waitForRow(page, FIRST_GATEWAY_LINE);
    expect(await page.getByLabel("Deployment", { exact: true }).inputValue()).toBe("d2");
    expect(new URL(page.url()).searchParams.get("deployment")).toBe("d2");
    expect(await page.locator("#app-notice").textContent()).toBe(
      "3 deployments; the active one is selected.",
    );
    await page.close();
  });

  it("shows a completed init container as completed, not as a red 'not ready'", async () => {
    const { page } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice");
    await choose(page);
    const init = page.locator("article.pod-card", { hasText: H_POD }).locator("li.container", {
      hasText: "workspace-init (init)",
    });
    await init.waitFor();
    expect(await init.textContent()).toContain("completed");
    expect(await init.textContent()).not.toContain("not ready");
    expect(await init.locator(".bad").count()).toBe(0);
    await page.getByLabel("Source", { exact: true }).selectOption("agent");
    const options = await page.locator("#container option").allTextContents();
    expect(options).toEqual(["harness", "workspace-init (init)"]);
    await page.close();
  });

  it("reads an init container through the contract's container parameter, downloads it, and links to it", async () => {
    const { page, logReads } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice");
    await choose(page);
    await page.getByLabel("Source", { exact: true }).selectOption("agent");
    await waitForRow(page, "harness up");
    expect(logReads("agent").at(-1)!.url.searchParams.has("container")).toBe(false);
    await page.getByLabel("Container", { exact: true }).selectOption("workspace-init");
    await waitForRow(page, "workspace ready (412 files)");
    const read = logReads("agent").at(-1)!;
    expect(Object.fromEntries(read.url.searchParams)).toEqual({
      source: "agent",
      pod: H_POD,
      container: "workspace-init",
    });
    expect(await rows(page).filter({ hasText: "harness up" }).count()).toBe(0);
    expect(new URL(page.url()).searchParams.get("container")).toBe("workspace-init");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${AGENT}-d2-agent-${H_POD}-workspace-init.log`);
    await page.close();
  });

  it("re-reads the status while visible and on return, and stops on a denial", async () => {
    const { page, requests } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice", "?poll=200&status=300");
    await choose(page);
    await waitForRow(page, FIRST_GATEWAY_LINE);
    await poll(() => runtimeReads(requests).length).toBeGreaterThanOrEqual(3);
    // Hidden: no reads. Shown again: one read at once.
    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
        document.dispatchEvent(new Event("visibilitychange"));
      }, hidden);
    await setHidden(true);
    await page.waitForTimeout(200); // a read already in flight may land
    const hiddenAt = runtimeReads(requests).length;
    await page.waitForTimeout(900);
    expect(runtimeReads(requests)).toHaveLength(hiddenAt);
    await setHidden(false);
    // While hidden no timer runs, so only the return itself can cause this read.
    await poll(() => runtimeReads(requests).length).toBeGreaterThan(hiddenAt);

    // A transient failure keeps the polling going (and says when the next read comes).
    let unavailable = 0;
    await page.route(/\/runtime$/, (route: Route) => {
      if (unavailable++ > 0) return route.continue();
      return route.fulfill(envelope(503, "RUNTIME_LOGS_UNAVAILABLE"));
    });
    await poll(() => page.locator("#app-error").textContent()).toMatch(
      /unavailable right now.*Retrying in 1 s/,
    );
    const afterFailure = runtimeReads(requests).filter((r) => r.status === 503).length;
    expect(afterFailure).toBe(1);
    await poll(() => unavailable).toBeGreaterThanOrEqual(3);
    await poll(() => page.locator("#app-error").isHidden()).toBe(true);
    await page.unrouteAll();

    // A denial while polling stops the polling and says so.
    await page.route(/\/runtime$/, (route: Route) => route.fulfill(envelope(403, "FORBIDDEN")));
    const error = page.locator("#app-error");
    await poll(() => error.textContent()).toContain("Status polling stopped.");
    expect(await error.textContent()).toContain("FORBIDDEN");
    await page.waitForTimeout(200);
    const stoppedAt = runtimeReads(requests).length;
    await page.waitForTimeout(900);
    expect(runtimeReads(requests)).toHaveLength(stoppedAt);
    expect(await page.locator("#runtime-status").textContent()).toContain("Status polling stopped");
    await page.close();
  });

  it("says nothing about polling when the first status read is denied", async () => {
    const { page, requests } = await openPage(suite.browser.context);
    await page.route(/\/runtime$/, (route: Route) => route.fulfill(envelope(403, "FORBIDDEN")));
    await suite.signIn(page, "alice", "?poll=200&status=300");
    await choose(page);
    const error = page.locator("#app-error");
    await poll(() => error.textContent()).toContain("not allowed");
    expect(await error.textContent()).not.toMatch(/polling stopped/i);
    await page.waitForTimeout(800);
    expect(runtimeReads(requests)).toHaveLength(1);
    await page.close();
  });

  it("stops re-reading the status when the deployment can no longer be read (404)", async () => {
    const { page, requests } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice", "?poll=200&status=300");
    await choose(page);
    await waitForRow(page, FIRST_GATEWAY_LINE);
    await poll(() => runtimeReads(requests).length).toBeGreaterThanOrEqual(2);
    await page.route(/\/runtime$/, (route: Route) => route.fulfill(envelope(404, "NOT_FOUND")));
    const error = page.locator("#app-error");
    await poll(() => error.textContent()).toContain("Status polling stopped.");
    expect(await error.textContent()).toContain("does not exist");
    await page.waitForTimeout(200);
    const stoppedAt = runtimeReads(requests).length;
    await page.waitForTimeout(900);
    expect(runtimeReads(requests)).toHaveLength(stoppedAt);
    expect(await rows(page).filter({ hasText: FIRST_GATEWAY_LINE }).count()).toBe(1);
    await page.close();
  });

  it("says Follow stopped when a denial ends a follow, and reads no more", async () => {
    const { page, logReads } = await suite.openLogs("alice");
    await page.getByRole("button", { name: "Follow" }).click();
    await poll(() => logReads("gateway").length).toBeGreaterThanOrEqual(3);
    await page.route(/\/runtime\/logs\?/, (route: Route) => route.fulfill(envelope(403, "FORBIDDEN")));
    const error = page.locator("#log-error");
    await poll(() => error.textContent()).toContain("Follow stopped.");
    expect(await error.textContent()).toContain("FORBIDDEN");
    await page.waitForTimeout(200);
    const stoppedAt = logReads("gateway").length;
    await page.waitForTimeout(800);
    expect(logReads("gateway")).toHaveLength(stoppedAt);
    expect(await rows(page).filter({ hasText: FIRST_GATEWAY_LINE }).count()).toBe(1);
    await page.close();
  });

  it("marks a restart inside a followed view with its attribution", async () => {
    const { page } = await openPage(suite.browser.context);
    await suite.signIn(page, "alice");
    await choose(page);
    await page.getByLabel("Source", { exact: true }).selectOption("agent");
    await waitForRow(page, "harness up");
    await page.getByRole("button", { name: "Follow" }).click();
    suite.stack.sim.advanceClock(1000);
    suite.stack.sim.append({ ...harness, lines: [["now", "INFO before the restart"]] });
    await waitForRow(page, "before the restart");
    suite.stack.sim.advanceClock(1000);
    suite.stack.sim.restart({ ...harness, exitCode: 137, reason: "OOMKilled" });
    suite.stack.sim.advanceClock(1000);
    suite.stack.sim.append({ ...harness, lines: [["now", "INFO after the restart"]] });
    await waitForRow(page, "after the restart");
    const marker = page.locator("#log-rows .row.restart");
    expect(await marker.count()).toBe(1);
    expect(await marker.locator(".msg").textContent()).toBe(
      "harness in h-0 restarted: lines above are the old instance, below the new one (restart 1).",
    );
    // The stream change re-reads the status; the marker then carries the attribution.
    await poll(() => marker.locator(".cause").textContent()).toMatch(/^Cause: oom\b.*OOMKilled, exit 137/);
    const order = await rows(page).allTextContents();
    const at = (t: string) => order.findIndex((r) => r.includes(t));
    expect(at("before the restart")).toBeLessThan(at("RESTART"));
    expect(at("RESTART")).toBeLessThan(at("after the restart"));
    await page.locator("#logs").screenshot({ path: join(RESULTS, "console-restart.png") });
    await page.close();
  });

  it("backs off on 503 BUSY with jitter, never sooner than Retry-After or a poll, and keeps following", async () => {
    const { page, logReads } = await openPage(suite.browser.context);
    let busy = 0;
    await page.route(/\/runtime\/logs\?/, async (route: Route) => {
      const cursor = new URL(route.request().url()).searchParams.has("cursor");
      if (cursor && busy < 3) {
        busy++;
        await route.fulfill(envelope(503, "RUNTIME_LOGS_BUSY", { "retry-after": "1" }));
        return;
      }
      await route.continue();
    });
    await suite.signIn(page, "alice");
    await choose(page);
    await waitForRow(page, FIRST_GATEWAY_LINE);
    await page.getByRole("button", { name: "Follow" }).click();
    await poll(() => page.locator("#log-error").textContent()).toMatch(/Too many reads.*Retrying in \d+ s/);
    await poll(() => logReads().filter((r) => r.status === 200).length, { timeout: 15_000 }).toBeGreaterThan(
      2,
    );
    const polls = logReads().filter((r) => r.url.searchParams.has("cursor"));
    const firstBusy = polls.findIndex((r) => r.status === 503);
    for (let i = firstBusy; i < firstBusy + 3; i++) {
      expect(polls[i]!.status).toBe(503);
      expect(polls[i + 1]!.at - polls[i]!.at).toBeGreaterThanOrEqual(1000 - 50);
    }
    expect(await page.locator("#follow").getAttribute("aria-pressed")).toBe("true");
    await poll(() => page.locator("#log-error").isHidden()).toBe(true);
    await page.close();
  });

  it("shows sandbox decisions readably: origin, allow/deny, destination, details (rendering from sample records)", async () => {
    const { page, logReads } = await openPage(suite.browser.context);
    // The status offers a sandbox source; the sandbox page is a sample of what the service sends.
    await page.route(/\/runtime$/, async (route: Route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { sources: unknown[] } };
      body.data.sources = [
        ...body.data.sources.filter((s) => (s as { id: string }).id !== "sandbox"),
        {
          id: "sandbox",
          kind: "sandbox",
          pods: [],
          available: true,
          retention: "The sandbox keeps 2000 lines.",
        },
      ];
      await route.fulfill({ response, json: body });
    });
    const t = (s: number) => `2026-12-01T08:40:0${s}.000Z`;
    const sandboxPage = {
      deploymentId: "d2",
      source: "sandbox",
      stream: { source: "sandbox", gatewayId: "os1", sandbox: "support-d2", sandboxId: "sbx-7f3a" },
      observedAt: t(9),
      withheld: 0,
      truncated: false,
      cursor: null,
      records: [
        {
          type: "line",
          time: t(1),
          kind: "sandbox",
          level: "info",
          origin: "sandbox",
          subsystem: "openshell_sandbox::proxy",
          message: "CONNECT api.github.com:443",
          fields: { action: "allow", dst_host: "api.github.com", dst_port: "443", binary: "/usr/bin/git" },
        },
        {
          type: "line",
          time: t(2),
          kind: "sandbox",
          level: "warn",
          origin: "sandbox",
          subsystem: "openshell_sandbox::proxy",
          message: "CONNECT evil.example:22",
          fields: {
            action: "deny",
            dst_host: "evil.example",
            dst_port: "22",
            binary: "/usr/bin/ssh",
            policy: "default",
            reason: "not in allowlist",
          },
        },
        {
          type: "line",
          time: t(3),
          kind: "sandbox",
          level: "info",
          origin: "gateway",
          format: "ocsf",
          subsystem: "openshell::ocsf",
          message: '{"class_uid":4001,"activity_id":1}',
        },
        {
          type: "line",
          time: t(4),
          kind: "sandbox",
          level: "error",
          origin: "sandbox",
          subsystem: "openshell_sandbox",
          message: '<img src=x onerror="window.__pwned=1">policy reload failed',
        },
      ],
    };
    await page.route(/\/runtime\/logs\?/, async (route: Route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.get("source") !== "sandbox") return route.continue();
      await route.fulfill({ json: { data: sandboxPage, meta: { requestId: "req_sample" } } });
    });
    await suite.signIn(page, "alice");
    await choose(page);
    await waitForRow(page, FIRST_GATEWAY_LINE);
    await page.getByLabel("Source", { exact: true }).selectOption("sandbox");
    await waitForRow(page, "evil.example");
    const read = logReads("sandbox").at(-1)!;
    expect([...read.url.searchParams.keys()]).toEqual(["source"]);
    expect(await page.locator("#pod-wrap").isHidden()).toBe(true);
    expect(await page.locator("#container-wrap").isHidden()).toBe(true);
    expect(new URL(page.url()).searchParams.get("source")).toBe("sandbox");
    expect(new URL(page.url()).searchParams.has("pod")).toBe(false);

    const allow = rows(page).filter({ hasText: "api.github.com" });
    expect(await allow.locator(".badge.verdict-allow").textContent()).toBe("ALLOW");
    expect(await allow.locator(".dest").textContent()).toBe("→ api.github.com:443");
    expect(await allow.locator(".badge.origin-supervisor").textContent()).toBe("supervisor");
    const deny = rows(page).filter({ hasText: "evil.example" });
    expect(await deny.locator(".badge.verdict-deny").textContent()).toBe("DENY");
    expect(await deny.locator(".dest").textContent()).toBe("→ evil.example:22");
    expect(await deny.locator(".detail").allTextContents()).toEqual([
      "binary /usr/bin/ssh",
      "policy default",
      "reason not in allowlist",
    ]);
    expect(await deny.locator(".lvl").textContent()).toBe("WARN");
    const ocsf = rows(page).filter({ hasText: "class_uid" });
    expect(await ocsf.locator(".badge.ocsf").textContent()).toBe("OCSF");
    expect(await ocsf.locator(".badge.origin-gateway").textContent()).toBe("gateway");
    // Text from a response stays text.
    expect(await page.locator("#log-rows img").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await rows(page).filter({ hasText: "<img src=x" }).count()).toBe(1);
    await page.locator("#logs").screenshot({ path: join(RESULTS, "console-sandbox-sample.png") });
    await page.close();
  });
});
