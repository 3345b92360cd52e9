/**
 * Types of restart attribution (restarts.md). An *observation* is the slice of a runtime
 * description that attribution needs; `observe.ts` builds it from the kube driver's description,
 * and the probe persists a compact copy of it between runs (the `OBS#…` item).
 */
import type { Plane, Role } from "../domain.ts";
import type { RestartPhase } from "./parse.ts";

export type RestartScope = "container-restart" | "pod-replacement" | "in-process" | "unknown";

export type TriggerCategory =
  | "operator-restart"
  | "config-write"
  | "gateway-update"
  | "liveness-probe"
  | "oom"
  | "crash"
  | "eviction"
  | "preemption"
  | "rollout"
  | "pod-deletion"
  | "node"
  | "external"
  | "unknown";

export type Confidence = "confirmed" | "inferred" | "unknown";
export type ActorKind = "human-operator" | "agent" | "kubernetes" | "external-unknown";
export type DetectedBy = "status-read" | "health-probe";

export interface ObservedTermination {
  exitCode: number | null;
  signal: number | null;
  reason: string | null;
  /** Raw, untrusted: redacted and capped before it enters a record. */
  message: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ObservedContainer {
  name: string;
  init: boolean;
  restartCount: number;
  /** Start of the current instance (running or terminated state); null when unknown. */
  startedAt: string | null;
  lastTermination: ObservedTermination | null;
}

export interface ObservedEvent {
  type: string;
  reason: string;
  /** Container from `involvedObject.fieldPath`, null for Pod-level Events. */
  container: string | null;
  /** Raw, untrusted; only matched against known probe phrases, never copied into records. */
  message: string;
  lastObservedAt: string | null;
}

export interface ObservedPod {
  role: Role;
  plane: Plane;
  name: string;
  uid: string;
  phase: string;
  createdAt: string | null;
  /** Pod `status.reason` (e.g. `Evicted`), null when absent. */
  statusReason: string | null;
  /** The `kubectl.kubernetes.io/restartedAt` annotation, null when absent. */
  restartedAt: string | null;
  containers: ObservedContainer[];
  events: ObservedEvent[];
}

export interface Observation {
  observedAt: string;
  pods: ObservedPod[];
}

export interface InstanceRef {
  pod: string;
  podUid: string;
  container: string;
  restartCount: number;
}

/** One instance transition, before attribution. */
export interface Transition {
  scope: RestartScope;
  role: Role;
  plane: Plane;
  container: string;
  previous: InstanceRef & { startedAt: string | null; finishedAt: string | null };
  next: InstanceRef & { startedAt: string | null };
  termination: ObservedTermination | null;
  /** The Pod(s) whose Events and annotations are evidence: the old one first on a replacement. */
  previousPod: ObservedPod | null;
  nextPod: ObservedPod;
}

export interface RestartInstance {
  podUid: string;
  container: string;
  restartCount: number;
  pod: string;
  startedAt: string | null;
  finishedAt: string | null;
  pid: number | null;
}

export interface RestartRecord {
  restartId: string;
  namespaceId: string;
  agentId: string;
  deploymentId: string;
  role: Role;
  plane: Plane;
  pod: string;
  container: string;
  scope: RestartScope;
  previous: RestartInstance;
  next: RestartInstance;
  termination: {
    exitCode: number | null;
    signal: number | null;
    reason: string | null;
    message: string | null;
  } | null;
  trigger: {
    category: TriggerCategory;
    source: string | null;
    /** The agent's `action=`/`method=` from its restart lines, capped and redacted like `source`. */
    action: string | null;
    method: string | null;
    confidence: Confidence;
  };
  actor: { kind: ActorKind; actorRef: string | null; sessionRef: string | null; channel: string | null };
  evidence: { phases: RestartPhase[]; eventReasons: string[]; restartedAtAnnotation: boolean };
  detectedAt: string;
  detectedBy: DetectedBy;
}
