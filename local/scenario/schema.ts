/**
 * The scenario file (docs/kube.md § Scenario file): clusters for the kube API simulator and the registry
 * for the local stack. `parseScenario` validates with zod (strict objects: a typo is an error with
 * its path), applies every default and resolves relative times, so consumers see absolute data.
 *
 * Times: the top-level `now` resolves against the load time; every other relative time resolves
 * against the scenario's `now` (the same instant when `now` is omitted). Cluster-side times come
 * out in kubelet form (nine fraction digits, UTC); registry times and `now` as `toISOString()`.
 */
import { z } from "zod";
import { DNS_LABEL, ID_PATTERN } from "../../lib/api/ids.ts";
import type {
  Action,
  AgentRecord,
  DeploymentRecord,
  GrantRecord,
  Placement,
  Plane,
  RolePlacement,
  SandboxRef,
} from "../../lib/domain.ts";
import { finishOpenShell, type OpenShellIssue, openshellSchema, type ScenarioGateway } from "./openshell.ts";
import { formatIsoMillis, formatKubeletTime, msToNs, parseRfc3339, resolveScenarioTime } from "./time.ts";

/** docs/api.md: IDs in paths (namespaceId, agentId, deploymentId); also used for cluster IDs. */

/** RFC 3339 UTC with nine fraction digits (kubelet form). */
export type KubeTime = string;
/** One log line: `[time, text]`. */
export type LogLine = [KubeTime, string];

export interface RunningState {
  running: { startedAt: KubeTime };
}
export interface WaitingState {
  waiting: { reason: string; message: string | null };
}
export interface TerminatedState {
  terminated: {
    exitCode: number;
    signal: number | null;
    reason: string | null;
    message: string | null;
    startedAt: KubeTime;
    finishedAt: KubeTime;
  };
}
export type ContainerState = RunningState | WaitingState | TerminatedState;

export interface LogGenerator {
  everyMs: number;
  /** Templates used in turn; `{n}` is the 1-based sequence number within the container instance. */
  lines: string[];
}

export interface ScenarioContainer {
  name: string;
  init: boolean;
  image: string;
  state: ContainerState;
  ready: boolean;
  restartCount: number;
  lastState: ContainerState | null;
  logs: { current: LogLine[]; previous: LogLine[] };
  generate: LogGenerator | null;
}

export interface PodCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string | null;
  message: string | null;
  lastTransitionTime: KubeTime;
}

export interface ScenarioPod {
  name: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  createdAt: KubeTime;
  phase: string;
  nodeName: string | null;
  deletionTimestamp: KubeTime | null;
  conditions: PodCondition[];
  containers: ScenarioContainer[];
}

export interface ScenarioEvent {
  /** Object name; default `{involvedObject.name}.{16 hex}` derived from the event's position. */
  name: string;
  involvedObject: { kind: string; name: string; uid: string; fieldPath: string | null };
  type: string;
  reason: string;
  message: string;
  count: number;
  firstTimestamp: KubeTime | null;
  lastTimestamp: KubeTime | null;
  eventTime: KubeTime | null;
  series: { count: number; lastObservedTime: KubeTime } | null;
  source: { component: string; host: string | null };
}

export interface ScenarioNamespace {
  name: string;
  pods: ScenarioPod[];
  events: ScenarioEvent[];
}

export interface RbacDenial {
  /** A namespace name, or `*` for every namespace. */
  namespace: string;
  /** `pods`, `pods/log`, `events`, … (resource[/subresource]). */
  resource: string;
}

export interface ClusterFaults {
  latencyMs: number;
  /** 0–1: share of requests answered with a 500 Status (seeded PRNG, deterministic). */
  failRate: number;
  /** Force this HTTP status (as a Status object) for every request; null: off. */
  status: number | null;
  /** Destroy every connection to this cluster. */
  unreachable: boolean;
  seed: number;
}

export interface ScenarioCluster {
  id: string;
  /** Bearer token; absent: the simulator generates one (stable across reloads). */
  token?: string;
  rbac: { deny: RbacDenial[] };
  faults: ClusterFaults;
  namespaces: ScenarioNamespace[];
}

export interface ScenarioLimits {
  burst?: number;
  ratePerSecond?: number;
  downloadCost?: number;
  principalInFlight?: number;
  agentInFlight?: number;
}

export type ScenarioDeployment = Omit<DeploymentRecord, "namespaceId" | "agentId">;
export type ScenarioAgent = Omit<AgentRecord, "stateVersion"> & { deployments: ScenarioDeployment[] };
export type ScenarioGrant = GrantRecord;

export interface ScenarioRegistry {
  agents: ScenarioAgent[];
  grants: ScenarioGrant[];
}

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

export interface ScenarioIssue {
  path: string;
  message: string;
}

export class ScenarioError extends Error {
  readonly issues: ScenarioIssue[];
  constructor(issues: ScenarioIssue[]) {
    super(`invalid scenario:\n${issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`);
    this.name = "ScenarioError";
    this.issues = issues;
  }
}

/** Formats a zod-style path as `clusters[0].namespaces[1].name`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}

const TIME_HINT = "must be RFC 3339 or now / now-<decimal>(ms|s|m|h|d)";
const name = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !/[/\u0000-\u001f\u007f]/.test(s), "must not contain '/' or control characters");
const id = z.string().regex(ID_PATTERN, `must match ${ID_PATTERN.source}`);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * The instant `now` names while a parse runs. Parsing is synchronous, so building the (costly) zod
 * schema once and reading the reference from here is safe.
 */
let reference = 0n;
function withReference<T>(nowNs: bigint, parse: () => T): T {
  const saved = reference;
  reference = nowNs;
  try {
    return parse();
  } finally {
    reference = saved;
  }
}

function buildSchema() {
  const time = z.string().transform((s, ctx): KubeTime => {
    const ns = resolveScenarioTime(s, reference);
    if (ns === null) {
      ctx.addIssue({ code: "custom", message: TIME_HINT });
      return z.NEVER;
    }
    return formatKubeletTime(ns);
  });

  const running = z.strictObject({ running: z.strictObject({ startedAt: time.optional() }) });
  const waiting = z.strictObject({
    waiting: z.strictObject({ reason: z.string().min(1), message: z.string().optional() }),
  });
  const terminated = z.strictObject({
    terminated: z.strictObject({
      exitCode: z.number().int(),
      signal: z.number().int().optional(),
      reason: z.string().optional(),
      message: z.string().optional(),
      startedAt: time.optional(),
      finishedAt: time.optional(),
    }),
  });
  const state = z.union([running, waiting, terminated]);
  type StateInput = z.output<typeof state>;
  const finishState = (s: StateInput, createdAt: KubeTime): ContainerState => {
    if ("running" in s) return { running: { startedAt: s.running.startedAt ?? createdAt } };
    if ("waiting" in s) return { waiting: { reason: s.waiting.reason, message: s.waiting.message ?? null } };
    const t = s.terminated;
    const startedAt = t.startedAt ?? createdAt;
    return {
      terminated: {
        exitCode: t.exitCode,
        signal: t.signal ?? null,
        reason: t.reason ?? null,
        message: t.message ?? null,
        startedAt,
        finishedAt: t.finishedAt ?? formatKubeletTime(reference),
      },
    };
  };

  const logLine = z.tuple([
    time,
    z.string().refine((s) => !s.includes("\n"), "a log line must not contain a newline"),
  ]);
  const container = z.strictObject({
    name: name(253),
    init: z.boolean().default(false),
    image: z.string().min(1).optional(),
    state: state.optional(),
    ready: z.boolean().optional(),
    restartCount: count.default(0),
    lastState: z.union([state, z.strictObject({})]).optional(),
    logs: z
      .strictObject({ current: z.array(logLine).default([]), previous: z.array(logLine).default([]) })
      .default({ current: [], previous: [] }),
    generate: z
      .strictObject({
        everyMs: z.number().int().min(1).max(86_400_000),
        lines: z.array(z.string().refine((s) => !s.includes("\n"), "no newlines")).min(1),
      })
      .optional(),
  });

  const condition = z.strictObject({
    type: z.string().min(1),
    status: z.enum(["True", "False", "Unknown"]),
    reason: z.string().optional(),
    message: z.string().optional(),
    lastTransitionTime: time.optional(),
  });

  const pod = z
    .strictObject({
      name: name(253),
      uid: name(128),
      labels: z.record(z.string(), z.string()),
      annotations: z.record(z.string(), z.string()).default({}),
      createdAt: time.optional(),
      phase: z.string().min(1).default("Running"),
      nodeName: z.string().min(1).optional(),
      deletionTimestamp: time.optional(),
      conditions: z.array(condition).optional(),
      containers: z.array(container).min(1),
    })
    .transform((p): ScenarioPod => {
      const createdAt = p.createdAt ?? formatKubeletTime(reference);
      const containers = p.containers.map((c): ScenarioContainer => {
        const st = c.state ? finishState(c.state, createdAt) : { running: { startedAt: createdAt } };
        return {
          name: c.name,
          init: c.init,
          image: c.image ?? `registry.example/${c.name}:latest`,
          state: st,
          ready: c.ready ?? "running" in st,
          restartCount: c.restartCount,
          lastState:
            c.lastState && Object.keys(c.lastState).length > 0
              ? finishState(c.lastState as StateInput, createdAt)
              : null,
          logs: c.logs,
          generate: c.generate ?? null,
        };
      });
      const conditions =
        p.conditions?.map(
          (c): PodCondition => ({
            type: c.type,
            status: c.status,
            reason: c.reason ?? null,
            message: c.message ?? null,
            lastTransitionTime: c.lastTransitionTime ?? createdAt,
          }),
        ) ?? defaultConditions(containers, p.nodeName ?? null, createdAt);
      return {
        name: p.name,
        uid: p.uid,
        labels: p.labels,
        annotations: p.annotations,
        createdAt,
        phase: p.phase,
        nodeName: p.nodeName ?? null,
        deletionTimestamp: p.deletionTimestamp ?? null,
        conditions,
        containers,
      };
    });

  const event = z
    .strictObject({
      name: name(253).optional(),
      involvedObject: z.strictObject({
        kind: z.string().min(1),
        name: z.string().min(1),
        uid: z.string().min(1),
        fieldPath: z.string().min(1).optional(),
      }),
      type: z.string().min(1),
      reason: z.string().min(1),
      message: z.string(),
      count: count.default(1),
      firstTimestamp: time.optional(),
      lastTimestamp: time.optional(),
      eventTime: time.optional(),
      series: z.strictObject({ count: count, lastObservedTime: time }).optional(),
      source: z.strictObject({ component: z.string().min(1), host: z.string().min(1).optional() }).optional(),
    })
    .transform((e) => finishEvent(e, reference));

  const namespace = z.strictObject({
    name: z.string().regex(DNS_LABEL, "must be a DNS label"),
    pods: z.array(pod).default([]),
    events: z.array(event).default([]),
  });

  const faults = z
    .strictObject({
      latencyMs: z.number().int().min(0).max(600_000).default(0),
      failRate: z.number().min(0).max(1).default(0),
      status: z.number().int().min(400).max(599).nullable().default(null),
      unreachable: z.boolean().default(false),
      seed: z.number().int().default(1),
    })
    .default({ latencyMs: 0, failRate: 0, status: null, unreachable: false, seed: 1 });

  const cluster = z.strictObject({
    id,
    token: z
      .string()
      .regex(/^[\x21-\x7e]{1,512}$/, "must be 1-512 visible ASCII characters")
      .optional(),
    rbac: z
      .strictObject({
        deny: z
          .array(
            z.strictObject({
              namespace: z.string().min(1),
              resource: z
                .string()
                .regex(/^[a-z0-9.-]+(\/[a-z0-9.-]+)?$/, "must be resource or resource/subresource"),
            }),
          )
          .default([]),
      })
      .default({ deny: [] }),
    faults,
    namespaces: z.array(namespace),
  });

  const rolePlacement = (plane?: Plane) =>
    z.strictObject({
      clusterId: id,
      namespace: z.string().regex(DNS_LABEL, "must be a DNS label"),
      plane: plane ? z.enum(["control", "execution"]).default(plane) : z.enum(["control", "execution"]),
    });
  const sandbox = z.strictObject({
    driver: z.literal("openshell"),
    endpointRef: z.string().min(1),
    sandboxName: z.string().min(1),
    workspace: z.string().min(1),
  });
  const deployment = z.strictObject({
    deploymentId: id,
    revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
    createdAt: time.optional(),
    computeDriver: z.string().min(1).default("kubernetes"),
    runtimeLogging: z.enum(["service", "driver"]).default("service"),
    placement: z.strictObject({ gateway: rolePlacement().optional(), agent: rolePlacement().optional() }),
    sandbox: sandbox.optional(),
  });
  const agent = z.strictObject({
    namespaceId: id,
    agentId: id,
    tier: z.enum(["standard", "sensitive"]).default("standard"),
    state: z.enum(["running", "stopped", "deleted"]).default("running"),
    activeDeploymentId: id.optional(),
    deployments: z.array(deployment).min(1),
  });
  const grant = z.strictObject({
    principalId: z.string().min(1).max(2048),
    namespaceId: id,
    agentId: z.union([z.literal("*"), id]).default("*"),
    actions: z.array(z.enum(["read", "operate", "read_logs", "administer"])).min(1),
  });

  return z.strictObject({
    now: z.string().optional(),
    clock: z.enum(["wall", "manual"]).default("wall"),
    limits: z
      .strictObject({
        burst: z.number().positive().optional(),
        ratePerSecond: z.number().positive().optional(),
        downloadCost: z.number().positive().optional(),
        principalInFlight: z.number().int().positive().optional(),
        agentInFlight: z.number().int().positive().optional(),
      })
      .default({}),
    clusters: z.array(cluster),
    registry: z.strictObject({ agents: z.array(agent), grants: z.array(grant) }),
    openshell: openshellSchema,
  });
}

function defaultConditions(
  containers: ScenarioContainer[],
  nodeName: string | null,
  at: KubeTime,
): PodCondition[] {
  const cond = (type: string, ok: boolean, reason: string | null = null): PodCondition => ({
    type,
    status: ok ? "True" : "False",
    reason: ok ? null : reason,
    message: null,
    lastTransitionTime: at,
  });
  const regular = containers.filter((c) => !c.init);
  const initDone = containers
    .filter((c) => c.init)
    .every((c) => "terminated" in c.state && c.state.terminated.exitCode === 0);
  const ready = regular.every((c) => c.ready);
  return [
    cond("PodScheduled", nodeName !== null, "Unschedulable"),
    cond("Initialized", initDone, "ContainersNotInitialized"),
    cond("ContainersReady", ready, "ContainersNotReady"),
    cond("Ready", ready, "ContainersNotReady"),
  ];
}

type EventInput = {
  name?: string | undefined;
  involvedObject: { kind: string; name: string; uid: string; fieldPath?: string | undefined };
  type: string;
  reason: string;
  message: string;
  count: number;
  firstTimestamp?: KubeTime | undefined;
  lastTimestamp?: KubeTime | undefined;
  eventTime?: KubeTime | undefined;
  series?: { count: number; lastObservedTime: KubeTime } | undefined;
  source?: { component: string; host?: string | undefined } | undefined;
};

/** Applies event defaults; with no time at all, the event happened at `now`. */
function finishEvent(e: EventInput, nowNs: bigint): ScenarioEvent {
  const anyTime = e.firstTimestamp ?? e.lastTimestamp ?? e.eventTime;
  const first = e.firstTimestamp ?? e.lastTimestamp ?? (anyTime ? null : formatKubeletTime(nowNs));
  const last = e.lastTimestamp ?? e.firstTimestamp ?? (anyTime ? null : first);
  const scheduler = e.reason === "FailedScheduling" || e.reason === "Scheduled";
  return {
    name: e.name ?? "",
    involvedObject: {
      kind: e.involvedObject.kind,
      name: e.involvedObject.name,
      uid: e.involvedObject.uid,
      fieldPath: e.involvedObject.fieldPath ?? null,
    },
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count,
    firstTimestamp: first,
    lastTimestamp: last,
    eventTime: e.eventTime ?? null,
    series: e.series ?? null,
    source: {
      component: e.source?.component ?? (scheduler ? "default-scheduler" : "kubelet"),
      host: e.source?.host ?? null,
    },
  };
}

/** A deterministic event name like the API server's `{object}.{hex}` names. */
export function eventName(objectName: string, seed: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < seed.length; i++) {
    const c = seed.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619) >>> 0;
    h2 = Math.imul(h2 ^ c, 2246822519) >>> 0;
  }
  return `${objectName}.${h1.toString(16).padStart(8, "0")}${h2.toString(16).padStart(8, "0")}`;
}

/** Parses one event in scenario form (admin API), times relative to `nowNs`. */
export function parseScenarioEvent(raw: unknown, nowNs: bigint, path: string[] = ["event"]): ScenarioEvent {
  const eventSchema = SCHEMA.shape.clusters.element.shape.namespaces.element.shape.events.unwrap().element;
  const result = withReference(nowNs, () => eventSchema.safeParse(raw));
  if (!result.success) throw new ScenarioError(zodIssues(result.error, path));
  return result.data;
}

/** Resolves one time given in scenario grammar against `nowNs`; throws ScenarioError at `path`. */
export function parseTimeAt(raw: unknown, nowNs: bigint, path: string): bigint {
  const ns = typeof raw === "string" ? resolveScenarioTime(raw, nowNs) : null;
  if (ns === null) throw new ScenarioError([{ path, message: TIME_HINT }]);
  return ns;
}

function zodIssues(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): ScenarioIssue[] {
  const out: ScenarioIssue[] = [];
  for (const issue of error.issues) {
    const base = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ path: formatPath([...base, key]), message: "unknown field" });
    } else if (issue.code === "invalid_union") {
      out.push(describeUnion(issue, base));
    } else {
      out.push({ path: formatPath(base), message: issue.message });
    }
  }
  return out;
}

/** A union failure (container states) names the offending key instead of zod's generic text. */
function describeUnion(issue: z.core.$ZodIssueInvalidUnion, base: PropertyKey[]): ScenarioIssue {
  const inner = issue.errors.flat();
  const unknown = inner.find((i) => i.code === "unrecognized_keys" && i.path.length === 0);
  if (unknown && unknown.code === "unrecognized_keys" && unknown.keys[0] !== undefined) {
    return {
      path: formatPath([...base, unknown.keys[0]]),
      message: "unknown field (expected one of running, waiting, terminated)",
    };
  }
  const first = inner.find((i) => i.path.length > 0) ?? inner[0];
  if (!first) return { path: formatPath(base), message: issue.message };
  return { path: formatPath([...base, ...first.path]), message: first.message };
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
  const result = withReference(nowNs, () => SCHEMA.safeParse(raw));
  if (!result.success) throw new ScenarioError(zodIssues(result.error));
  const doc = result.data;
  const issues: ScenarioIssue[] = [];
  const clusters = doc.clusters.map((c, ci) => finishCluster(c, ci, issues));
  const clusterIds = new Set(clusters.map((c) => c.id));
  const registry = finishRegistry(doc.registry, clusterIds, nowNs, issues);
  const shellIssues: OpenShellIssue[] = [];
  const openshell = finishOpenShell(doc.openshell, nowNs, shellIssues);
  for (const i of shellIssues) issues.push({ path: formatPath(i.path), message: i.message });
  checkSandboxRefs(registry, new Set(openshell.map((g) => g.id)), issues);
  if (issues.length > 0) throw new ScenarioError(issues);
  const scenario: Scenario = {
    now: formatIsoMillis(nowNs),
    clock: doc.clock,
    limits: stripUndefined(doc.limits) as ScenarioLimits,
    clusters,
    registry,
    openshell,
  };
  parsed.add(scenario);
  return scenario;
}

const parsed = new WeakSet<object>();

/**
 * Whether `value` is a Scenario that parseScenario returned, or a copy of one (JSON round trip):
 * already defaulted, so it must not be parsed again (its nulls are not scenario-file syntax).
 */
export function isParsedScenario(value: unknown): value is Scenario {
  if (typeof value !== "object" || value === null) return false;
  if (parsed.has(value)) return true;
  const v = value as Partial<Scenario>;
  return (
    typeof v.now === "string" &&
    (v.clock === "wall" || v.clock === "manual") &&
    typeof v.limits === "object" &&
    Array.isArray(v.clusters) &&
    v.clusters.every(
      (c) =>
        typeof c?.faults?.seed === "number" &&
        Array.isArray(c.rbac?.deny) &&
        Array.isArray(c.namespaces) &&
        c.namespaces.every(
          (n) => Array.isArray(n?.pods) && n.pods.every((p) => Array.isArray(p?.conditions)),
        ),
    ) &&
    Array.isArray(v.registry?.agents) &&
    v.registry.agents.every((a) => typeof a?.activeDeploymentId === "string")
  );
}

const SCHEMA = buildSchema();
type ParsedDoc = z.output<typeof SCHEMA>;

function finishCluster(
  c: ParsedDoc["clusters"][number],
  ci: number,
  issues: ScenarioIssue[],
): ScenarioCluster {
  const seenNs = new Set<string>();
  c.namespaces.forEach((ns, ni) => {
    const at = (...rest: PropertyKey[]) => formatPath(["clusters", ci, "namespaces", ni, ...rest]);
    if (seenNs.has(ns.name)) issues.push({ path: at("name"), message: `duplicate namespace "${ns.name}"` });
    seenNs.add(ns.name);
    const seenPods = new Set<string>();
    ns.pods.forEach((p, pi) => {
      if (seenPods.has(p.name))
        issues.push({ path: at("pods", pi, "name"), message: `duplicate pod "${p.name}"` });
      seenPods.add(p.name);
      const seenContainers = new Set<string>();
      p.containers.forEach((k, ki) => {
        if (seenContainers.has(k.name)) {
          issues.push({
            path: at("pods", pi, "containers", ki, "name"),
            message: `duplicate container "${k.name}"`,
          });
        }
        seenContainers.add(k.name);
      });
    });
    ns.events.forEach((e, ei) => {
      if (e.name === "") e.name = eventName(e.involvedObject.name, `${c.id}/${ns.name}/${ei}/${e.reason}`);
    });
  });
  const cluster: ScenarioCluster = { id: c.id, rbac: c.rbac, faults: c.faults, namespaces: c.namespaces };
  if (c.token !== undefined) cluster.token = c.token;
  return cluster;
}

function finishRegistry(
  r: ParsedDoc["registry"],
  clusterIds: Set<string>,
  nowNs: bigint,
  issues: ScenarioIssue[],
): ScenarioRegistry {
  const seenAgents = new Set<string>();
  const agents = r.agents.map((a, ai): ScenarioAgent => {
    const at = (...rest: PropertyKey[]) => formatPath(["registry", "agents", ai, ...rest]);
    const key = `${a.namespaceId}/${a.agentId}`;
    if (seenAgents.has(key)) issues.push({ path: at("agentId"), message: `duplicate agent "${key}"` });
    seenAgents.add(key);
    const seenDeployments = new Set<string>();
    const deployments = a.deployments.map((d, di): ScenarioDeployment => {
      if (seenDeployments.has(d.deploymentId)) {
        issues.push({
          path: at("deployments", di, "deploymentId"),
          message: `duplicate deployment "${d.deploymentId}"`,
        });
      }
      seenDeployments.add(d.deploymentId);
      const placement: Placement = {};
      for (const role of ["gateway", "agent"] as const) {
        const p = d.placement[role];
        if (!p) continue;
        if (!clusterIds.has(p.clusterId)) {
          issues.push({
            path: at("deployments", di, "placement", role, "clusterId"),
            message: `unknown cluster "${p.clusterId}"`,
          });
        }
        placement[role] = {
          clusterId: p.clusterId,
          namespace: p.namespace,
          plane: p.plane,
        } satisfies RolePlacement;
      }
      const createdNs = d.createdAt ? parseRfc3339(d.createdAt) : nowNs;
      const out: ScenarioDeployment = {
        deploymentId: d.deploymentId,
        revision: d.revision,
        createdAt: formatIsoMillis(createdNs ?? nowNs),
        computeDriver: d.computeDriver,
        runtimeLogging: d.runtimeLogging,
        placement,
      };
      if (d.sandbox) out.sandbox = d.sandbox satisfies SandboxRef;
      return out;
    });
    const newest = deployments.reduce((best, d) => (d.revision > best.revision ? d : best));
    const active = a.activeDeploymentId ?? newest.deploymentId;
    if (!seenDeployments.has(active)) {
      issues.push({ path: at("activeDeploymentId"), message: `no deployment "${active}" in this agent` });
    }
    return {
      namespaceId: a.namespaceId,
      agentId: a.agentId,
      tier: a.tier,
      state: a.state,
      activeDeploymentId: active,
      deployments,
    };
  });
  const grants = r.grants.map(
    (g): ScenarioGrant => ({
      principalId: g.principalId,
      namespaceId: g.namespaceId,
      agentId: g.agentId,
      actions: [...new Set<Action>(g.actions)],
    }),
  );
  return { agents, grants };
}

/** A deployment's sandbox must name a gateway of the scenario's `openshell` block. */
function checkSandboxRefs(
  registry: ScenarioRegistry,
  gatewayIds: Set<string>,
  issues: ScenarioIssue[],
): void {
  registry.agents.forEach((a, ai) => {
    a.deployments.forEach((d, di) => {
      if (d.sandbox && !gatewayIds.has(d.sandbox.endpointRef)) {
        issues.push({
          path: formatPath(["registry", "agents", ai, "deployments", di, "sandbox", "endpointRef"]),
          message: `unknown OpenShell gateway "${d.sandbox.endpointRef}"`,
        });
      }
    });
  });
}

function stripUndefined(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
