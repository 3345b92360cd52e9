/**
 * What the sandbox driver returns (the OpenShell logs API, narrowed to what the pipeline needs).
 * Raw, untrusted data: every string is redacted and bounded by the pipeline before it leaves.
 */

/** One line of a sandbox's log ring, as OpenShell returns it. */
export interface SandboxLogLine {
  /** The sandbox instance that wrote it (OpenShell fills the instance ID, not the name). */
  sandboxId: string;
  /** Milliseconds since the epoch; 0, negative or far-future values are "untimed" for resume. */
  timestampMs: number;
  level: string;
  target: string;
  message: string;
  /** `sandbox` (the supervisor) or `gateway` (OpenShell server lines about this sandbox). */
  origin: "sandbox" | "gateway";
  fields: Record<string, string>;
}

/** One `GetSandboxLogs` answer. */
export interface SandboxChunk {
  gatewayId: string;
  sandboxName: string;
  /** Chronological, as the server sent them. */
  lines: SandboxLogLine[];
  /** Lines the server's ring held at the read. */
  bufferTotal: number;
  /** What was asked: the pipeline decides "full window" and "ring rolled" against it. */
  requested: { lines: number; sinceMs: number };
}

/** The request's deadline, combined with each call's own 5 s timeout. */
export interface SandboxCallOptions {
  signal: AbortSignal;
  /** Epoch ms when the request's deadline passes. */
  deadline: number;
}

export interface SandboxReadOptions extends SandboxCallOptions {
  /** Newest N lines (1–2000). */
  lines: number;
  /** Keep lines at or after this time (epoch ms); 0 or absent: no filter. */
  sinceMs?: number;
}

export type GatewayAuth = "mtls" | "token" | "plaintext";

/** One `Health` answer, for the probe. */
export interface GatewayHealth {
  gatewayId: string;
  latencyMs: number;
  /** `healthy`, `degraded`, `unhealthy`, `unspecified` or `status_<n>` for values we do not know. */
  status: string;
  version: string;
  auth: GatewayAuth;
}
