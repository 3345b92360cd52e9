/**
 * Pending untimed lines (docs/pipeline.md §5, hostile clocks). A page cut by its budget, or one that
 * holds back the untimed lines at its end, leaves lines of its read for the next one. A timed line
 * left dates the cursor back to it (so the next read reaches it), but an untimed line's time cannot
 * be read: after a clock step back the kubelet may have dated it before the next read's start. The
 * cursor names the first 8 untimed lines left, each by keyed hash and place among the lines after
 * the last one accounted; the next page looks for each in its place, and where one is missing a
 * clock_step gap goes, so a line a read returned is never lost without one.
 */
import {
  lineHash,
  MAX_PENDING_LINES,
  MAX_PENDING_PLACE,
  pendingEntry,
  pendingHash,
  pendingPlace,
} from "./cursor.ts";
import type { RawLine } from "./lines.ts";
import type { SecretKey } from "./types.ts";

/** Where a read puts a pending line: `at`, the index in `take` it should have (maybe past the end). */
export interface PendingPlace {
  hash: string;
  at: number;
  /** The line at `at` is another one: the read lacks it, and a gap goes before `take[at]`. */
  missing: boolean;
}

/**
 * The pending lines placed in a read whose `take` starts right after the last line accounted. A
 * missing line takes no index, so the lines named after it are looked for one index earlier.
 */
export function placePending(
  lines: readonly RawLine[],
  take: readonly number[],
  pending: readonly string[],
  key: SecretKey,
): PendingPlace[] {
  const places: PendingPlace[] = [];
  let missed = 0;
  for (const entry of pending) {
    const hash = pendingHash(entry);
    const at = pendingPlace(entry) - missed;
    const missing = at < take.length && lineHash(key, lines[take[at]!]!.raw) !== hash;
    if (missing) missed++;
    places.push({ hash, at, missing });
  }
  return places;
}

/** The indices in `take` before which a missing pending line calls for a clock_step gap. */
export function missingAt(places: readonly PendingPlace[], take: readonly number[]): number[] {
  const at: number[] = [];
  for (const p of places) if (p.missing && p.at < take.length && at[at.length - 1] !== p.at) at.push(p.at);
  return at;
}

/**
 * The pending lines of the next cursor, once the page accounted `take[0..through]`: the untimed
 * lines of `take` after it, and the pending lines this page could not settle (`carried`: missing
 * after `through`, so the gap before their place is not on this page, or placed past the read's
 * end). Places count from the line after `through`, missing lines included.
 */
export function nextPending(
  lines: readonly RawLine[],
  take: readonly number[],
  through: number,
  carried: readonly PendingPlace[],
  key: SecretKey,
): string[] {
  const left = carried.filter((p) => p.at > through && (p.missing || p.at >= take.length));
  const out: string[] = [];
  let c = 0;
  let q = through + 1;
  /** Missing lines named so far: each has a place but no index in `take`. */
  let missed = 0;
  while (out.length < MAX_PENDING_LINES) {
    while (q < take.length && lines[take[q]!]!.key !== null) q++;
    // A missing line carried at index i lies before take[i], so before an untimed line there.
    const carry = c < left.length ? left[c]! : null;
    if (carry !== null && (q >= take.length || carry.at <= q)) {
      const place = carry.at - (through + 1) + missed;
      if (place > MAX_PENDING_PLACE) break;
      out.push(pendingEntry(carry.hash, place));
      if (carry.missing) missed++;
      c++;
      continue;
    }
    if (q >= take.length) break;
    const place = q - (through + 1) + missed;
    if (place > MAX_PENDING_PLACE) break;
    out.push(pendingEntry(lineHash(key, lines[take[q]!]!.raw), place));
    q++;
  }
  return out;
}
