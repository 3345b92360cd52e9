/**
 * Hostile clocks (docs/pipeline.md §5). "Now" is the service's clock at the read, a parameter. Three
 * rules: a line dated beyond now + 60 s never moves the frontier (delivered once, remembered by
 * hash, treated as untimed for resume); a frontier beyond now + 60 s re-anchors at now − overlap;
 * an idle view probes the last lines without sinceTime to find lines a clock step back hid.
 */
import type { LogChunk } from "../domain.ts";
import { lineHash } from "./cursor.ts";
import { type RawLine, splitChunk } from "./lines.ts";
import type { FutureRule } from "./resume.ts";
import { keyToMillis, parseUtcTime } from "./time.ts";
import type { CursorState, SecretKey } from "./types.ts";

/** How far ahead of the service's clock a line time may be and still move the frontier. */
export const FUTURE_MS = 60_000;
/** A view whose last new line is at least this old probes for a clock step on an idle poll. */
export const IDLE_PROBE_MS = 30_000;
/** Lines the probe reads (the last ones, without sinceTime). */
export const PROBE_TAIL_LINES = 10;

/** The comparison key of an instant (ms), as time.ts builds keys. */
export function keyAt(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000000`;
}

/** The far-future rule of this read: beyond now + 60 s; known lines are those the cursor remembers. */
export function futureRule(now: number, frontier: CursorState | null, key: SecretKey): FutureRule {
  const remembered = new Map<string, number>();
  for (const h of frontier?.future ?? []) remembered.set(h, (remembered.get(h) ?? 0) + 1);
  return {
    futureKey: keyAt(now + FUTURE_MS),
    known: (line: RawLine) => {
      if (remembered.size === 0) return false;
      const h = lineHash(key, line.raw);
      const n = remembered.get(h) ?? 0;
      if (n === 0) return false;
      remembered.set(h, n - 1);
      return true;
    },
  };
}

/** The frontier lies beyond now + 60 s: only the service's own clock moving back does that. */
export function frontierAhead(state: CursorState, now: number): boolean {
  const t = state.lastTime === null ? null : parseUtcTime(state.lastTime);
  return t !== null && keyToMillis(t.key) > now + FUTURE_MS;
}

/** The plan asks for a probe: the view can locate its last line, and its last new line is old. */
export function wantsProbe(state: CursorState, now: number): boolean {
  return state.anchor !== null && now - state.lastNewAt >= IDLE_PROBE_MS;
}

/**
 * Whether a resumed read brought nothing newer than the frontier (far-future lines aside): only then
 * is the probe worth its cluster call.
 */
export function isIdleRead(chunk: LogChunk, state: CursorState | null, now: number): boolean {
  if (state === null) return false;
  const t = state.lastTime === null ? null : parseUtcTime(state.lastTime);
  const frontier = t?.key ?? "";
  // Far-future as the page will judge it: against the read the cursor was built from.
  const futureKey = keyAt((frontier === "" && state.count === 0 ? now : state.readAt) + FUTURE_MS);
  const { lines } = splitChunk(chunk.text, chunk.truncated, 1000);
  // Log order outranks time order: what precedes the frontier's last line was written before it
  // (after a clock step back, lines dated after the frontier come first), what follows is new.
  let from = 0;
  if (frontier !== "") {
    // A group counted from its first line that holds more lines than were accounted has new ones.
    let group = 0;
    let inGroup = false;
    for (const l of lines) {
      if (l.key === frontier) inGroup = true;
      else if (l.key !== null && l.key <= futureKey) inGroup = false;
      if (inGroup) group++;
    }
    if (state.complete && group > state.count) return false;
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lines[i]!.key === frontier) {
        from = i + 1;
        // Untimed and far-future lines after it join its group (counted above); a timed one is new.
        for (let j = from; j < lines.length; j++) {
          const key = lines[j]!.key;
          if (key !== null && key <= futureKey) return false;
        }
        return true;
      }
    }
  }
  // A frontier without a time groups untimed and far-future lines; which of them are new only the
  // page can tell (by hash), so they count as idle once something was accounted: at worst the probe
  // is read and not needed.
  let untimed = 0;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.key === null || l.key > futureKey) untimed++;
    else if (l.key > frontier) return false;
  }
  return frontier !== "" || state.count > 0 || untimed === 0;
}

/**
 * The probe's lines after the last one this view accounted for (found by its keyed hash), or null
 * when there are none or the probe cannot be placed. Lines after it were written later whatever
 * their times say: a sinceTime read that missed them means the node's clock stepped back.
 */
export function steppedLines(
  probe: LogChunk,
  chunk: LogChunk,
  state: CursorState,
  key: SecretKey,
): { lines: RawLine[]; from: number } | null {
  if (state.anchor === null) return null;
  if (probe.podUid !== chunk.podUid || probe.restartCount !== chunk.restartCount || probe.pod !== chunk.pod) {
    return null;
  }
  const { lines } = splitChunk(probe.text, probe.truncated, PROBE_TAIL_LINES);
  let last = -1;
  if (state.anchor !== "") {
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lineHash(key, lines[i]!.raw) === state.anchor) {
        last = i;
        break;
      }
    }
  }
  const from = last + 1;
  return from < lines.length ? { lines, from } : null;
}
