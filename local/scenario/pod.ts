/**
 * Pods in the scenario: containers with their states, log lines and generators, and conditions.
 * The schema checks the document; `resolvePod` fills the defaults that depend on the scenario's
 * `now` and turns every time into kubelet form.
 */
import { z } from "zod";
import { count, type KubeTime, kubeTime, name, time } from "./fields.ts";
import { formatKubeletTime } from "./time.ts";

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
type StateDoc = z.output<typeof state>;

const logLine = z.tuple([
  time,
  z.string().refine((s) => !s.includes("\n"), "a log line must not contain a newline"),
]);

const generator = z.strictObject({
  everyMs: z.number().int().min(1).max(86_400_000),
  /** Templates used in turn; `{n}` is the 1-based sequence number within the container instance. */
  lines: z.array(z.string().refine((s) => !s.includes("\n"), "no newlines")).min(1),
});
export type LogGenerator = z.output<typeof generator>;

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
  generate: generator.optional(),
});

const condition = z.strictObject({
  type: z.string().min(1),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: time.optional(),
});

export const podSchema = z.strictObject({
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
});
export type PodDoc = z.output<typeof podSchema>;

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
  status: z.output<typeof condition>["status"];
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

function resolveState(s: StateDoc, createdAt: KubeTime, nowNs: bigint): ContainerState {
  if ("running" in s)
    return { running: { startedAt: s.running.startedAt ? kubeTime(s.running.startedAt, nowNs) : createdAt } };
  if ("waiting" in s) return { waiting: { reason: s.waiting.reason, message: s.waiting.message ?? null } };
  const t = s.terminated;
  return {
    terminated: {
      exitCode: t.exitCode,
      signal: t.signal ?? null,
      reason: t.reason ?? null,
      message: t.message ?? null,
      startedAt: t.startedAt ? kubeTime(t.startedAt, nowNs) : createdAt,
      finishedAt: t.finishedAt ? kubeTime(t.finishedAt, nowNs) : formatKubeletTime(nowNs),
    },
  };
}

const resolveLines = (lines: [string, string][], nowNs: bigint): LogLine[] =>
  lines.map(([t, text]) => [kubeTime(t, nowNs), text]);

/** A pod with its defaults filled and its times resolved against `nowNs`. */
export function resolvePod(p: PodDoc, nowNs: bigint): ScenarioPod {
  const createdAt = p.createdAt ? kubeTime(p.createdAt, nowNs) : formatKubeletTime(nowNs);
  const containers = p.containers.map((c): ScenarioContainer => {
    const st = c.state ? resolveState(c.state, createdAt, nowNs) : { running: { startedAt: createdAt } };
    return {
      name: c.name,
      init: c.init,
      image: c.image ?? `registry.example/${c.name}:latest`,
      state: st,
      ready: c.ready ?? "running" in st,
      restartCount: c.restartCount,
      lastState:
        c.lastState && Object.keys(c.lastState).length > 0
          ? resolveState(c.lastState as StateDoc, createdAt, nowNs)
          : null,
      logs: { current: resolveLines(c.logs.current, nowNs), previous: resolveLines(c.logs.previous, nowNs) },
      generate: c.generate ?? null,
    };
  });
  const nodeName = p.nodeName ?? null;
  const conditions =
    p.conditions?.map(
      (c): PodCondition => ({
        type: c.type,
        status: c.status,
        reason: c.reason ?? null,
        message: c.message ?? null,
        lastTransitionTime: c.lastTransitionTime ? kubeTime(c.lastTransitionTime, nowNs) : createdAt,
      }),
    ) ?? defaultConditions(containers, nodeName, createdAt);
  return {
    name: p.name,
    uid: p.uid,
    labels: p.labels,
    annotations: p.annotations,
    createdAt,
    phase: p.phase,
    nodeName,
    deletionTimestamp: p.deletionTimestamp ? kubeTime(p.deletionTimestamp, nowNs) : null,
    conditions,
    containers,
  };
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
