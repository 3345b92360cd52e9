/**
 * The scenario file (docs/kube.md § Scenario file): clusters for the kube API simulator and the registry
 * for the local stack. `parseScenario` validates with zod (strict objects: a typo is an error with
 * its path), then a pass over the parsed document applies the defaults and resolves relative times
 * against the scenario's `now`, so consumers see absolute data. Each part has its own module:
 * pods (`pod.ts`), events (`event.ts`), clusters (`cluster.ts`), the registry (`registry.ts`) and
 * OpenShell gateways (`openshell.ts`).
 *
 * Times: the top-level `now` resolves against the load time; every other relative time resolves
 * against the scenario's `now` (the same instant when `now` is omitted). Cluster-side times come
 * out in kubelet form (nine fraction digits, UTC); registry times and `now` as `toISOString()`.
 */
import { z } from "zod";
import { clusterSchema, resolveCluster, type ScenarioCluster } from "./cluster.ts";
import { eventSchema, resolveEvent, type ScenarioEvent } from "./event.ts";
import { TIME_HINT } from "./fields.ts";
import { parseStrict, ScenarioError, type ScenarioIssue } from "./issues.ts";
import { finishOpenShell, openshellSchema, type ScenarioGateway } from "./openshell.ts";
import { checkSandboxRefs, registrySchema, resolveRegistry, type ScenarioRegistry } from "./registry.ts";
import { formatIsoMillis, msToNs, resolveScenarioTime } from "./time.ts";

export type { ClusterFaults, RbacDenial, ScenarioCluster, ScenarioNamespace } from "./cluster.ts";
export { eventName, type ScenarioEvent } from "./event.ts";
export type { KubeTime } from "./fields.ts";
export { formatPath, parseStrict, ScenarioError, type ScenarioIssue } from "./issues.ts";
export type {
  ContainerState,
  LogGenerator,
  LogLine,
  PodCondition,
  RunningState,
  ScenarioContainer,
  ScenarioPod,
  TerminatedState,
  WaitingState,
} from "./pod.ts";
export type { ScenarioAgent, ScenarioDeployment, ScenarioGrant, ScenarioRegistry } from "./registry.ts";

const limitsSchema = z
  .strictObject({
    burst: z.number().positive().optional(),
    ratePerSecond: z.number().positive().optional(),
    downloadCost: z.number().positive().optional(),
    principalInFlight: z.number().int().positive().optional(),
    agentInFlight: z.number().int().positive().optional(),
  })
  .default({});

const scenarioSchema = z.strictObject({
  now: z.string().optional(),
  clock: z.enum(["wall", "manual"]).default("wall"),
  limits: limitsSchema,
  clusters: z.array(clusterSchema),
  registry: registrySchema,
  openshell: openshellSchema,
});

/** Limiter settings the local stack passes on; only the given ones are present. */
export type ScenarioLimits = { [K in keyof z.output<typeof limitsSchema>]?: number };

export interface Scenario {
  /** RFC 3339 UTC with milliseconds. */
  now: string;
  clock: "wall" | "manual";
  limits: ScenarioLimits;
  clusters: ScenarioCluster[];
  registry: ScenarioRegistry;
  /** OpenShell gateways for the sandbox source (empty when the scenario has none). */
  openshell: ScenarioGateway[];
}

/** Parses one event in scenario form (admin API), times relative to `nowNs`. */
export function parseScenarioEvent(raw: unknown, nowNs: bigint, path: string[] = ["event"]): ScenarioEvent {
  return resolveEvent(parseStrict(eventSchema, raw, path), nowNs);
}

/** Resolves one time given in scenario grammar against `nowNs`; throws ScenarioError at `path`. */
export function parseTimeAt(raw: unknown, nowNs: bigint, path: string): bigint {
  const ns = typeof raw === "string" ? resolveScenarioTime(raw, nowNs) : null;
  if (ns === null) throw new ScenarioError([{ path, message: TIME_HINT }]);
  return ns;
}

/**
 * Validates and resolves a raw scenario. `loadTime` anchors relative times (and the default `now`).
 * Throws ScenarioError listing every `path: problem`.
 */
export function parseScenario(raw: unknown, loadTime: Date): Scenario {
  const loadNs = msToNs(loadTime.getTime());
  let nowNs = loadNs;
  if (typeof raw === "object" && raw !== null && "now" in raw) {
    const given = (raw as { now: unknown }).now;
    const resolved = typeof given === "string" ? resolveScenarioTime(given, loadNs) : null;
    if (resolved === null) throw new ScenarioError([{ path: "now", message: TIME_HINT }]);
    nowNs = resolved;
  }
  const doc = parseStrict(scenarioSchema, raw);
  const issues: ScenarioIssue[] = [];
  const clusters = doc.clusters.map((c, ci) => resolveCluster(c, ci, nowNs, issues));
  const clusterIds = new Set(clusters.map((c) => c.id));
  const registry = resolveRegistry(doc.registry, clusterIds, nowNs, issues);
  const openshell = finishOpenShell(doc.openshell, nowNs, issues);
  checkSandboxRefs(registry, new Set(openshell.map((g) => g.id)), issues);
  if (issues.length > 0) throw new ScenarioError(issues);
  const scenario: Scenario = {
    now: formatIsoMillis(nowNs),
    clock: doc.clock,
    limits: stripUndefined(doc.limits),
    clusters,
    registry,
    openshell,
  };
  parsed.add(scenario);
  return scenario;
}

const parsed = new WeakSet<object>();

/**
 * Whether `value` is a Scenario that parseScenario returned (by identity): already defaulted, so it
 * must not be parsed again (its nulls are not scenario-file syntax). Anything else is a raw file.
 */
export function isParsedScenario(value: unknown): value is Scenario {
  return typeof value === "object" && value !== null && parsed.has(value);
}

function stripUndefined(o: Record<string, number | undefined>): ScenarioLimits {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
