/** Scenario validation: defaults, relative times, strictness with paths, IDs, cross references. */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isParsedScenario, parseScenario, ScenarioError } from "../../../local/scenario/schema.ts";
import { formatKubeletTime, parseRfc3339, resolveScenarioTime } from "../../../local/scenario/time.ts";
import { thrownBy } from "../../support/failure.ts";
import { DEMO_PATH } from "./helpers.ts";

const LOAD = new Date("2026-11-29T12:00:00.000Z");

function minimal(extra: Record<string, unknown> = {}) {
  return {
    clusters: [
      {
        id: "demo",
        namespaces: [
          {
            name: "tenant-a",
            pods: [{ name: "gw-0", uid: "u-1", labels: { a: "b" }, containers: [{ name: "gateway" }] }],
            events: [
              {
                involvedObject: { kind: "Pod", name: "gw-0", uid: "u-1" },
                type: "Normal",
                reason: "Started",
                message: "m",
              },
            ],
          },
        ],
      },
    ],
    registry: {
      agents: [
        {
          namespaceId: "acme",
          agentId: "support",
          deployments: [
            {
              deploymentId: "d1",
              placement: { gateway: { clusterId: "demo", namespace: "tenant-a", plane: "control" } },
            },
            { deploymentId: "d3", revision: 3, placement: {} },
            { deploymentId: "d2", revision: 2, placement: {} },
          ],
        },
      ],
      grants: [{ principalId: "alice", namespaceId: "acme", actions: ["read", "read_logs"] }],
    },
    ...extra,
  };
}

function issuesOf(raw: unknown): Array<{ path: string; message: string }> {
  const err = thrownBy(() => parseScenario(raw, LOAD), ScenarioError);
  for (const i of err.issues) expect(err.message).toContain(`${i.path}: ${i.message}`);
  return err.issues;
}

describe("parseScenario defaults", () => {
  it("fills every default", () => {
    const s = parseScenario(minimal(), LOAD);
    expect(s.now).toBe("2026-11-29T12:00:00.000Z");
    expect(s.clock).toBe("wall");
    expect(s.limits).toEqual({});
    const c = s.clusters[0]!;
    expect(c.token).toBeUndefined();
    expect(c.rbac).toEqual({ deny: [] });
    expect(c.faults).toMatchObject({ latencyMs: 0, failRate: 0, status: null, unreachable: false });
    const pod = c.namespaces[0]!.pods[0]!;
    expect(pod).toMatchObject({
      createdAt: "2026-11-29T12:00:00.000000000Z",
      phase: "Running",
      nodeName: null,
      deletionTimestamp: null,
    });
    expect(pod.conditions.find((x) => x.type === "Ready")?.status).toBe("True");
    expect(pod.containers[0]).toMatchObject({
      init: false,
      state: { running: { startedAt: "2026-11-29T12:00:00.000000000Z" } },
      ready: true,
      restartCount: 0,
      lastState: null,
      logs: { current: [], previous: [] },
      generate: null,
    });
    const ev = c.namespaces[0]!.events[0]!;
    expect(ev).toMatchObject({
      count: 1,
      lastTimestamp: "2026-11-29T12:00:00.000000000Z",
      eventTime: null,
      series: null,
    });
    const agent = s.registry.agents[0]!;
    expect(agent).toMatchObject({ tier: "standard", state: "running", activeDeploymentId: "d3" });
    expect(agent.deployments[0]).toEqual({
      deploymentId: "d1",
      revision: 1,
      createdAt: "2026-11-29T12:00:00.000Z",
      computeDriver: "kubernetes",
      runtimeLogging: "service",
      placement: { gateway: { clusterId: "demo", namespace: "tenant-a", plane: "control" } },
    });
    expect(s.registry.grants[0]).toEqual({
      principalId: "alice",
      namespaceId: "acme",
      agentId: "*",
      actions: ["read", "read_logs"],
    });
    expect(isParsedScenario(s)).toBe(true);
    expect(isParsedScenario(JSON.parse(JSON.stringify(s)))).toBe(false);
    expect(isParsedScenario(minimal())).toBe(false);
  });

  it("derives Ready from the containers and keeps limits", () => {
    const raw = minimal({ limits: { burst: 100, ratePerSecond: 50 }, clock: "manual" });
    raw.clusters[0]!.namespaces[0]!.pods[0]!.containers = [
      { name: "gateway", state: { waiting: { reason: "CrashLoopBackOff" } } } as never,
    ];
    const s = parseScenario(raw, LOAD);
    expect(s.limits).toEqual({ burst: 100, ratePerSecond: 50 });
    expect(s.clock).toBe("manual");
    const pod = s.clusters[0]!.namespaces[0]!.pods[0]!;
    expect(pod.containers[0]!.ready).toBe(false);
    expect(pod.conditions.find((x) => x.type === "Ready")?.status).toBe("False");
  });
});

describe("times", () => {
  it("resolves now-<decimal><unit> against the scenario now, and now against the load time", () => {
    const raw = minimal({ now: "now-1h" });
    raw.clusters[0]!.namespaces[0]!.pods[0]!.containers = [
      {
        name: "gateway",
        logs: {
          current: [
            ["now-1.5s", "a"],
            ["now-250ms", "b"],
            ["2026-11-29T11:00:00+01:00", "c"],
          ],
        },
      } as never,
    ];
    const s = parseScenario(raw, LOAD);
    expect(s.now).toBe("2026-11-29T11:00:00.000Z");
    expect(s.clusters[0]!.namespaces[0]!.pods[0]!.containers[0]!.logs.current).toEqual([
      ["2026-11-29T10:59:58.500000000Z", "a"],
      ["2026-11-29T10:59:59.750000000Z", "b"],
      ["2026-11-29T10:00:00.000000000Z", "c"],
    ]);
    for (const [text, iso] of [
      ["now-2d", "2026-11-27T12:00:00.000Z"],
      ["now-10m", "2026-11-29T11:50:00.000Z"],
      ["now-90s", "2026-11-29T11:58:30.000Z"],
    ] as const) {
      expect(parseScenario(minimal({ now: text }), LOAD).now).toBe(iso);
    }
  });

  it("rejects malformed times with their path", () => {
    for (const bad of [
      "now+1s",
      "now-1",
      "now-1y",
      "yesterday",
      "2026-13-01T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-11-29 12:00:00Z",
    ]) {
      const raw = minimal();
      (raw.clusters[0]!.namespaces[0]!.pods[0] as Record<string, unknown>).createdAt = bad;
      expect(
        issuesOf(raw).map((i) => i.path),
        bad,
      ).toContain("clusters[0].namespaces[0].pods[0].createdAt");
    }
    expect(issuesOf(minimal({ now: "soon" }))).toEqual([
      { path: "now", message: expect.stringContaining("RFC 3339") },
    ]);
  });

  it("keeps nine fraction digits exactly (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 253_402_300_799_999_999_999n }), (ns) => {
        const text = formatKubeletTime(ns);
        expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
        expect(parseRfc3339(text)).toBe(ns);
      }),
    );
  });

  it("relative offsets subtract exactly (property)", () => {
    const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom("ms", "s", "m", "h", "d"),
        (n, unit: keyof typeof units) => {
          const ref = 1_800_000_000_000_000_000n;
          expect(resolveScenarioTime(`now-${n}${unit}`, ref)).toBe(
            ref - BigInt(n * units[unit]) * 1_000_000n,
          );
        },
      ),
    );
  });
});

describe("strictness", () => {
  it("reports unknown fields with their path at every level", () => {
    const raw = minimal({ extra: true }) as Record<string, unknown> & ReturnType<typeof minimal>;
    (raw.clusters[0] as Record<string, unknown>).rbca = {};
    (raw.clusters[0]!.namespaces[0]!.pods[0]!.containers[0] as Record<string, unknown>).imgae = "x";
    (raw.registry.grants[0] as Record<string, unknown>).agent = "support";
    const paths = issuesOf(raw).map((i) => `${i.path}: ${i.message}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        "extra: unknown field",
        "clusters[0].rbca: unknown field",
        "clusters[0].namespaces[0].pods[0].containers[0].imgae: unknown field",
        "registry.grants[0].agent: unknown field",
      ]),
    );
  });

  it("names the bad key of a container state", () => {
    const raw = minimal();
    raw.clusters[0]!.namespaces[0]!.pods[0]!.containers = [
      { name: "gateway", state: { runing: {} } } as never,
    ];
    expect(issuesOf(raw)[0]?.path).toBe("clusters[0].namespaces[0].pods[0].containers[0].state.runing");
  });

  it("validates IDs with the API pattern and cross references", () => {
    const raw = minimal();
    raw.registry.agents[0]!.agentId = "Support!";
    raw.registry.agents[0]!.deployments[0]!.placement = {
      gateway: { clusterId: "nowhere", namespace: "tenant-a", plane: "control" },
    };
    raw.registry.grants[0]!.namespaceId = "-acme";
    const issues = issuesOf(raw);
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(["registry.agents[0].agentId", "registry.grants[0].namespaceId"]),
    );
    const placement = minimal();
    placement.registry.agents[0]!.deployments[0]!.placement = {
      gateway: { clusterId: "nowhere", namespace: "tenant-a", plane: "control" },
    };
    expect(issuesOf(placement)).toEqual([
      {
        path: "registry.agents[0].deployments[0].placement.gateway.clusterId",
        message: 'unknown cluster "nowhere"',
      },
    ]);
    const active = minimal();
    (active.registry.agents[0] as Record<string, unknown>).activeDeploymentId = "d9";
    expect(issuesOf(active)[0]?.path).toBe("registry.agents[0].activeDeploymentId");
  });

  it("rejects duplicates, bad enums and missing required fields", () => {
    const raw = minimal();
    raw.clusters[0]!.namespaces[0]!.pods.push({ ...raw.clusters[0]!.namespaces[0]!.pods[0]! });
    (raw.registry.grants[0] as Record<string, unknown>).actions = ["read", "delete"];
    delete (raw.registry.agents[0] as Record<string, unknown>).namespaceId;
    const paths = issuesOf(raw).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(["registry.grants[0].actions[1]", "registry.agents[0].namespaceId"]),
    );
    const dup = minimal();
    dup.clusters[0]!.namespaces[0]!.pods.push({ ...dup.clusters[0]!.namespaces[0]!.pods[0]! });
    expect(issuesOf(dup)).toEqual([
      { path: "clusters[0].namespaces[0].pods[1].name", message: 'duplicate pod "gw-0"' },
    ]);
  });
});

describe("shipped scenarios", () => {
  it("demo.json parses and has the demo's promised features", () => {
    const s = parseScenario(JSON.parse(readFileSync(DEMO_PATH, "utf8")), new Date());
    expect(s.clusters.map((c) => c.id).sort()).toEqual(["control", "demo", "execution"]);
    const pods = s.clusters.flatMap((c) => c.namespaces.flatMap((n) => n.pods));
    const containers = pods.flatMap((p) => p.containers);
    expect(
      containers.some(
        (c) => "waiting" in c.state && c.state.waiting.reason === "CrashLoopBackOff" && c.restartCount === 5,
      ),
    ).toBe(true);
    const oom = containers.find(
      (c) => c.lastState && "terminated" in c.lastState && c.lastState.terminated.reason === "OOMKilled",
    );
    expect(oom?.lastState).toMatchObject({ terminated: { exitCode: 137 } });
    expect(
      oom?.logs.previous.some(([, l]) =>
        l.includes("restart-signal-received signal=SIGTERM source=external"),
      ),
    ).toBe(true);
    const allLines = containers.flatMap((c) => [...c.logs.current, ...c.logs.previous].map(([, l]) => l));
    expect(allLines.some((l) => /sk-[A-Za-z0-9-]{20,}/.test(l))).toBe(true);
    expect(allLines.some((l) => l.includes("Authorization: Bearer "))).toBe(true);
    expect(allLines.some((l) => l.includes("password="))).toBe(true);
    expect(allLines.some((l) => l.startsWith("-----BEGIN"))).toBe(true);
    expect(allLines.some((l) => l.startsWith('{"level":"info","subsystem":'))).toBe(true);
    expect(containers.some((c) => c.generate !== null)).toBe(true);
    const events = s.clusters.flatMap((c) => c.namespaces.flatMap((n) => n.events));
    expect(events.some((e) => e.type === "Warning" && e.reason === "BackOff")).toBe(true);
    const research = s.registry.agents.find((a) => a.agentId === "research");
    expect(research?.tier).toBe("sensitive");
    expect(research?.deployments[0]?.placement).toMatchObject({
      gateway: { clusterId: "control" },
      agent: { clusterId: "execution" },
    });
    const grants = Object.fromEntries(s.registry.grants.map((g) => [g.principalId, g.actions]));
    expect(grants.bob).toEqual(["read", "operate"]);
    expect(grants.carol).toEqual(expect.arrayContaining(["administer", "read"]));
    expect(grants.carol).not.toContain("read_logs");
  });
});
