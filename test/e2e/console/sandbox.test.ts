/**
 * The console's sandbox source in headless Chromium against the local stack, nothing mocked: the
 * stack's OpenShell simulator serves the deployment's sandbox over mTLS. The operator picks the
 * sandbox chip and reads decisions at a glance (origin, ALLOW/DENY, destination, binary, policy,
 * reason), OCSF events marked, secrets masked; Follow shows an appended denial, and a replaced
 * sandbox is marked with its new instance ID.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deniedPasteLine, deniedSshLine, PROXY_TARGET, withSandbox } from "../../support/sandbox.ts";
import { poll, rows, waitForRow } from "./helpers.ts";
import { AGENT, consoleScenario } from "./scenario.ts";
import { consoleSuite, RESULTS } from "./suite.ts";

const KEY = "sk-ant-api03-Zq8XyW7vU6tS5rR4qP3oN2mL1kJ0iH9gFfEeDdCc";
const SANDBOX = { gateway: "os1", sandbox: "support-d2" };

const sandboxScenario = () =>
  withSandbox(consoleScenario(), {
    agent: AGENT,
    deployment: "d2",
    gateway: SANDBOX.gateway,
    name: SANDBOX.sandbox,
    id: "sbx-7f3a",
    lines: [
      [
        "now-50s",
        "INFO",
        PROXY_TARGET,
        "CONNECT api.github.com:443",
        {
          action: "allow",
          dst_host: "api.github.com",
          dst_port: "443",
          binary: "/usr/bin/git",
          policy: "support-egress",
        },
      ],
      deniedSshLine("now-40s"),
      ["now-30s", "OCSF", "openshell_sandbox::ocsf", '{"class_uid":4001,"disposition":"Blocked"}'],
      [
        "now-20s",
        "INFO",
        PROXY_TARGET,
        `CONNECT api.anthropic.com:443 x-api-key=${KEY}`,
        { action: "allow", dst_host: "api.anthropic.com", api_key: KEY },
      ],
      ["now-15s", "INFO", "openshell_server::sandbox", "log stream attached", {}, "gateway"],
      ["now-10s", "ERROR", "openshell_sandbox::supervisor", "policy reload failed: rule 13 invalid"],
    ],
  });

const suite = consoleSuite(sandboxScenario);

describe("console on the sandbox source", () => {
  it("shows decisions readably, follows an append and marks a replaced sandbox", async () => {
    const { page, logReads } = await suite.openLogs("alice");
    await page.getByLabel("Source", { exact: true }).selectOption("sandbox");
    await waitForRow(page, "203.0.113.9");
    expect(await page.locator("#pod-wrap").isHidden()).toBe(true);
    expect(new URL(page.url()).searchParams.get("source")).toBe("sandbox");

    const deny = rows(page).filter({ hasText: "CONNECT 203.0.113.9:22" });
    expect(await deny.locator(".badge.origin-supervisor").textContent()).toBe("supervisor");
    expect(await deny.locator(".badge.verdict-deny").textContent()).toBe("DENY");
    expect(await deny.locator(".dest").textContent()).toBe("→ 203.0.113.9:22");
    expect(await deny.locator(".detail").allTextContents()).toEqual([
      "binary /usr/bin/ssh",
      "policy support-egress",
      "reason port 22 not allowed by policy",
    ]);
    expect(await deny.locator(".lvl").textContent()).toBe("WARN");
    const allow = rows(page).filter({ hasText: "CONNECT api.github.com:443" });
    expect(await allow.locator(".badge.verdict-allow").textContent()).toBe("ALLOW");
    const ocsf = rows(page).filter({ hasText: "class_uid" });
    expect(await ocsf.locator(".badge.ocsf").textContent()).toBe("OCSF");
    expect(
      await rows(page).filter({ hasText: "log stream attached" }).locator(".badge").first().textContent(),
    ).toBe("gateway");
    const keyed = rows(page).filter({ hasText: "api.anthropic.com" });
    expect(await keyed.locator(".fields").textContent()).toBe("api_key=[redacted:key-value]");
    expect(await page.locator("#log-rows").textContent()).not.toContain(KEY);
    expect(await rows(page).filter({ hasText: "policy reload failed" }).locator(".lvl").textContent()).toBe(
      "ERROR",
    );

    await page.getByRole("button", { name: "Follow" }).click();
    suite.stack.sim.advanceClock(1000);
    suite.stack.openshell.sim!.append({
      ...SANDBOX,
      lines: [deniedPasteLine()],
    });
    await waitForRow(page, "paste.example.net");
    expect(logReads("sandbox").some((r) => r.url.searchParams.has("cursor"))).toBe(true);
    expect(await rows(page).filter({ hasText: "CONNECT 203.0.113.9:22" }).count()).toBe(1);

    suite.stack.openshell.sim!.replace({ ...SANDBOX, newId: "sbx-9c01" });
    suite.stack.sim.advanceClock(1000);
    suite.stack.openshell.sim!.append({
      ...SANDBOX,
      lines: [["now", "INFO", "openshell_sandbox::policy", "policy loaded", { policy: "support-egress" }]],
    });
    await waitForRow(page, "policy loaded");
    await poll(() => page.locator("#log-rows").textContent()).toContain("sbx-9c01");
    await page.locator("#logs").screenshot({ path: join(RESULTS, "console-sandbox-live.png") });
    await page.close();
  });
});
