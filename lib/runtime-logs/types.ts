/**
 * Types of the log-page pipeline (pipeline.md, api.md § Log page). Pure data, no behaviour.
 */
import type { Level, SourceId } from "../domain.ts";

export type RecordLevel = Level | "unknown";
export type LineKind = "text" | "structured" | "wrapper" | "sandbox";
export type GapReason =
  | "stream_replaced"
  | "window_exceeded"
  | "cursor_expired"
  | "truncated"
  | "buffer_lost"
  | "clock_step";
export type WithheldReason = "unrecognised_structured" | "oversized" | "malformed";
export type FieldValue = string | number | boolean;

export interface LineRecord {
  type: "line";
  time: string | null;
  kind: LineKind;
  level: RecordLevel;
  message: string;
  subsystem?: string;
  fields?: Record<string, FieldValue>;
  truncated?: boolean;
  /** Sandbox lines: the supervisor (`sandbox`) or OpenShell's server (`gateway`). */
  origin?: "sandbox" | "gateway";
  /** Sandbox lines whose message is an OCSF JSON event. */
  format?: "ocsf";
}

export interface GapRecord {
  type: "gap";
  time: string | null;
  reason: GapReason;
  remedy: string;
}

export interface WithheldRecord {
  type: "withheld";
  time: string | null;
  count: number;
  reason: WithheldReason;
}

export type LogRecord = LineRecord | GapRecord | WithheldRecord;

export type LogStream =
  | {
      source: SourceId;
      pod: string;
      podUid: string;
      container: string;
      restartCount: number;
      previous: boolean;
    }
  | {
      source: "sandbox";
      /** The OpenShell gateway and the sandbox name the deployment names. */
      gatewayId: string;
      sandbox: string;
      /** The instance read; null until the sandbox has written a line this view saw. */
      sandboxId: string | null;
    };

/** The `data` object of the logs route. */
export interface LogPage {
  deploymentId: string;
  source: SourceId;
  stream: LogStream | null;
  observedAt: string;
  records: LogRecord[];
  withheld: number;
  truncated: boolean;
  cursor: string | null;
}

/** Who a cursor belongs to; any difference makes it invalid. */
export interface CursorBinding {
  principalId: string;
  namespaceId: string;
  agentId: string;
  deploymentId: string;
  source: SourceId;
}

export interface SecretKey {
  /** Key id, `[A-Za-z0-9._-]{1,64}`. */
  id: string;
  /** ≥ 32 bytes. */
  secret: Buffer;
}

/** A rotating key: `current` makes new values, `previous` (during a rotation) is still recognised. */
export interface KeyRing {
  current: SecretKey;
  previous?: SecretKey;
}

/** Cursor MAC keys: the current one signs, the previous one still verifies until its cursors expire. */
export type CursorKeys = KeyRing;

/** Key of the identity pseudonyms (restarts.md § pseudonyms). */
export type IdentityKey = SecretKey;

/** The identity keys: pseudonyms are made with `current`; those `previous` made stay the service's own. */
export type IdentityKeys = KeyRing;

/** What every page is built for, whatever the source: the request, its clock, keys and budget. */
export interface PageRequest {
  deploymentId: string;
  requestId: string;
  /** Milliseconds since the epoch. */
  now: number;
  keys: { cursor: CursorKeys; identity: IdentityKey | null };
  namespaceId: string;
  /** Envelope budget in bytes; PAGE_BUDGET_BYTES unless building a download. */
  maxBytes?: number;
}

/**
 * The verified content of a cursor. `lastTime` is the newest delivered kubelet time (UTC, original
 * fraction digits) or null when the view has delivered no timed line yet.
 */
export interface CursorState {
  keyId: string;
  issuedAt: number;
  pod: string;
  podUid: string;
  /** The container the view reads (init or regular); a view never switches containers. */
  container: string;
  restartCount: number;
  previous: boolean;
  tailLines: number;
  lastTime: string | null;
  /** Lines accounted for at `lastTime` (untimed leading lines when `lastTime` is null). */
  count: number;
  /** Whether `count` starts at the first line of the group. */
  complete: boolean;
  /** Keyed hashes (base64url, 96 bits) of the last ≤ 16 lines accounted at `lastTime`, in order. */
  hashes: string[];
  /** A PEM block is open at the end of the last page. */
  pemOpen: boolean;
  /** The time frontier a carried block applies to; null = unknown (block stays open for the view). */
  pemFrontier: string | null;
  /** Keyed hashes of the last ≤ 8 far-future lines delivered (dated beyond the service's now + 60 s). */
  future: string[];
  /**
   * Keyed hash of the last line accounted for in log order: where a clock-step probe's new lines
   * begin. "" when this stream has accounted nothing yet; null when unknown (another key).
   */
  anchor: string | null;
  /**
   * Untimed lines the last page left after its cut or held back, the first ≤ 8 in log order: each its
   * keyed hash, `.`, and its place (base 36) among the lines after the last one accounted. The next
   * read must hold each in its place: the kubelet may have dated it before that read's start (a clock
   * step back), and its time cannot be read to date the cursor back to it. Absent when there is none.
   */
  pending?: string[];
  /** When (service clock, ms) this view last delivered a new line; idle views probe for clock steps. */
  lastNewAt: number;
  /**
   * The service clock (ms) of the read this cursor was built from. Its lines were judged far-future
   * against readAt + 60 s, and the next poll judges them the same way, so a line never turns from
   * far-future into timed between two polls of one view.
   */
  readAt: number;
}
