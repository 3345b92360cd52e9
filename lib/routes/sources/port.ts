/**
 * The source reader port: what the logs use case needs from a log source (a Kubernetes container
 * of a role, or the OpenShell sandbox). The use case stays the same for every source:
 *
 *   prepare (pure, before admission: the cursor and the source's own query rules)
 *   → available (does this deployment have the source? before admission)
 *   → open (after admission: describe what can be read, decide the view)
 *   → [audit a new view] → read (read once, build the page with the source's own pure pipeline).
 *
 * A reader never writes audit records and never touches the limiter: those stay in the use case.
 */
import type { ParsedLogQuery } from "../../api/schemas.ts";
import type { DeploymentRecord, SourceId } from "../../domain.ts";
import type { CursorBinding, CursorKeys, IdentityKey } from "../../runtime-logs/types.ts";

/**
 * The log query as a reader sees it: the contract's parsed query (typed, already inside the
 * contract; `download` set for a new, audited view rendered as an attachment).
 */
export type SourceQuery = ParsedLogQuery;

export interface PrepareInput {
  query: SourceQuery;
  binding: CursorBinding;
  cursorKeys: CursorKeys;
  now: number;
}

/** Everything a reader needs to describe, read and build one page. */
export interface OpenInput<P> {
  prepared: P;
  deployment: DeploymentRecord;
  agentId: string;
  namespaceId: string;
  binding: CursorBinding;
  keys: { cursor: CursorKeys; identity: IdentityKey | null };
  requestId: string;
  signal: AbortSignal;
  /** Epoch ms. */
  deadline: number;
  now: () => number;
  /** Checks the request deadline between steps (throws RUNTIME_LOGS_TIMEOUT). */
  checkDeadline: () => void;
}

/** What the audit record of a new view (or a download) names about the target. */
export interface ViewTarget {
  /** The Pod and container actually read (absent for the sandbox source). */
  pod?: string;
  container?: string;
  previous: boolean;
  tailLines: number;
}

/** What a read produced, ready for the HTTP adapter. */
export type SourceResult =
  | { kind: "page"; body: string }
  | { kind: "attachment"; text: string; fileName: string };

export interface OpenedView {
  /**
   * The target of a new view, to audit before `read`; null when the poll continues its view (or
   * there is nothing to read, e.g. no running Pod): no audit record then.
   */
  newView: ViewTarget | null;
  /** Reads once and builds the page (or the attachment). */
  read(): Promise<SourceResult>;
}

export interface SourceReader<P = unknown> {
  /**
   * Pure, right after authorization: verifies the query's cursor for this source and applies the
   * source's own query rules. Throws 400s (`RUNTIME_LOGS_CURSOR_INVALID`, `RUNTIME_LOGS_POD_INVALID`).
   */
  prepare(input: PrepareInput): P;
  /** Whether the deployment has this source (else 400 `RUNTIME_LOGS_SOURCE_UNAVAILABLE`). */
  available(deployment: DeploymentRecord, source: SourceId): boolean;
  /** Describes what the source can read now and decides the view; reads no log byte. */
  open(input: OpenInput<P>): Promise<OpenedView>;
}

/** The readers of one container, by kind of source. A missing one means "no such source". */
export interface SourceReaders {
  container: SourceReader;
  sandbox?: SourceReader;
}

export function readerFor(readers: SourceReaders, source: SourceId): SourceReader | undefined {
  return source === "sandbox" ? readers.sandbox : readers.container;
}
