/**
 * Hostile clocks (docs/pipeline.md §5). "Now" is the service's clock at the read, a parameter. Three
 * rules: a line dated beyond now + 60 s never moves the frontier (delivered once, remembered by
 * hash, treated as untimed for resume); a frontier beyond now + 60 s re-anchors at now − overlap;
 * an idle poll (no timed line past the frontier) probes the last lines without sinceTime to find
 * lines a clock step back hid, and places them by log order.
 */
import type { LogChunk } from "../domain.ts";
import { frontierTime, lineHash } from "./cursor.ts";
import { type RawLine, RESUME_TAIL_LINES, type SplitChunk, splitChunk, splitRead } from "./lines.ts";
import { type FutureRule, rememberedFuture, type Selection } from "./resume.ts";
import type { CursorState, SecretKey } from "./types.ts";

/** How far ahead of the service's clock a line time may be and still move the frontier. */
export const FUTURE_MS = 60_000;
/** Lines the probe reads (the last ones, without sinceTime). */
export const PROBE_TAIL_LINES = 10;

/** The comparison key of an instant (ms), as time.ts builds keys. */
export function keyAt(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000000`;
}

/** The far-future rule of this read: beyond now + 60 s; known lines are those the cursor remembers. */
export function futureRule(now: number, frontier: CursorState | null, key: SecretKey): FutureRule {
  const remembered = new Map<string, number>();
  for (const h of rememberedFuture(frontier)) remembered.set(h, (remembered.get(h) ?? 0) + 1);
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
  const t = frontierTime(state);
  return t !== null && t.ms > now + FUTURE_MS;
}

/**
 * The plan offers a probe when the view can place it (it knows its last line, or that it accounted
 * none of this stream); the caller reads it on an idle poll only (`isIdleRead`).
 */
export function wantsProbe(state: CursorState): boolean {
  return state.anchor !== null;
}

/**
 * Whether a resumed read brought no timed line past the frontier: only then is the probe worth its
 * cluster call. Far-future and untimed lines never move the frontier, so they are no sign that the
 * node's clock is sound: lines a step back hid may sit before them in the log.
 */
export function isIdleRead(
  chunk: LogChunk,
  state: CursorState | null,
  now: number,
  split?: SplitChunk,
): boolean {
  if (state === null) return false;
  const frontier = frontierTime(state)?.key ?? "";
  // Far-future as the page will judge it: against the read the cursor was built from.
  const futureKey = keyAt((frontier === "" && state.count === 0 ? now : state.readAt) + FUTURE_MS);
  const { lines } = splitRead(chunk, RESUME_TAIL_LINES, split);
  // Log order outranks time order: what precedes the frontier's last line was written before it
  // (after a clock step back, lines dated after the frontier come first), what follows is new.
  let from = 0;
  if (frontier !== "") {
    // A group counted from its first line that holds more timed lines than were accounted has new ones.
    let group = 0;
    for (const l of lines) if (l.key === frontier) group++;
    if (state.complete && group > state.count) return false;
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lines[i]!.key === frontier) {
        from = i + 1;
        break;
      }
    }
  }
  for (let i = from; i < lines.length; i++) {
    const key = lines[i]!.key;
    if (key !== null && key <= futureKey && key > frontier) return false;
    // A timed line after the frontier's own in the log is new whatever its time says.
    if (key !== null && key <= futureKey && from > 0) return false;
  }
  return true;
}

/**
 * The clock-step probe of an idle poll (the last lines, without sinceTime), placed by log order: the
 * lines after the last one this view accounted for (found by its keyed hash and the hashes
 * remembered before it) were written later, whatever their times say; when the probe does not reach
 * back to it, every probe line is later. Null when the probe adds nothing to the read.
 *
 * `reached`: the probe holds the last accounted line (in one place), so it holds every line after it
 * and is taken whenever it holds one the read lacks; `hidden` is then the first line dated before the
 * read's start (a clock_step gap goes before it), or -1. Not reached: taken only when a line the read
 * lacks was hidden from it (dated before the read's start, without a time after a timed frontier, or
 * followed by a line the read holds); a clock_step gap goes first, since lines between may be missing.
 */
export function probeSelection(
  probe: LogChunk,
  chunk: LogChunk,
  frontier: CursorState,
  read: Selection,
  readLines: readonly RawLine[],
  key: SecretKey,
  sinceKey: string,
): { lines: readonly RawLine[]; take: number[]; hidden: number; reached: boolean } | null {
  if (frontier.anchor === null) return null;
  if (probe.podUid !== chunk.podUid || probe.restartCount !== chunk.restartCount || probe.pod !== chunk.pod) {
    return null;
  }
  const { lines } = splitChunk(probe.text, probe.truncated, PROBE_TAIL_LINES);
  // Where the last accounted line sits: an occurrence of its hash whose preceding lines match the
  // hashes remembered before it. Identical lines may fit several places: the latest is taken, and a
  // gap reports that lines between may have been passed over.
  const hashes = lines.map((l) => lineHash(key, l.raw));
  const remembered =
    frontier.hashes[frontier.hashes.length - 1] === frontier.anchor ? frontier.hashes : [frontier.anchor];
  let last = -1;
  let fits = 0;
  let occurs = false;
  for (let i = lines.length - 1; i >= 0 && frontier.anchor !== ""; i--) {
    if (hashes[i] !== frontier.anchor) continue;
    occurs = true;
    let ok = true;
    for (let j = 1; j <= i && j < remembered.length && ok; j++) {
      if (hashes[i - j] !== remembered[remembered.length - 1 - j]) ok = false;
    }
    if (!ok) continue;
    if (last < 0) last = i;
    fits++;
  }
  // The hash is there but nothing before it fits: place after its latest occurrence, uncertainly.
  if (last < 0 && occurs) last = hashes.lastIndexOf(frontier.anchor);
  const held = new Map<string, number>();
  for (const i of read.take) held.set(readLines[i]!.raw, (held.get(readLines[i]!.raw) ?? 0) + 1);
  const reached = last >= 0 && fits === 1;
  // A line without a time after a timed frontier's last line was written after that frontier: a read
  // starting before the frontier lacks it when the kubelet dated it earlier still (a step back), or
  // when it came after the read (then its gap was not needed).
  const untimedHidden = frontier.lastTime !== null;
  const take: number[] = [];
  let missing = false;
  let hidden = -1;
  let lacking = -1;
  for (let i = last + 1; i < lines.length; i++) {
    take.push(i);
    const line = lines[i]!;
    const before = line.key !== null && line.key < sinceKey;
    // Dated before the read's start: the step is reported before the first such line.
    if (reached && before && hidden < 0) hidden = take.length - 1;
    const n = held.get(line.raw) ?? 0;
    if (n > 0) {
      held.set(line.raw, n - 1);
      // A line the read lacks before one it holds was hidden from it.
      if (!reached && lacking >= 0 && hidden < 0) hidden = lacking;
      continue;
    }
    missing = true;
    if (lacking < 0) lacking = take.length - 1;
    if (!reached && (before || (line.key === null && untimedHidden)) && hidden < 0) hidden = take.length - 1;
  }
  // Reached: the probe holds every line after the last one accounted, so it is taken whenever it
  // holds one the read lacks. Not reached: only when a line the read lacks was hidden from it.
  if (reached ? !missing : hidden < 0) return null;
  return { lines, take, hidden, reached };
}
