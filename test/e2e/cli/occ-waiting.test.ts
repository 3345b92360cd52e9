/**
 * A first run on a deployment whose container never started (issue: the CLI printed nothing and
 * exited 0): against the local stack, `occ` says the waiting reason on stderr, names the deployment
 * that runs the source with the `--deployment` to use, prints nothing on stdout and exits 3.
 */
import { describe, expect, it } from "vitest";
import { cliPlacement, cliScenario, occSuite } from "../../support/occ-suite.ts";
import { workloadLabels } from "../../support/scenario.ts";
import { runOcc } from "./spawn.ts";

type Json = Record<string, unknown>;

/** The shared scenario plus Agent `fresh`: f1 runs its Gateway, the active f2's is still being created. */
function waitingScenario(): Json {
  const s = cliScenario<{
    clusters: { namespaces: { pods: Json[] }[] }[];
    registry: { agents: Json[] };
  }>();
  const gateway = (name: string, uid: string, revision: string, container: Json): Json => ({
    name,
    uid,
    createdAt: "now-1h",
    labels: workloadLabels("gateway", revision, "fresh"),
    containers: [{ name: "gateway", ...container }],
  });
  s.clusters[0]!.namespaces[0]!.pods.push(
    gateway("fresh-gateway-old", "44444444-4444-4444-a444-444444444444", "f1", {
      logs: { current: [["now-10m", "INFO f1 up"]] },
    }),
    gateway("fresh-gateway-new", "55555555-5555-4555-a555-555555555555", "f2", {
      state: { waiting: { reason: "ContainerCreating" } },
    }),
  );
  const placement = { gateway: cliPlacement("control") };
  s.registry.agents.push({
    namespaceId: "acme",
    agentId: "fresh",
    activeDeploymentId: "f2",
    deployments: [
      { deploymentId: "f1", revision: 1, createdAt: "now-2h", placement },
      { deploymentId: "f2", revision: 2, createdAt: "now-5m", placement },
    ],
  });
  return s;
}

const suite = occSuite(waitingScenario);

describe("a container that never started", { timeout: 120_000 }, () => {
  const notice = [
    "occ: the gateway container gateway of Pod fresh-gateway-new (deployment f2) has not started: ContainerCreating",
    "occ: deployment f1 has a running gateway container (pass --deployment f1)",
    "",
  ].join("\n");

  it("reads the active deployment, says why its container has not started, and exits 3", async () => {
    const r = await runOcc(["agent", "logs", "fresh", "--source", "gateway"], suite.env);
    expect(r.stderr).toBe(notice);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(3);
  });

  it("says the same for --deployment f2, and --deployment f1 reads the running one", async () => {
    const waiting = await runOcc(
      ["agent", "logs", "fresh", "--source", "gateway", "--deployment", "f2"],
      suite.env,
    );
    expect(waiting.stderr).toBe(notice);
    expect(waiting.code).toBe(3);
    const running = await runOcc(
      ["agent", "logs", "fresh", "--source", "gateway", "--deployment", "f1"],
      suite.env,
    );
    expect(running.code).toBe(0);
    expect(running.stdout).toMatch(/Z INFO {2}f1 up$/m);
  });
});
