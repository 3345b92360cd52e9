/**
 * Gap records and their fixed remedy sentences (pipeline.md §5). The sentences are ours; no
 * cluster text ever goes into a gap.
 */
import type { GapReason, GapRecord } from "./types.ts";

export const REMEDIES = {
  stream_replaced:
    "The container restarted or its Pod was replaced; lines around the change may be missing. Read with previous=true to see the earlier instance.",
  window_exceeded:
    "More lines were written between polls than one read returns; poll more often or use a larger tailLines to keep up.",
  window_exceeded_line:
    "A single line was too large to read and was skipped; read this container's log with kubectl to see it.",
  cursor_expired:
    "The cursor was older than one hour, so a new view started; lines between the two views may be missing.",
  truncated:
    "The page reached its size limit; poll again with the cursor to continue right after the last line shown.",
  truncated_line: "A line larger than the rest of this read is still being written; poll again shortly.",
  buffer_lost: "The sandbox log buffer rolled over; older lines are no longer available.",
} as const;

export type RemedyId = keyof typeof REMEDIES;

export function gap(reason: GapReason, time: string | null, remedy: RemedyId = reason): GapRecord {
  return { type: "gap", time, reason, remedy: REMEDIES[remedy] };
}
