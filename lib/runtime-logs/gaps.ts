/**
 * Gap records and their fixed remedy sentences (docs/pipeline.md §5). The sentences are ours; no
 * cluster text ever goes into a gap. Each sentence names the cause that was observed, never one
 * that did not occur, so a reason can carry several sentences: the page picks the one that fits.
 */
import type { GapReason, GapRecord } from "./types.ts";

export const REMEDIES = {
  /** The container of the same Pod restarted (same UID, new restart count). */
  stream_replaced:
    "The container restarted; lines written around the restart may be missing. Read with previous=true to see the earlier instance.",
  /** Another Pod (new UID or name) now serves the stream, or the Pod went away. */
  stream_replaced_pod: "The Pod was replaced or went away; lines written around the change may be missing.",
  /** A full read (1000 lines or 1 MiB) began after the last line shown. */
  window_exceeded:
    "More lines were written between two polls than one read returns (1000 lines or 1 MiB); the lines in between were skipped. Poll more often to keep up.",
  /** One line was larger than what the read had left: skipped. */
  window_exceeded_line:
    "A single line was larger than one read can return and was skipped; read this container's log with kubectl to see it.",
  /** The lines at the resume point could not be matched with what was shown. */
  window_exceeded_resume:
    "Lines at the point where this view resumed could not be matched with the lines already shown; some around it may be missing.",
  cursor_expired:
    "The cursor was older than one hour, so a new view started; lines between the two views may be missing.",
  /** The page reached its byte budget. */
  truncated:
    "The page reached its size limit; poll again with the cursor to continue right after the last line shown.",
  /** A line the read cut is recent: it may still be written. */
  truncated_line: "A line larger than the rest of this read is still being written; poll again shortly.",
  /** The read was filled by lines already shown before it reached a new one. */
  truncated_resume:
    "This read was filled by lines already shown before it reached new ones; poll again shortly.",
  buffer_lost: "The sandbox log buffer rolled over; older lines are no longer available.",
  /** The node's clock went back: lines appeared with times before ones already shown. */
  clock_step:
    "The node's clock moved backwards; the lines below carry earlier times than ones already shown, and lines written around the step may be missing.",
  /** The service's clock is behind the last line shown: the view restarts from the current time. */
  clock_step_service:
    "The last line shown is dated more than a minute ahead of this service's clock; the view continues from the current time, and lines around the change may be missing.",
} as const;

export type RemedyId = keyof typeof REMEDIES;

/** Which reason each remedy belongs to (a remedy never explains another reason). */
export const REMEDY_REASON: Record<RemedyId, GapReason> = {
  stream_replaced: "stream_replaced",
  stream_replaced_pod: "stream_replaced",
  window_exceeded: "window_exceeded",
  window_exceeded_line: "window_exceeded",
  window_exceeded_resume: "window_exceeded",
  cursor_expired: "cursor_expired",
  truncated: "truncated",
  truncated_line: "truncated",
  truncated_resume: "truncated",
  buffer_lost: "buffer_lost",
  clock_step: "clock_step",
  clock_step_service: "clock_step",
};

export function gap(reason: GapReason, time: string | null, remedy: RemedyId = reason): GapRecord {
  if (REMEDY_REASON[remedy] !== reason) throw new Error(`remedy ${remedy} does not explain ${reason}`);
  return { type: "gap", time, reason, remedy: REMEDIES[remedy] };
}
