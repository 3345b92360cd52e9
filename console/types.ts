/**
 * The API's data shapes as the console reads them (the HTTP contract), taken from the service's own types
 * with `import type` (esbuild drops these imports, so nothing of `lib/` reaches the bundle). Only
 * what the service has no type for is stated here.
 */
import type { AgentPath, DeploymentPath } from "../lib/api/schemas.ts";
import type { SourceId } from "../lib/domain.ts";
import type {
  LastTermination,
  RuntimeContainer,
  RuntimeDescription,
  RuntimeEvent,
  RuntimePod,
  RuntimeSource,
} from "../lib/kube/types.ts";
import type { RestartRecord as ServiceRestartRecord } from "../lib/restarts/types.ts";
import type {
  GapRecord,
  LogStream,
  RecordLevel,
  LineRecord as ServiceLineRecord,
  LogPage as ServiceLogPage,
  LogRecord as ServiceLogRecord,
  WithheldRecord,
} from "../lib/runtime-logs/types.ts";

export type { AgentPath, DeploymentPath, GapRecord, SourceId, WithheldRecord };
export type Level = RecordLevel;
export type Termination = LastTermination;
export type Container = RuntimeContainer;
export type PodEvent = RuntimeEvent;
export type Pod = RuntimePod;
export type Source = Omit<RuntimeSource, "unavailableCode"> & { unavailableCode?: string };
export type Stream = LogStream;

export const LEVELS: readonly Level[] = ["error", "warn", "info", "debug", "unknown"];

/** One row of the deployments list (the status function answers it without a named type). */
export interface Deployment {
  deploymentId: string;
  revision: number | null;
  createdAt: string | null;
  active: boolean;
}

/** The parts of a restart record the console shows (cards and the inline restart marker). */
export type RestartRecord = Pick<
  ServiceRestartRecord,
  "pod" | "container" | "scope" | "trigger" | "detectedAt" | "previous" | "next"
> &
  Partial<Pick<ServiceRestartRecord, "termination" | "actor">>;

export type LineRecord = ServiceLineRecord;
export type LogRecord = ServiceLogRecord;

export type Runtime = Omit<RuntimeDescription, "sources"> & {
  sources: Source[];
  restarts: RestartRecord[];
};

export type LogPage = ServiceLogPage;
