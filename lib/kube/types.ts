/**
 * What the KubeDriver returns: the runtime description of docs/api.md (minus `restarts`, which the
 * restart attribution adds) and the per-Pod observations that attribution needs.
 */
import type { Plane, Role, SourceId } from "../domain.ts";

export type ContainerStateName = "waiting" | "running" | "terminated" | "unknown";

export interface LastTermination {
  reason: string | null;
  exitCode: number | null;
  signal: number | null;
  finishedAt: string | null;
}

export interface RuntimeContainer {
  name: string;
  init: boolean;
  state: ContainerStateName;
  reason: string | null;
  ready: boolean;
  restartCount: number;
  startedAt: string | null;
  lastTermination: LastTermination | null;
}

export interface RuntimeEvent {
  type: "Normal" | "Warning";
  container: string | null;
  reason: string;
  message: string;
  count: number;
  lastObservedAt: string | null;
}

export interface RuntimePod {
  role: Role;
  cluster: Plane;
  name: string;
  uid: string;
  phase: string;
  ready: boolean;
  createdAt: string | null;
  containers: RuntimeContainer[];
  events: RuntimeEvent[];
}

export interface SourcePod {
  name: string;
  uid: string;
  container: string;
  restartCount: number;
}

/** A container of a Pod as a log read needs it: init or regular, and its current restart count. */
export interface ReadableContainer {
  name: string;
  init: boolean;
  restartCount: number;
}

/**
 * A current Pod of one role as the logs route sees it: what may be read (every declared
 * container) and which container is the source's main one. The read targets exactly this Pod.
 */
export interface ReadablePod {
  name: string;
  uid: string;
  /** The source's main container (the declared default, else the first regular one). */
  main: string;
  /** Init then regular containers, in spec order. */
  containers: ReadableContainer[];
}

export interface RuntimeSource {
  id: SourceId;
  kind: "container" | "sandbox";
  pods: SourcePod[];
  available: boolean;
  unavailableCode?: "NO_POD" | "NOT_CONFIGURED";
  retention: string;
}

/** docs/api.md § Runtime description without `restarts`. */
export interface RuntimeDescription {
  deploymentId: string;
  observedAt: string;
  pods: RuntimePod[];
  sources: RuntimeSource[];
}

/** How a container instance ended, as restart attribution needs it (docs/restarts.md § termination). */
export interface TerminationDetail {
  reason: string | null;
  exitCode: number | null;
  signal: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** The termination message, redacted and capped at 512 characters. */
  message: string | null;
}

export interface ContainerObservation {
  name: string;
  init: boolean;
  restartCount: number;
  state: ContainerStateName;
  startedAt: string | null;
  /** `state.terminated` of the current instance (an init container that completed, a crashed one). */
  terminated: TerminationDetail | null;
  /** `lastState.terminated`: how the previous instance ended. */
  lastTerminated: TerminationDetail | null;
}

/** Validated, non-API facts about one Pod for restart attribution (docs/restarts.md). */
export interface PodObservation {
  role: Role;
  plane: Plane;
  clusterId: string;
  namespace: string;
  name: string;
  uid: string;
  createdAt: string | null;
  nodeName: string | null;
  /** `status.reason`, e.g. `Evicted`; a short token or null. */
  statusReason: string | null;
  /** The Pod's own `kubectl.kubernetes.io/restartedAt` annotation, verbatim (an opaque token, compared for change). */
  restartedAt: string | null;
  containers: ContainerObservation[];
}

export interface RuntimeObservation {
  description: RuntimeDescription;
  observations: PodObservation[];
}

/** Per-request counters the HTTP layer logs. */
export interface CallStats {
  clusterCalls: number;
}

/** Options every driver entry point takes. */
export interface CallOptions {
  /** The request's signal (aborted when the request ends or its deadline passes). */
  signal: AbortSignal;
  /** The request deadline, epoch milliseconds. */
  deadline: number;
  /** Incremented once per cluster HTTP call. */
  stats?: CallStats;
}

export interface AccessCheck {
  verb: "list" | "get";
  resource: "pods" | "pods/log" | "events";
  /** null when the review itself could not be made (see `errorCode`). */
  allowed: boolean | null;
  errorCode?: string;
}

export interface AccessReport {
  clusterId: string;
  namespace: string;
  version: { ok: boolean; latencyMs: number; errorCode?: string };
  checks: AccessCheck[];
}
