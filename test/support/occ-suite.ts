/**
 * What every `occ` end-to-end suite starts with: the built bin, one local stack on the suite's
 * scenario (warm, on a free port), and the environment `occ` reads to reach it as a principal of
 * namespace `acme`; the stack is closed after the suite.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { type LocalStack, startLocalStack } from "../../local/stack/index.ts";
import { ensureOccBuilt } from "../e2e/cli/spawn.ts";

/** The CLI suites' shared scenario file (test/e2e/cli/scenario.json). */
export const CLI_SCENARIO = fileURLToPath(new URL("../e2e/cli/scenario.json", import.meta.url));

/** A fresh copy of the shared scenario, for a suite that adds to it. */
export const cliScenario = <T = Record<string, unknown>>(): T =>
  JSON.parse(readFileSync(CLI_SCENARIO, "utf8")) as T;

/** The cluster and Kubernetes namespace of the shared scenario, where every CLI suite puts its Pods. */
export const CLI_CLUSTER = "c1";
export const CLI_K8S_NAMESPACE = "tenant-acme";

/** A container of a Pod there, as the admin API names it. */
export const cliContainer = (pod: string, container: string) => ({
  cluster: CLI_CLUSTER,
  namespace: CLI_K8S_NAMESPACE,
  pod,
  container,
});

/** A deployment's placement of a source there. */
export const cliPlacement = (plane: "control" | "execution") => ({
  clusterId: CLI_CLUSTER,
  namespace: CLI_K8S_NAMESPACE,
  plane,
});

/**
 * A suite's own scenario: `pods` in the CLI cluster and namespace, its `registry`, and a bucket
 * large enough that its tests never meet the limiter (occ-limits.test.ts does).
 */
export const cliWorld = (
  pods: unknown[],
  registry: { agents: Record<string, unknown>[]; grants: unknown[] },
) => ({
  limits: { burst: 200, ratePerSecond: 50 },
  clusters: [{ id: CLI_CLUSTER, namespaces: [{ name: CLI_K8S_NAMESPACE, pods }] }],
  registry,
});

/** The namespace and principal `occ` runs as unless a test says otherwise. */
export const OCC_NAMESPACE = "acme";
export const OCC_PRINCIPAL = "alice";

export interface OccSuite {
  readonly stack: LocalStack;
  /** `OCC_ENDPOINT`, `OCC_NAMESPACE` and `OCC_TOKEN` (as `alice`) for this suite's stack. */
  readonly env: Record<string, string>;
  /** The same environment with the token of `principal`. */
  as(principal: string): Record<string, string>;
}

/**
 * Registers the suite's setup and teardown; `stack` and `env` are set once `beforeAll` has run.
 * `scenario` is a scenario file's path, a scenario, or a function that builds one when the suite starts.
 */
export function occSuite(scenario: string | object | (() => object) = CLI_SCENARIO): OccSuite {
  const state = {} as { stack: LocalStack; env: Record<string, string> };
  beforeAll(async () => {
    ensureOccBuilt();
    state.stack = await startLocalStack({
      scenario: typeof scenario === "function" ? scenario() : scenario,
      port: 0,
      quiet: true,
      warm: true,
    });
    state.env = {
      OCC_ENDPOINT: state.stack.apiUrl,
      OCC_NAMESPACE: OCC_NAMESPACE,
      OCC_TOKEN: `local:${OCC_PRINCIPAL}`,
    };
  }, 120_000);
  afterAll(async () => {
    await state.stack?.close();
  });
  return {
    get stack() {
      return state.stack;
    },
    get env() {
      return state.env;
    },
    as: (principal) => ({ ...state.env, OCC_TOKEN: `local:${principal}` }),
  };
}
