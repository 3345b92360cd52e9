/**
 * The simulator's mutable world: clusters, namespaces, Pods with their container instances (each a
 * log), Events, and the admin operations that change them (docs/kube.md § Admin API). No HTTP here.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  type ClusterFaults,
  type ContainerState,
  eventName,
  type KubeTime,
  type LogGenerator,
  type LogLine,
  parseScenarioEvent,
  parseStrict,
  parseTimeAt,
  type RbacDenial,
  type Scenario,
  type ScenarioContainer,
  ScenarioError,
  type ScenarioEvent,
  type ScenarioPod,
} from "../scenario/schema.ts";
import { formatKubeletTime, msToNs, parseRfc3339 } from "../scenario/time.ts";
import { appendInput, eventInput, faultInput, replaceInput, restartInput } from "./admin-input.ts";
import { createClock, type SimClock } from "./clock.ts";

/** An admin or lookup failure with the HTTP status the admin API answers. */
export class SimError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "SimError";
    this.status = status;
  }
}

interface GeneratorState {
  everyNs: bigint;
  templates: string[];
  nextNs: bigint;
  n: number;
}

/** One run of a container: its own ID and log. */
export interface Instance {
  containerId: string;
  startedNs: bigint;
  lines: LogLine[];
  gen: GeneratorState | null;
}

/** A scenario container as the simulator runs it: its logs live in instances. */
export interface SimContainer extends Omit<ScenarioContainer, "logs"> {
  current: Instance;
  /** The instance `previous=true` serves; null when the kubelet has none. */
  previous: Instance | null;
}

/** A scenario Pod as the simulator serves it: placed in its namespace, with live containers. */
export interface SimPod extends Omit<ScenarioPod, "containers"> {
  namespace: string;
  containers: SimContainer[];
  resourceVersion: string;
}

export interface SimEvent extends ScenarioEvent {
  namespace: string;
  uid: string;
  creationTimestamp: KubeTime;
  resourceVersion: string;
}

export interface SimNamespace {
  name: string;
  pods: Map<string, SimPod>;
  events: Map<string, SimEvent>;
}

export interface SimCluster {
  id: string;
  token: string;
  deny: RbacDenial[];
  faults: ClusterFaults;
  /** Seeded PRNG for `failRate`. */
  random: () => number;
  namespaces: Map<string, SimNamespace>;
  resourceVersion: number;
  /** `rawLog` faults by `namespace/pod/container`: the log endpoint answers this body, whatever the query. */
  rawLogs: Map<string, RawLogFault>;
}

/** A hostile or broken node (docs/kube.md § Admin API): a log body served as is, `repeat` times. */
export interface RawLogFault {
  namespace: string;
  pod: string;
  container: string;
  body: string;
  repeat: number;
  /** The encoded answer, built once when the fault is set. */
  bytes: Buffer;
}

/** What `setFault` reports: the cluster's faults and its raw log bodies (without the bodies). */
export type FaultState = ClusterFaults & {
  rawLogs: Array<{ namespace: string; pod: string; container: string; bytes: number }>;
};

export const rawLogKey = (namespace: string, pod: string, container: string): string =>
  `${namespace}/${pod}/${container}`;

/** Generated lines materialized per read at most; older slots are skipped (like log rotation). */
const MAX_GENERATED = 100_000;

export function instanceId(podUid: string, container: string, index: number): string {
  return createHash("sha256").update(`${podUid}/${container}/${index}`).digest("hex");
}

/** mulberry32: small, fast, deterministic. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashSeed(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

function timeNs(t: KubeTime): bigint {
  return parseRfc3339(t) ?? 0n;
}

function instanceStart(state: ContainerState, lastState: ContainerState | null, createdAt: KubeTime): bigint {
  if ("running" in state) return timeNs(state.running.startedAt);
  if ("terminated" in state) return timeNs(state.terminated.startedAt);
  if (lastState && "terminated" in lastState) return timeNs(lastState.terminated.startedAt);
  return timeNs(createdAt);
}

function newGenerator(
  generate: LogGenerator | null,
  state: ContainerState,
  fromNs: bigint,
): GeneratorState | null {
  if (!generate || !("running" in state)) return null;
  const everyNs = msToNs(generate.everyMs);
  return { everyNs, templates: generate.lines, nextNs: fromNs + everyNs, n: 1 };
}

export class World {
  readonly scenario: Scenario;
  readonly clock: SimClock;
  readonly clusters = new Map<string, SimCluster>();

  constructor(scenario: Scenario, previousTokens: ReadonlyMap<string, string> = new Map()) {
    this.scenario = scenario;
    const startNs = parseRfc3339(scenario.now) ?? 0n;
    this.clock = createClock(scenario.clock, startNs);
    for (const c of scenario.clusters) {
      const cluster: SimCluster = {
        id: c.id,
        token: c.token ?? previousTokens.get(c.id) ?? randomBytes(24).toString("base64url"),
        deny: c.rbac.deny,
        faults: { ...c.faults },
        random: seededRandom(c.faults.seed ^ hashSeed(c.id)),
        namespaces: new Map(),
        resourceVersion: 1000,
        rawLogs: new Map(),
      };
      for (const ns of c.namespaces) {
        const space: SimNamespace = { name: ns.name, pods: new Map(), events: new Map() };
        for (const p of ns.pods) space.pods.set(p.name, this.buildPod(cluster, ns.name, p, startNs));
        for (const e of ns.events) this.storeEvent(cluster, space, e);
        cluster.namespaces.set(ns.name, space);
      }
      this.clusters.set(c.id, cluster);
    }
  }

  nowNs(): bigint {
    return this.clock.nowNs();
  }

  cluster(id: string): SimCluster {
    const c = this.clusters.get(id);
    if (!c) throw new SimError(404, `unknown cluster "${id}"`);
    return c;
  }

  pod(
    clusterId: string,
    namespace: string,
    name: string,
  ): { cluster: SimCluster; ns: SimNamespace; pod: SimPod } {
    const cluster = this.cluster(clusterId);
    const ns = cluster.namespaces.get(namespace);
    if (!ns) throw new SimError(404, `unknown namespace "${namespace}" in cluster "${clusterId}"`);
    const pod = ns.pods.get(name);
    if (!pod) throw new SimError(404, `unknown pod "${name}" in ${clusterId}/${namespace}`);
    return { cluster, ns, pod };
  }

  container(clusterId: string, namespace: string, podName: string, name: string) {
    const found = this.pod(clusterId, namespace, podName);
    const container = found.pod.containers.find((c) => c.name === name);
    if (!container) throw new SimError(404, `unknown container "${name}" in pod "${podName}"`);
    return { ...found, container };
  }

  /** Appends the generator's lines due up to the clock's now (lazily, so manual clocks need no timers). */
  materialize(container: SimContainer): void {
    const gen = container.current.gen;
    if (!gen) return;
    const now = this.nowNs();
    if (gen.nextNs > now) return;
    let due = (now - gen.nextNs) / gen.everyNs + 1n;
    if (due > BigInt(MAX_GENERATED)) {
      const skip = due - BigInt(MAX_GENERATED);
      gen.nextNs += skip * gen.everyNs;
      gen.n += Number(skip);
      due = BigInt(MAX_GENERATED);
    }
    for (let i = 0n; i < due; i++) {
      const template = gen.templates[(gen.n - 1) % gen.templates.length] ?? "";
      container.current.lines.push([
        formatKubeletTime(gen.nextNs),
        template.replaceAll("{n}", String(gen.n)),
      ]);
      gen.n += 1;
      gen.nextNs += gen.everyNs;
    }
  }

  private bump(cluster: SimCluster): string {
    cluster.resourceVersion += 1;
    return String(cluster.resourceVersion);
  }

  private buildPod(cluster: SimCluster, namespace: string, p: ScenarioPod, genFromNs: bigint): SimPod {
    return {
      name: p.name,
      namespace,
      uid: p.uid,
      labels: { ...p.labels },
      annotations: { ...p.annotations },
      createdAt: p.createdAt,
      phase: p.phase,
      nodeName: p.nodeName,
      deletionTimestamp: p.deletionTimestamp,
      conditions: p.conditions.map((c) => ({ ...c })),
      resourceVersion: this.bump(cluster),
      containers: p.containers.map((c): SimContainer => {
        const started = instanceStart(c.state, c.lastState, p.createdAt);
        const hasPrevious = c.lastState !== null && "terminated" in c.lastState;
        return {
          name: c.name,
          init: c.init,
          image: c.image,
          state: c.state,
          ready: c.ready,
          restartCount: c.restartCount,
          lastState: c.lastState,
          generate: c.generate,
          current: {
            containerId: instanceId(p.uid, c.name, c.restartCount),
            startedNs: started,
            lines: c.logs.current.map(([t, s]): LogLine => [t, s]),
            gen: newGenerator(c.generate, c.state, started > genFromNs ? started : genFromNs),
          },
          previous: hasPrevious
            ? {
                containerId: instanceId(p.uid, c.name, Math.max(0, c.restartCount - 1)),
                startedNs: instanceStart(c.lastState as ContainerState, null, p.createdAt),
                lines: c.logs.previous.map(([t, s]): LogLine => [t, s]),
                gen: null,
              }
            : null,
        };
      }),
    };
  }

  private storeEvent(cluster: SimCluster, ns: SimNamespace, e: ScenarioEvent): SimEvent {
    const created = e.firstTimestamp ?? e.eventTime ?? e.lastTimestamp ?? formatKubeletTime(this.nowNs());
    const event: SimEvent = {
      ...e,
      namespace: ns.name,
      uid: uuidFrom(`${cluster.id}/${ns.name}/${e.name}`),
      creationTimestamp: created,
      resourceVersion: this.bump(cluster),
    };
    ns.events.set(e.name, event);
    return event;
  }

  // ---- admin operations (docs/kube.md § Admin API) ----

  append(input: unknown): { appended: number } {
    const a = parseStrict(appendInput, input);
    const { container } = this.container(a.cluster, a.namespace, a.pod, a.container);
    this.materialize(container);
    const now = this.nowNs();
    const lines = a.lines.map(([t, text], i): LogLine => {
      if (text.includes("\n")) throw new ScenarioError([{ path: `lines[${i}][1]`, message: "no newlines" }]);
      return [formatKubeletTime(parseTimeAt(t, now, `lines[${i}][0]`)), text];
    });
    container.current.lines.push(...lines);
    return { appended: lines.length };
  }

  restart(input: unknown): { restartCount: number } {
    const r = parseStrict(restartInput, input);
    const { cluster, pod, container } = this.container(r.cluster, r.namespace, r.pod, r.container);
    this.materialize(container);
    const now = this.nowNs();
    const nowText = formatKubeletTime(now);
    const old = container.current;
    container.previous = { ...old, gen: null };
    container.lastState = {
      terminated: {
        exitCode: r.exitCode,
        signal: r.signal ?? null,
        reason: r.reason,
        message: null,
        startedAt: formatKubeletTime(old.startedNs),
        finishedAt: nowText,
      },
    };
    container.restartCount += 1;
    container.state = { running: { startedAt: nowText } };
    container.ready = true;
    container.current = {
      containerId: instanceId(pod.uid, container.name, container.restartCount),
      startedNs: now,
      lines: [],
      gen: newGenerator(container.generate, container.state, now),
    };
    refreshReadiness(pod, nowText);
    pod.resourceVersion = this.bump(cluster);
    return { restartCount: container.restartCount };
  }

  replacePod(input: unknown): { name: string; uid: string } {
    const r = parseStrict(replaceInput, input);
    const { cluster, ns, pod } = this.pod(r.cluster, r.namespace, r.pod);
    const newName = r.newName ?? pod.name;
    if (newName !== pod.name && ns.pods.has(newName))
      throw new SimError(409, `pod "${newName}" already exists`);
    const now = this.nowNs();
    const nowText = formatKubeletTime(now);
    const containers = pod.containers.map((c): SimContainer => {
      const state: ContainerState = c.init
        ? {
            terminated: {
              exitCode: 0,
              signal: null,
              reason: "Completed",
              message: null,
              startedAt: nowText,
              finishedAt: nowText,
            },
          }
        : { running: { startedAt: nowText } };
      return {
        name: c.name,
        init: c.init,
        image: c.image,
        state,
        ready: !c.init,
        restartCount: 0,
        lastState: null,
        generate: c.generate,
        current: {
          containerId: instanceId(r.newUid, c.name, 0),
          startedNs: now,
          lines: [],
          gen: newGenerator(c.generate, state, now),
        },
        previous: null,
      };
    });
    const replacement: SimPod = {
      ...pod,
      name: newName,
      uid: r.newUid,
      labels: { ...pod.labels },
      annotations: { ...pod.annotations },
      createdAt: nowText,
      phase: "Running",
      deletionTimestamp: null,
      conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
        type,
        status: "True",
        reason: null,
        message: null,
        lastTransitionTime: nowText,
      })),
      containers,
      resourceVersion: this.bump(cluster),
    };
    ns.pods.delete(pod.name);
    ns.pods.set(newName, replacement);
    return { name: newName, uid: r.newUid };
  }

  addEvent(input: unknown): { name: string } {
    const r = parseStrict(eventInput, input);
    const cluster = this.cluster(r.cluster);
    const ns = cluster.namespaces.get(r.namespace);
    if (!ns) throw new SimError(404, `unknown namespace "${r.namespace}" in cluster "${r.cluster}"`);
    const event = parseScenarioEvent(r.event, this.nowNs());
    if (event.name === "") {
      event.name = eventName(
        event.involvedObject.name,
        `${cluster.id}/${ns.name}/admin/${cluster.resourceVersion}`,
      );
    }
    const existing = ns.events.get(event.name);
    const stored = this.storeEvent(cluster, ns, event);
    if (existing) stored.creationTimestamp = existing.creationTimestamp;
    return { name: stored.name };
  }

  setClock(now: string | Date): { now: string } {
    const ns = now instanceof Date ? msToNs(now.getTime()) : parseTimeAt(now, this.nowNs(), "now");
    this.clock.set(ns);
    return { now: formatKubeletTime(this.nowNs()) };
  }

  advanceClock(ms: number): { now: string } {
    if (!Number.isFinite(ms) || ms < 0) throw new SimError(400, "advanceMs must be a finite number ≥ 0");
    this.clock.advance(ms);
    return { now: formatKubeletTime(this.nowNs()) };
  }

  setFault(input: unknown): FaultState {
    const f = parseStrict(faultInput, input);
    const cluster = this.cluster(f.cluster);
    if (f.latencyMs !== undefined) cluster.faults.latencyMs = f.latencyMs;
    if (f.failRate !== undefined) cluster.faults.failRate = f.failRate;
    if (f.status !== undefined) cluster.faults.status = f.status;
    if (f.unreachable !== undefined) cluster.faults.unreachable = f.unreachable;
    if (f.seed !== undefined) {
      cluster.faults.seed = f.seed;
      cluster.random = seededRandom(f.seed ^ hashSeed(cluster.id));
    }
    if (f.rawLog === null) cluster.rawLogs.clear();
    else if (f.rawLog !== undefined) {
      const r = f.rawLog;
      const repeat = r.repeat ?? 1;
      const unit = Buffer.from(r.body, "utf8");
      if (unit.length * repeat > MAX_RAW_LOG_BYTES) {
        throw new SimError(400, `rawLog: body × repeat must stay within ${MAX_RAW_LOG_BYTES} bytes`);
      }
      const bytes = Buffer.alloc(unit.length * repeat);
      for (let i = 0; i < repeat; i++) unit.copy(bytes, i * unit.length);
      cluster.rawLogs.set(rawLogKey(r.namespace, r.pod, r.container), { ...r, repeat, bytes });
    }
    return faultState(cluster);
  }
}

function faultState(cluster: SimCluster): FaultState {
  return {
    ...cluster.faults,
    rawLogs: [...cluster.rawLogs.values()].map((r) => ({
      namespace: r.namespace,
      pod: r.pod,
      container: r.container,
      bytes: r.bytes.length,
    })),
  };
}

/** A raw log body stays within what a test or bench needs (a few MiB), so the fault cannot exhaust memory. */
const MAX_RAW_LOG_BYTES = 16 * 1024 * 1024;

/** Ready/ContainersReady follow the regular containers' readiness after an admin change. */
function refreshReadiness(pod: SimPod, at: KubeTime): void {
  const ready = pod.containers.filter((c) => !c.init).every((c) => c.ready);
  for (const c of pod.conditions) {
    if (c.type !== "Ready" && c.type !== "ContainersReady") continue;
    const status = ready ? "True" : "False";
    if (c.status !== status) {
      c.status = status;
      c.reason = ready ? null : "ContainersNotReady";
      c.lastTransitionTime = at;
    }
  }
}

/** A stable, UUID-shaped identifier derived from `seed`. */
export function uuidFrom(seed: string): string {
  const h = createHash("sha256").update(seed).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
