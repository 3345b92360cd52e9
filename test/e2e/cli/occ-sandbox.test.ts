/**
 * `occ agent logs AGENT --source sandbox` end to end: the spawned bin against the local stack, whose
 * OpenShell simulator serves the sandbox over mTLS and is driven through its admin API
 * (docs/admin-api.md § Sandbox routes). A page with the decision fields as `key=value`, `-o json`
 * records, a download under the server's name, and a follow across an append, bounded by what it
 * prints (no step sleeps). Secrets never reach the terminal.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPlacement, cliWorld, occSuite } from "../../support/occ-suite.ts";
import { deniedPasteLine, deniedSshLine, PROXY_TARGET, withSandbox } from "../../support/sandbox.ts";
import { workloadLabels } from "../../support/scenario.ts";
import { simAdmin } from "../../support/sim-admin.ts";
import { RAW_HAZARD, runOcc, startOcc } from "./spawn.ts";

const KEY = "sk-ant-api03-Zq8XyW7vU6tS5rR4qP3oN2mL1kJ0iH9gFfEeDdCc";

/** The sandbox deployment s1 runs in, as the admin API names it. */
const SHELL = { gateway: "os1", sandbox: "shell-s1" };

const SCENARIO = withSandbox(
  cliWorld(
    [
      {
        name: "shell-gateway-0",
        uid: "66666666-6666-4666-a666-666666666666",
        createdAt: "now-1h",
        labels: workloadLabels("gateway", "s1", "shell"),
        containers: [{ name: "gateway", logs: { current: [["now-50m", "INFO gw up"]] } }],
      },
    ],
    {
      agents: [
        {
          namespaceId: "acme",
          agentId: "shell",
          activeDeploymentId: "s1",
          deployments: [
            {
              deploymentId: "s1",
              revision: 1,
              createdAt: "now-2h",
              placement: { gateway: cliPlacement("control") },
            },
          ],
        },
      ],
      grants: [{ principalId: "alice", namespaceId: "acme", actions: ["read", "operate", "read_logs"] }],
    },
  ),
  {
    deployment: "s1",
    gateway: SHELL.gateway,
    name: SHELL.sandbox,
    id: "sbx-0001",
    lines: [
      ["now-40m", "INFO", "openshell_sandbox::policy", "policy loaded", { policy: "egress" }],
      deniedSshLine("now-30m"),
      ["now-20m", "INFO", PROXY_TARGET, `CONNECT api.anthropic.com:443 x-api-key=${KEY}`, { api_key: KEY }],
      ["now-10m", "ERROR", "openshell_sandbox::supervisor", "policy reload failed"],
    ],
  },
);

const suite = occSuite(SCENARIO);

const SANDBOX = ["agent", "logs", "shell", "--source", "sandbox"];
const lines = (text: string) => text.trimEnd().split("\n");

describe("occ --source sandbox against the local stack", { timeout: 120_000 }, () => {
  it("prints the page with subsystems and decision fields, secrets masked", async () => {
    const r = await runOcc(SANDBOX, suite.env);
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(4);
    const denied = out.find((l) => l.includes("CONNECT 203.0.113.9:22"))!;
    expect(denied).toMatch(/ WARN +\[openshell_sandbox::proxy\] CONNECT 203\.0\.113\.9:22 /);
    for (const kv of ["action=deny", 'dst_port="22"', "binary=/usr/bin/ssh", "policy=support-egress"])
      expect(denied).toContain(kv);
    expect(out.at(-1)).toMatch(/ ERROR +\[openshell_sandbox::supervisor\] policy reload failed$/);
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).toContain('api_key="[redacted:key-value]"');
    expect(RAW_HAZARD.test(r.stdout + r.stderr)).toBe(false);
  });

  it("-o json prints one record per line with kind, origin and fields", async () => {
    const r = await runOcc([...SANDBOX, "-o", "json", "--tail", "2"], suite.env);
    expect(r.code, r.stderr).toBe(0);
    const records = lines(r.stdout).map((l) => JSON.parse(l));
    expect(records.map((x) => x.message)).toEqual([
      "CONNECT api.anthropic.com:443 x-api-key=[redacted:header]",
      "policy reload failed",
    ]);
    expect(records[0]).toMatchObject({
      kind: "sandbox",
      origin: "sandbox",
      subsystem: PROXY_TARGET,
      fields: { api_key: "[redacted:key-value]" },
    });
  });

  it("--download saves <agent>-<deployment>-sandbox.log with its header line", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "occ-sandbox-"));
    const r = await runOcc([...SANDBOX, "--download"], suite.env, cwd);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(cwd, "shell-s1-sandbox.log"), "utf8");
    expect(lines(text)[0]).toMatch(
      /^# agent=shell deployment=s1 source=sandbox gateway=os1 sandbox=shell-s1 sandboxId=sbx-0001 observedAt=\S+ withheld=0$/,
    );
    expect(text).toContain("action=deny");
    expect(text).not.toContain(KEY);
  });

  it("--follow prints an appended line once, after the page", async () => {
    const f = startOcc([...SANDBOX, "--follow"], suite.env);
    await f.until(({ stdout }) => stdout.includes("policy reload failed"));
    await simAdmin(suite.stack).sandbox.append({
      ...SHELL,
      lines: [deniedPasteLine()],
    });
    await f.until(({ stdout }) => stdout.includes("paste.example.net:443"));
    f.child.kill("SIGINT");
    expect(await f.exited).toBe(0);
    const out = f.stdout();
    for (const text of ["CONNECT paste.example.net:443", "policy reload failed", "policy loaded"])
      expect(out.split(text).length - 1).toBe(1);
    expect(out.indexOf("policy reload failed")).toBeLessThan(out.indexOf("paste.example.net"));
    expect(lines(out).at(-1)).toContain("action=deny dst_host=paste.example.net");
  });
});
