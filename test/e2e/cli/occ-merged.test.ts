/**
 * `occ agent logs --source all`, output options and error hints end to end: the spawned bin against
 * the local stack (real handlers, dynalite, the kube API simulator driven over its admin API,
 * docs/admin-api.md). A merged follow is bounded by what it prints: the test restarts a container
 * once the first page is out, waits for the restart gap and the new instance's line, then sends
 * SIGINT; no test step sleeps.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliContainer, cliPlacement, cliWorld, occSuite } from "../../support/occ-suite.ts";
import { workloadLabels } from "../../support/scenario.ts";
import { simAdmin } from "../../support/sim-admin.ts";
import { RAW_HAZARD, runOcc, startOcc } from "./spawn.ts";

const labels = (role: "gateway" | "agent") => workloadLabels(role, "u1", "duo");
const running = (since: string) => ({ running: { startedAt: since } });

const SCENARIO = cliWorld(
  [
    {
      name: "duo-gateway-0",
      uid: "44444444-4444-4444-a444-444444444444",
      createdAt: "now-1h",
      labels: labels("gateway"),
      containers: [
        {
          name: "gateway",
          state: running("now-1h"),
          logs: {
            current: [
              ["now-50m", "INFO gw first"],
              ["now-30m", "INFO gw third"],
            ],
          },
        },
      ],
    },
    {
      name: "duo-agent-0",
      uid: "55555555-5555-4555-a555-555555555555",
      createdAt: "now-1h",
      labels: labels("agent"),
      containers: [
        {
          name: "workspace-init",
          init: true,
          state: {
            terminated: {
              exitCode: 0,
              reason: "Completed",
              startedAt: "now-1h",
              finishedAt: "now-59m",
            },
          },
          logs: { current: [["now-1h", "INFO cloning workspace acme/duo"]] },
        },
        {
          name: "agent",
          state: running("now-59m"),
          logs: {
            current: [
              ["now-40m", "INFO ag second"],
              ["now-20m", "INFO ag fourth"],
            ],
          },
        },
      ],
    },
  ],
  {
    agents: [
      {
        namespaceId: "acme",
        agentId: "duo",
        activeDeploymentId: "u1",
        deployments: [
          {
            deploymentId: "u1",
            revision: 1,
            createdAt: "now-2h",
            placement: {
              gateway: cliPlacement("control"),
              agent: cliPlacement("execution"),
            },
          },
        ],
      },
    ],
    grants: [
      { principalId: "alice", namespaceId: "acme", actions: ["read", "operate", "read_logs"] },
      { principalId: "bob", namespaceId: "acme", actions: ["read", "operate"] },
    ],
  },
);

const GATEWAY = cliContainer("duo-gateway-0", "gateway");

const suite = occSuite(SCENARIO);

const ALL = ["agent", "logs", "duo", "--source", "all"];
const lines = (text: string) => text.trimEnd().split("\n");
const ESC = "\u001b[";

describe("occ --source all against the local stack", { timeout: 120_000 }, () => {
  it("prints one page per stream merged by time, each line prefixed with source/Pod/container", async () => {
    const r = await runOcc(ALL, suite.env);
    expect(r.code).toBe(0);
    const shown = lines(r.stdout).map((l) => {
      const [prefix, , , ...message] = l.split(/ +/);
      return `${prefix} ${message.join(" ")}`;
    });
    expect(shown).toEqual([
      "gateway/duo-gateway-0/gateway gw first",
      "agent/duo-agent-0/agent ag second",
      "gateway/duo-gateway-0/gateway gw third",
      "agent/duo-agent-0/agent ag fourth",
    ]);
    // No sandbox is placed: nothing to skip, nothing to say.
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toContain(ESC);
  });

  it("colours each stream's prefix with FORCE_COLOR, and not with NO_COLOR or through a pipe", async () => {
    const forced = await runOcc(ALL, { ...suite.env, FORCE_COLOR: "1" });
    const colours = lines(forced.stdout).map((l) => /^\u001b\[(\d+)m([^\u001b]+)\u001b\[39m/.exec(l)?.[1]);
    // gateway, agent, gateway, agent: two streams, two colours, each kept
    expect(colours[0]).toBeDefined();
    expect(colours[1]).toBeDefined();
    expect(colours[0]).not.toBe(colours[1]);
    expect(colours[2]).toBe(colours[0]);
    expect(colours[3]).toBe(colours[1]);
    const noColor = await runOcc(ALL, { ...suite.env, NO_COLOR: "1" });
    expect(noColor.stdout + noColor.stderr).not.toContain(ESC);
  });

  it("--no-prefix and --timestamps=false leave the level and message", async () => {
    const r = await runOcc([...ALL, "--no-prefix", "--timestamps=false"], suite.env);
    expect(lines(r.stdout)).toEqual([
      "INFO  gw first",
      "INFO  ag second",
      "INFO  gw third",
      "INFO  ag fourth",
    ]);
    const one = await runOcc(["agent", "logs", "duo", "--source", "gateway", "--prefix"], suite.env);
    expect(lines(one.stdout)[0]).toMatch(
      /^gateway\/duo-gateway-0\/gateway \d{4}-\d\d-\d\dT\S+Z INFO {2}gw first$/,
    );
  });

  it("-c reads a completed init container", async () => {
    const r = await runOcc(["agent", "logs", "duo", "--source", "agent", "-c", "workspace-init"], suite.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\S+Z INFO {2}cloning workspace acme\/duo\n$/);
  });

  it("--download FILE and --download=FILE save the same text", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "occ-e2e-dl-"));
    const spaced = await runOcc(
      ["agent", "logs", "duo", "--source", "gateway", "--download", "a.log"],
      suite.env,
      cwd,
    );
    const joined = await runOcc(
      ["agent", "logs", "duo", "--source", "gateway", "--download=b.log"],
      suite.env,
      cwd,
    );
    expect([spaced.code, joined.code]).toEqual([0, 0]);
    expect(spaced.stdout).toBe(`${join(cwd, "a.log")}\n`);
    expect(joined.stdout).toBe(`${join(cwd, "b.log")}\n`);
    const a = readFileSync(join(cwd, "a.log"), "utf8");
    expect(a).toContain("gw first");
    expect(a).toContain("gw third");
    // The same lines; only the header's observedAt differs between two reads.
    const body = (text: string) => text.split("\n").slice(1).join("\n");
    expect(body(readFileSync(join(cwd, "b.log"), "utf8"))).toBe(body(a));
    const init = await runOcc(
      ["agent", "logs", "duo", "--source", "agent", "-c", "workspace-init", "--download"],
      suite.env,
      cwd,
    );
    expect(init.code).toBe(0);
    // The server's name for a chosen container ends in -{container}.
    expect(init.stdout.trim()).toMatch(/workspace-init\.log$/);
  });

  it("401 hints at OCC_TOKEN, 403 names the permission, unknown commands print plainly", async () => {
    const { OCC_TOKEN: _t, ...anonymous } = suite.env;
    const unauth = await runOcc(["agent", "logs", "duo", "--source", "gateway"], anonymous);
    expect(unauth.code).toBe(1);
    expect(unauth.stderr).toMatch(/^HTTP 401 /);
    expect(unauth.stderr).toContain("hint: pass a token with --token or set OCC_TOKEN");
    const denied = await runOcc(
      ["agent", "logs", "duo", "--source", "gateway", "--deployment", "u1"],
      suite.as("bob"),
    );
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^HTTP 403 /);
    expect(denied.stderr).toContain("hint: this needs the read_logs and read permissions on the agent");
    const typo = await runOcc(["agent", "lgos", "duo"], suite.env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'lgos'");
    expect(typo.stderr).not.toContain("\\x0A");
  });

  it("follows every stream with its own cursor across a restart of one of them", async () => {
    // The simulator is driven through its admin API, as an operator's script would.
    const admin = simAdmin(suite.stack);
    const f = startOcc([...ALL, "--follow"], suite.env);
    await f.until(({ stdout }) => stdout.includes("ag fourth"));
    await admin.append({ ...GATEWAY, lines: [["now", "INFO gw before-restart"]] });
    await f.until(({ stdout }) => stdout.includes("gw before-restart"));
    await admin.restart({ ...GATEWAY, exitCode: 137, reason: "OOMKilled", signal: 9 });
    await admin.append({ ...GATEWAY, lines: [["now", "INFO gw after-restart"]] });
    await admin.append({
      ...cliContainer("duo-agent-0", "agent"),
      lines: [["now", "INFO ag still-here"]],
    });
    await f.until(
      ({ stdout, stderr }) =>
        stdout.includes("gw after-restart") &&
        stdout.includes("ag still-here") &&
        /gap.*stream_replaced/.test(stderr),
    );
    f.child.kill("SIGINT");
    expect(await f.exited).toBe(0);
    // The transcript, for the record of issue 16.
    console.log(`$ occ agent logs duo --source all --follow\n${f.stdout()}${f.stderr()}`);
    const out = f.stdout();
    for (const text of ["gw before-restart", "gw after-restart", "ag still-here", "gw first", "ag second"])
      expect(out.split(text).length - 1).toBe(1);
    expect(out.indexOf("gw before-restart")).toBeLessThan(out.indexOf("gw after-restart"));
    expect(lines(out).find((l) => l.includes("after-restart"))).toMatch(/^gateway\/duo-gateway-0\/gateway /);
    expect(lines(out).find((l) => l.includes("still-here"))).toMatch(/^agent\/duo-agent-0\/agent /);
    // The gap belongs to the restarted stream only.
    const gaps = lines(f.stderr()).filter((l) => l.includes("gap"));
    expect(gaps.length).toBeGreaterThanOrEqual(1);
    expect(gaps.every((l) => l.startsWith("occ: gateway/duo-gateway-0/gateway: gap"))).toBe(true);
    expect(RAW_HAZARD.test(f.stdout() + f.stderr())).toBe(false);
  });
});
