/** The API's data shapes the console reads (api.md), as plain types: the server is the validator. */

export type Level = "error" | "warn" | "info" | "debug" | "unknown";
export const LEVELS: readonly Level[] = ["error", "warn", "info", "debug", "unknown"];

export interface Deployment {
  deploymentId: string;
  revision: number | null;
  createdAt: string | null;
  active: boolean;
}

export interface Termination {
  reason: string | null;
  exitCode: number | null;
  signal: number | null;
  finishedAt: string | null;
}

export interface Container {
  name: string;
  init: boolean;
  state: "waiting" | "running" | "terminated" | "unknown";
  reason: string | null;
  ready: boolean;
  restartCount: number;
  startedAt: string | null;
  lastTermination: Termination | null;
}

export interface PodEvent {
  type: "Normal" | "Warning";
  container: string | null;
  reason: string;
  message: string;
  count: number;
  lastObservedAt: string | null;
}

export interface Pod {
  role: "gateway" | "agent";
  cluster: "control" | "execution";
  name: string;
  uid: string;
  phase: string;
  ready: boolean;
  createdAt: string | null;
  containers: Container[];
  events: PodEvent[];
}

export interface SourcePod {
  name: string;
  uid: string;
  container: string;
  restartCount: number;
}

export type SourceId = "gateway" | "agent" | "sandbox";

export interface Source {
  id: SourceId;
  kind: "container" | "sandbox";
  pods: SourcePod[];
  available: boolean;
  unavailableCode?: string;
  retention: string;
}

/** The parts of a restart record (restarts.md) the Pod cards show. */
export interface RestartRecord {
  pod: string;
  container: string;
  scope: string;
  trigger: { category: string; confidence: string };
  previous?: { finishedAt: string | null } | null;
  next?: { startedAt: string | null } | null;
  detectedAt: string;
}

export interface Runtime {
  deploymentId: string;
  observedAt: string;
  pods: Pod[];
  sources: Source[];
  restarts: RestartRecord[];
}

export interface LineRecord {
  type: "line";
  time: string | null;
  kind: "text" | "structured" | "wrapper" | "sandbox";
  level: Level;
  message: string;
  subsystem?: string;
  fields?: Record<string, string | number | boolean | null>;
  truncated?: boolean;
}

export interface GapRecord {
  type: "gap";
  time: string | null;
  reason: string;
  remedy: string;
}

export interface WithheldRecord {
  type: "withheld";
  time: string | null;
  count: number;
  reason: string;
}

export type LogRecord = LineRecord | GapRecord | WithheldRecord;

export interface Stream {
  source: SourceId;
  pod?: string;
  podUid?: string;
  container?: string;
  restartCount?: number;
  previous?: boolean;
  sandbox?: string;
}

export interface LogPage {
  deploymentId: string;
  source: SourceId;
  stream: Stream | null;
  observedAt: string;
  records: LogRecord[];
  withheld: number;
  truncated: boolean;
  cursor: string | null;
}
