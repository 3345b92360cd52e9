/**
 * Domain vocabulary shared by every module (README.md § Words, docs/state.md, docs/kube.md).
 * Types, and the few limits every layer shares: no behaviour lives here.
 */

export type Role = "gateway" | "agent";
export type Plane = "control" | "execution";
export type SourceId = "gateway" | "agent" | "sandbox";
export type Tier = "standard" | "sensitive";
export type AgentState = "running" | "stopped" | "deleted";
export type Action = "read" | "operate" | "read_logs" | "administer";
export type Level = "error" | "warn" | "info" | "debug";

export interface RolePlacement {
  clusterId: string;
  namespace: string;
  plane: Plane;
}

/** Role → where its Pods run. An embedded Harness has no `agent` entry. */
export type Placement = Partial<Record<Role, RolePlacement>>;

export interface SandboxRef {
  driver: "openshell";
  endpointRef: string;
  sandboxName: string;
  workspace: string;
}

export interface AgentRecord {
  namespaceId: string;
  agentId: string;
  tier: Tier;
  state: AgentState;
  activeDeploymentId: string;
  stateVersion: number;
}

export interface DeploymentRecord {
  namespaceId: string;
  agentId: string;
  deploymentId: string;
  revision: number;
  createdAt: string;
  computeDriver: string;
  runtimeLogging: "service" | "driver";
  placement: Placement;
  sandbox?: SandboxRef;
}

export interface ClusterRecord {
  clusterId: string;
  kubeconfigRef: string;
  displayName: string;
  /**
   * Static credentials (a bearer token or basic auth) in this cluster's kubeconfig are accepted only
   * when true (docs/kube.md § Kubeconfigs); exec (EKS) and client certificates need no allowance.
   */
  allowStaticCredentials?: boolean;
}

/** An OpenShell gateway (docs/state.md § Registry table): where its connection document lives. */
export interface OpenShellGatewayRecord {
  gatewayId: string;
  /** `secretsmanager:<name>` under `runtime-logs/openshell/`, or `file:<path>` locally. */
  connectionRef: string;
  displayName: string;
}

export interface GrantRecord {
  principalId: string;
  namespaceId: string;
  /** An Agent ID, or `*` for every Agent of the namespace. */
  agentId: string;
  actions: Action[];
}

/** Default and maximum bytes of one log read: the pipeline plans it, the driver enforces it (docs/pipeline.md § 4 Bounded). */
export const LOG_READ_LIMIT_BYTES = 1_048_576;

/** One log read as the driver returns it (docs/kube.md § readLog); raw, untrusted text. */
export interface LogChunk {
  /** The body as read with `timestamps=true`, decoded as UTF-8. */
  text: string;
  /** The body reached `limitBytes`: the last line may be cut mid-way. */
  truncated: boolean;
  /** The byte limit the read used. */
  limitBytes: number;
  pod: string;
  /** UID and restart count the read was made against. */
  podUid: string;
  container: string;
  restartCount: number;
  previous: boolean;
  /** The Pod as re-read after the log read; null when it was gone. Differs from the above on replacement mid-read. */
  observedAfter: { podUid: string; restartCount: number } | null;
}
