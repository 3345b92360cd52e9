/** The banner's example (first granted principal and the Agent it reaches) and its shell quoting. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseScenario, type ScenarioRegistry } from "../../../local/scenario/schema.ts";
import { renderBanner, shellQuote } from "../../../local/stack/banner.ts";
import { DEFAULT_SCENARIO } from "../../../local/stack/index.ts";
import { firstExample, grantedPrincipals } from "../../../local/stack/scenario-info.ts";

const deployment = (deploymentId: string, revision: number) => ({
  deploymentId,
  revision,
  createdAt: "2026-11-29T12:00:00.000Z",
  computeDriver: "kubernetes",
  runtimeLogging: "service" as const,
  placement: {},
});

const registry: ScenarioRegistry = {
  agents: [
    {
      namespaceId: "n1",
      agentId: "a1",
      tier: "standard",
      state: "running",
      activeDeploymentId: "",
      deployments: [],
    },
    {
      namespaceId: "n2",
      agentId: "a2",
      tier: "standard",
      state: "running",
      activeDeploymentId: "",
      deployments: [deployment("v1", 1), deployment("v7", 7), deployment("v3", 3)],
    },
    {
      namespaceId: "n2",
      agentId: "a3",
      tier: "standard",
      state: "running",
      activeDeploymentId: "x2",
      deployments: [deployment("x2", 2)],
    },
  ],
  grants: [
    { principalId: "zed", namespaceId: "nowhere", agentId: "*", actions: ["read"] },
    { principalId: "eve", namespaceId: "n2", agentId: "a3", actions: ["read"] },
    { principalId: "zed", namespaceId: "n2", agentId: "*", actions: ["read"] },
  ],
};

describe("banner", () => {
  it("uses the first grant that reaches an Agent, with its active (else newest) deployment", () => {
    expect(firstExample(registry)).toEqual({
      principal: "eve",
      namespaceId: "n2",
      agentId: "a3",
      deploymentId: "x2",
    });
    const wildcard = { ...registry, grants: registry.grants.slice(2) };
    expect(firstExample(wildcard)).toEqual({
      principal: "zed",
      namespaceId: "n2",
      agentId: "a2",
      deploymentId: "v7",
    });
    expect(firstExample({ ...registry, grants: registry.grants.slice(0, 1) })).toBeNull();
    expect(grantedPrincipals(registry)).toEqual(["zed", "eve"]);
  });

  it("prints the demo's commands for alice and the active deployment", () => {
    const demo = parseScenario(JSON.parse(readFileSync(DEFAULT_SCENARIO, "utf8")), new Date());
    const example = firstExample(demo.registry);
    expect(example?.principal).toBe("alice");
    const text = renderBanner({
      apiUrl: "http://127.0.0.1:3000",
      simUrl: "http://127.0.0.1:4000",
      dynamodbEndpoint: "http://127.0.0.1:5000",
      stackFile: "/x/.local/stack.json",
      scenarioFile: DEFAULT_SCENARIO,
      dataDir: null,
      kubeconfigs: { demo: "/x/.local/kubeconfigs/demo.kubeconfig" },
      example,
      startupMs: 1234,
    });
    const agent = demo.registry.agents.find((a) => a.agentId === example?.agentId);
    expect(text).toContain(
      `curl -H 'Authorization: Bearer local:alice' http://127.0.0.1:3000/namespaces/acme/agents/${agent?.agentId}/deployments/${agent?.activeDeploymentId}/runtime`,
    );
    expect(text).toContain(
      `npx occ --endpoint http://127.0.0.1:3000 --namespace acme --token local:alice agent logs ${agent?.agentId} --source gateway`,
    );
    expect(text).toContain("ready in 1.2 s");
  });

  it("quotes words so a POSIX shell reads them back unchanged", () => {
    for (const word of ["plain", "Authorization: Bearer local:alice", "it's", "a'b\"c $HOME `x` \\"]) {
      const echoed = execFileSync("sh", ["-c", `printf %s ${shellQuote(word)}`]).toString();
      expect(echoed).toBe(word);
    }
  });
});
