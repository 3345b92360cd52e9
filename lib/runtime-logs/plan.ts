/**
 * What to ask the driver for (docs/pipeline.md §5). A cursor of the same stream resumes with
 * `sinceTime = lastTime − 2 s` (whole seconds, rounded down, so the overlap is 2–3 s on the kubelet's
 * own clock); a view that delivered nothing yet resumes from its previous read time minus the overlap.
 */
import { LOG_READ_LIMIT_BYTES } from "../domain.ts";
import { frontierAhead, PROBE_TAIL_LINES, wantsProbe } from "./clock.ts";
import { frontierTime } from "./cursor.ts";
import { RESUME_TAIL_LINES } from "./lines.ts";
import type { CursorState } from "./types.ts";

export const RESUME_OVERLAP_MS = 2_000;

/** What a read is made against: the stream a cursor must match to resume. */
export interface StreamRef {
  pod: string;
  podUid: string;
  restartCount: number;
  previous: boolean;
}

/** The cursor continues this stream (same Pod, UID, restart count and `previous`). */
export function resumesStream(c: CursorState | null, s: StreamRef): boolean {
  return (
    c !== null &&
    c.pod === s.pod &&
    c.podUid === s.podUid &&
    c.restartCount === s.restartCount &&
    c.previous === s.previous
  );
}

/** The tailLines a read of `s` asks for: the resume tail for a resumed stream, else the view's. */
export function readTailLines(c: CursorState | null, s: StreamRef, viewTailLines: number): number {
  if (resumesStream(c, s)) return RESUME_TAIL_LINES;
  return c?.tailLines ?? viewTailLines;
}

/** The stream a cursor reads (Pod, UID, restart count, previous) and its view's tail. */
export interface CursorStream {
  pod: string;
  podUid: string;
  previous: boolean;
  restartCount: number;
  tailLines: number;
}

export interface LogReadInput {
  cursor: CursorState | null;
  pod: string;
  podUid: string;
  restartCount: number;
  previous: boolean;
  /** The query's tailLines (ignored when a cursor carries the view's own). */
  tailLines: number;
  sinceSeconds?: number;
  sinceTime?: string;
  now: number;
}

export interface LogReadPlan {
  tailLines: number;
  sinceTime?: string;
  sinceSeconds?: number;
  limitBytes: number;
  /** The read continues the cursor's stream (same Pod, UID, restart count and `previous`). */
  resume: boolean;
  /**
   * A fourth cluster call on idle polls (docs/pipeline.md §5, hostile clocks): when the read brought
   * nothing newer than the frontier (`isIdleRead(chunk, cursor, now)`), read the same stream again
   * with these options and no since, and pass that chunk as `probe` to buildLogPage.
   */
  probe?: { tailLines: number; limitBytes: number };
}

/** The stream and view settings a cursor points at, so the caller can tell a new view. */
export function cursorStream(state: CursorState): CursorStream {
  return {
    pod: state.pod,
    podUid: state.podUid,
    previous: state.previous,
    restartCount: state.restartCount,
    tailLines: state.tailLines,
  };
}

/**
 * The instant (ms) a resumed read starts from, before the overlap: the frontier's time, but never
 * after the cursor's issue time. A node clock running ahead of the service's then cannot hide the
 * lines written after it steps back, and a page cut short dates its cursor at the earliest line it
 * left that the frontier's time would hide (docs/pipeline.md §5, hostile clocks).
 */
export function resumeFrom(state: CursorState): number {
  const t = frontierTime(state);
  return t === null ? state.issuedAt : Math.min(t.ms, state.issuedAt);
}

/** The sinceTime (ms, whole seconds) of a read that resumes from `from`: the overlap before it. */
export const sinceOf = (from: number): number => Math.floor((from - RESUME_OVERLAP_MS) / 1000) * 1000;

/** The sinceTime (ms) a resumed read of this cursor asks for, its frontier not ahead of the service. */
export function resumeSince(state: CursorState): number {
  return sinceOf(resumeFrom(state));
}

export function planLogRead(input: LogReadInput): LogReadPlan {
  const c = input.cursor;
  if (c !== null) {
    if (!resumesStream(c, input))
      return { tailLines: c.tailLines, limitBytes: LOG_READ_LIMIT_BYTES, resume: false };
    // A frontier ahead of the service's clock re-anchors at now − overlap (with a clock_step gap).
    const since = frontierAhead(c, input.now) ? sinceOf(input.now) : resumeSince(c);
    const plan: LogReadPlan = {
      tailLines: RESUME_TAIL_LINES,
      sinceTime: `${new Date(since).toISOString().slice(0, 19)}Z`,
      limitBytes: LOG_READ_LIMIT_BYTES,
      resume: true,
    };
    if (wantsProbe(c)) plan.probe = { tailLines: PROBE_TAIL_LINES, limitBytes: LOG_READ_LIMIT_BYTES };
    return plan;
  }
  const plan: LogReadPlan = { tailLines: input.tailLines, limitBytes: LOG_READ_LIMIT_BYTES, resume: false };
  if (input.sinceTime !== undefined) plan.sinceTime = input.sinceTime;
  else if (input.sinceSeconds !== undefined) plan.sinceSeconds = input.sinceSeconds;
  return plan;
}

/**
 * Where only `sinceSeconds` is possible: `ceil((now − resume) / 1 s)` clamped to 1–86400. Clock skew
 * between this service and the node beyond the overlap can then lose lines.
 */
export function sinceSecondsFor(state: CursorState, now: number): number {
  const seconds = Math.ceil((now - (resumeFrom(state) - RESUME_OVERLAP_MS)) / 1000);
  return Math.min(86_400, Math.max(1, seconds));
}
