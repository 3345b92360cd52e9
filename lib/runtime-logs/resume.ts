/**
 * Resume and de-duplication (docs/pipeline.md §5). Lines are grouped by an effective time key: a timed
 * line's own key, an untimed line the key of the timed line before it in the chunk. Against the
 * cursor's frontier (lastTime T, count n, the keyed hashes of the last ≤ 16 lines accounted at T),
 * older lines are dropped, newer ones taken, and the lines at T are skipped by position when that is
 * certain, else by finding where the remembered hashes end. Lines that could be either are held
 * back while nothing follows them, and reported in a gap once something does.
 */
import { frontierTime, lineHash } from "./cursor.ts";
import type { RawLine } from "./lines.ts";
import { keyToMillis } from "./time.ts";
import type { CursorState, SecretKey } from "./types.ts";

/** Effective key of the group before every timed line (leading untimed lines). */
export const BEFORE_ALL = "";

export interface Selection {
  /** Indices of the lines to account for on this page, in chunk order. */
  take: number[];
  /** Lines may be missing before `take[0]` (reported as `window_exceeded`). */
  windowGap: boolean;
  /** Nothing could be taken for certain: keep the frontier (no gap yet). */
  hold: boolean;
  /** Effective key per line. */
  eff: string[];
  /** Whether the chunk holds the first line of the frontier's group (else the read may have cut it). */
  startComplete: boolean;
  /**
   * Positions in `take` where the node's clock went back: the line is dated before the timed line
   * accounted just before it, so lines written around the step may have been hidden from sinceTime
   * (a `clock_step` gap goes before it).
   */
  steps: number[];
  /**
   * Lines before this read position that `take` leaves out were placed behind the view (accounted
   * for): the far-future ones among them join the cursor's memory, so a later read that returns one
   * of them alone (its time passes every sinceTime) does not offer it as new. Absent: no such place.
   */
  behindBefore?: number;
}

/**
 * How far-future lines are handled (docs/pipeline.md §5, hostile clocks): a line dated beyond
 * `futureKey` (the service's now + 60 s) never advances the frontier — it is treated as untimed —
 * and a leading one whose hash the cursor remembers (`known`) was delivered already.
 */
export interface FutureRule {
  futureKey: string | null;
  known: (line: RawLine) => boolean;
}

export const NO_FUTURE: FutureRule = { futureKey: null, known: () => false };

/** A line's key for resume: null for untimed and far-future lines. */
export const resumeKey = (line: RawLine, future: FutureRule): string | null =>
  line.key !== null && future.futureKey !== null && line.key > future.futureKey ? null : line.key;

/** Effective keys; `frontierKey` decides where leading untimed lines go. */
export function effectiveKeys(
  lines: readonly RawLine[],
  frontierKey: string | null,
  future: FutureRule = NO_FUTURE,
): string[] {
  const eff = new Array<string>(lines.length);
  const keys = lines.map((l) => resumeKey(l, future));
  let firstTimed: string | null = null;
  for (const k of keys) {
    if (k !== null) {
      firstTimed = k;
      break;
    }
  }
  // Leading untimed lines are older than the frontier if a line at or before it follows them (the
  // frontier's own line anywhere after them, after a clock step back); otherwise they may continue
  // the frontier's group.
  const leading =
    frontierKey === null ||
    frontierKey === BEFORE_ALL ||
    (firstTimed !== null && firstTimed <= frontierKey) ||
    keys.includes(frontierKey)
      ? BEFORE_ALL
      : frontierKey;
  let prev: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const k = keys[i]!;
    if (k !== null) prev = k;
    // A far-future line before any timed one that the cursor remembers: delivered before.
    if (prev === null && k === null && lines[i]!.key !== null && future.known(lines[i]!)) eff[i] = BEFORE_ALL;
    else eff[i] = k ?? prev ?? leading;
  }
  return eff;
}

export function frontierKey(state: CursorState): string {
  return frontierTime(state)?.key ?? BEFORE_ALL;
}

/** Whether a frontier exists at all (something was accounted in this view). */
export const hasFrontier = (state: CursorState | null): state is CursorState =>
  state !== null && (state.lastTime !== null || state.count > 0);

/**
 * Pick the lines of a resumed read that the view has not accounted for yet.
 * `chunkStartComplete`: the read was neither full nor byte-cut, so it holds everything since its start;
 * `truncated`: the read was byte-cut, so it may end inside the frontier's group.
 */
export function selectLines(
  lines: readonly RawLine[],
  state: CursorState | null,
  chunkStartComplete: boolean,
  hashKey: SecretKey,
  truncated = false,
  future: FutureRule = NO_FUTURE,
): Selection {
  if (!hasFrontier(state)) {
    // A quiet view resumed from its previous read: a full or byte-cut read may have lost lines
    // between that read and its own first line.
    const eff = effectiveKeys(lines, null, future);
    const take = lines.map((_, i) => i);
    const windowGap = state !== null && !chunkStartComplete && take.length > 0;
    return { take, windowGap, hold: false, eff, startComplete: chunkStartComplete, steps: [] };
  }
  const T = frontierKey(state);
  const eff = effectiveKeys(lines, T, future);
  // Every line's keyed hash, made at most once per read, and only by the placements that need them.
  let all: string[] | undefined;
  const allHashes = (): string[] => {
    all ??= lines.map((l) => lineHash(hashKey, l.raw));
    return all;
  };
  // A view without a timed frontier: log order puts everything up to the last far-future line it
  // certainly delivered behind it, wherever the rules below place the rest.
  const delivered =
    T === BEFORE_ALL && chunkStartComplete && state.future.length > 0
      ? lastDeliveredFuture(lines, state.future, allHashes())
      : -1;
  if (T === BEFORE_ALL) {
    const placed = placeUntimedRun(lines, state.hashes, chunkStartComplete, allHashes);
    if (placed !== null) return { ...behind(placed, delivered), eff };
  }
  const group: number[] = [];
  const newer: number[] = [];
  /** Lines dated before the frontier, in chunk order: older, unless the log holds them after it. */
  const older: number[] = [];
  let olderTimedBeforeGroup = false;
  for (let i = 0; i < lines.length; i++) {
    const e = eff[i]!;
    if (e === T) group.push(i);
    else if (e > T) newer.push(i);
    else {
      older.push(i);
      if (group.length === 0 && resumeKey(lines[i]!, future) !== null) olderTimedBeforeGroup = true;
    }
  }
  // Log order outranks time order: a line written before the frontier's group was accounted for,
  // whatever its time says (after a clock step back, lines newer than a re-anchored frontier come
  // before it in the log).
  if (T !== BEFORE_ALL && group.length > 0) {
    const first = group[0]!;
    let drop = 0;
    while (drop < newer.length && newer[drop]! < first) drop++;
    if (drop > 0) newer.splice(0, drop);
  }
  const startComplete = T !== BEFORE_ALL && (chunkStartComplete || olderTimedBeforeGroup);
  // A byte-cut read whose last lines are the group may have stopped inside it.
  const endOpen = truncated && newer.length === 0;
  const g = group.length;
  const H = state.hashes;
  const h = H.length;
  const n = state.count;
  // Hashes are computed lazily: the positional path needs only the ≤ 16 lines before `n`.
  const gh: Array<string | undefined> = new Array(g);
  const hashAt = (k: number): string => {
    let v = gh[k];
    if (v === undefined) {
      v = lineHash(hashKey, lines[group[k]!]!.raw);
      gh[k] = v;
    }
    return v;
  };
  /**
   * Whether the remembered run can end at chunk position `p` (p may pass the chunk's end when the
   * read stopped inside the group): its hashes agree with every group line they overlap.
   */
  const matchesAt = (p: number): boolean => {
    if (p > g && !endOpen) return false;
    for (let j = Math.max(0, p - h); j < Math.min(p, g); j++) if (hashAt(j) !== H[j - (p - h)]) return false;
    return true;
  };
  let pmin = -1;
  let pmax = -1;
  if (startComplete && state.complete && matchesAt(n)) {
    pmin = pmax = n;
  } else {
    // Every end the remembered run could have: inside a group the chunk holds from its start it ends
    // at ≥ n; a group counted from its start (complete) ends at ≤ n in any chunk that holds part of it.
    // Far-future lines the cursor remembers were delivered: the run ends after those it starts with.
    let lo = Math.max(startComplete ? n : 0, knownLead(rememberedFuture(state), g, hashAt));
    while (lo < g && group[lo]! <= delivered) lo++;
    let hi = endOpen ? Math.max(g + h, lo) : g;
    if (state.complete) hi = Math.min(hi, n);
    for (let p = lo; p <= hi; p++) {
      if (matchesAt(p)) {
        if (pmin < 0) pmin = p;
        pmax = p;
      }
    }
  }
  const unknown = pmin < 0;
  if (unknown) {
    // The remembered run cannot be placed (a line of it is no longer in the read, or the times moved):
    // log order still places the last remembered line the read holds.
    const placed = placeAfterRemembered(state, allHashes);
    if (placed !== null) return { ...behind(placed, delivered), eff };
  }
  if (unknown) {
    pmin = 0;
    pmax = g;
  }
  pmin = Math.min(pmin, g);
  pmax = Math.min(pmax, g);
  // Log order outranks time order after the frontier as well: a line the log holds after the last
  // one accounted was written later, even dated before it (the node's clock stepped back). Where
  // the group is absent from a read that was full but not byte-cut, the read began after it, so
  // every line in it is later.
  let boundary = Number.POSITIVE_INFINITY;
  if (T !== BEFORE_ALL) {
    if (pmax > 0) boundary = group[pmax - 1]!;
    else if (g > 0) boundary = group[0]! - 1;
    else if (!chunkStartComplete && !truncated) boundary = -1;
  }
  let c = 0;
  while (c < older.length && older[c]! <= boundary) c++;
  const later = older.slice(c);
  // Chunk order: the group's new tail, the newer lines and the later ones, merged.
  const take = mergeOrdered(group.slice(pmax), newer, later).filter((i) => i > delivered);
  if (take.length === 0) return { take, windowGap: false, hold: true, eff, startComplete, steps: [] };
  const windowGap = T !== BEFORE_ALL && (unknown || pmin < pmax || (!startComplete && pmin === 0));
  const ambiguousUntimed = T === BEFORE_ALL && (pmin < pmax || (!chunkStartComplete && pmin === 0));
  return {
    take,
    windowGap: windowGap || ambiguousUntimed,
    hold: false,
    eff,
    startComplete,
    steps: later.length === 0 ? [] : clockSteps(lines, take, T, future),
  };
}

/**
 * A view whose frontier has no time (it accounted only untimed or far-future lines): its read may
 * reach back past where the view began, with lines of any kind before the remembered ones. Log
 * order places the view: everything up to the last place the remembered lines end was written
 * before, everything after it is new. A sinceTime read may lack the run's untimed lines (dated
 * before its start) while it returns older far-future lines: then the latest remembered line it
 * holds places the view, when that line is certain (`lastRememberedTimed`). Null when neither
 * places it (the group rules decide).
 */
function placeUntimedRun(
  lines: readonly RawLine[],
  H: readonly string[],
  chunkStartComplete: boolean,
  allHashes: () => readonly string[],
): Omit<Selection, "eff"> | null {
  const h = H.length;
  if (h === 0 || lines.length === 0) return null;
  const ends: number[] = [];
  const hashes = allHashes();
  for (let p = h; p <= hashes.length; p++) {
    let ok = true;
    for (let j = 0; j < h && ok; j++) if (hashes[p - h + j] !== H[j]) ok = false;
    if (ok) ends.push(p);
  }
  let from: number;
  if (ends.length > 0) from = ends[ends.length - 1]!;
  else {
    const at = chunkStartComplete ? lastRememberedTimed(lines, H, hashes) : -1;
    if (at < 0) return null;
    from = at + 1;
  }
  const take: number[] = [];
  for (let i = from; i < hashes.length; i++) take.push(i);
  // Several places fit: the lines between the first and the last may be new (reported, not repeated).
  const windowGap = ends.length > 1 && take.length > 0;
  return { take, windowGap, hold: take.length === 0, startComplete: false, steps: [], behindBefore: from };
}

/**
 * Where a read that holds everything since its start holds the latest line of the remembered run
 * it holds at all, when that place is certain: the line has a time and the read holds it once. A
 * line identical to it carries the same time, so the read returns both or neither: the one it holds
 * is the remembered line, and the run's later lines, absent from the read, were dated before its
 * start. Everything before it was written before it (log order). -1 when uncertain.
 */
function lastRememberedTimed(
  lines: readonly RawLine[],
  H: readonly string[],
  hashes: readonly string[],
): number {
  for (let j = H.length - 1; j >= 0; j--) {
    const at = hashes.indexOf(H[j]!);
    if (at < 0) continue;
    return lines[at]!.key !== null && hashes.indexOf(H[j]!, at + 1) < 0 ? at : -1;
  }
  return -1;
}

/**
 * The read position of the last line a view certainly delivered among the far-future lines its
 * cursor remembers: for a line remembered m times, the m-th line of the read with its hash and a
 * time (a read that holds everything since its start holds the delivered ones, since an identical
 * line carries the same time). -1 when the read holds none.
 */
function lastDeliveredFuture(
  lines: readonly RawLine[],
  future: readonly string[],
  hashes: readonly string[],
): number {
  const left = new Map<string, number>();
  for (const f of future) left.set(futureHash(f), (left.get(futureHash(f)) ?? 0) + 1);
  let last = -1;
  for (let i = 0; i < hashes.length; i++) {
    const n = left.get(hashes[i]!) ?? 0;
    if (n === 0 || lines[i]!.key === null) continue;
    left.set(hashes[i]!, n - 1);
    if (n === 1) last = i;
  }
  return last;
}

/** A placement without the lines up to `delivered` (read position; -1: none). */
function behind(placed: Omit<Selection, "eff">, delivered: number): Omit<Selection, "eff"> {
  if (delivered < 0) return placed;
  const take = placed.take.filter((i) => i > delivered);
  const behindBefore = Math.max(placed.behindBefore ?? 0, delivered + 1);
  return {
    ...placed,
    take,
    hold: take.length === 0,
    windowGap: placed.windowGap && take.length > 0,
    behindBefore,
  };
}

/**
 * Everything after the latest remembered line the read holds (the anchor, else the last of the
 * remembered run found) is new, everything up to it is not. Lines after it may still have been
 * skipped (the remembered lines after it are gone from the read, or an identical line stands in
 * for it), so a gap reports the place. Null when the read holds none of them.
 */
function placeAfterRemembered(
  state: CursorState,
  allHashes: () => readonly string[],
): Omit<Selection, "eff"> | null {
  const wanted =
    state.anchor === null || state.anchor === "" ? state.hashes : [...state.hashes, state.anchor];
  if (wanted.length === 0) return null;
  const hashes = allHashes();
  let last = -1;
  for (let j = wanted.length - 1; j >= 0 && last < 0; j--) last = hashes.lastIndexOf(wanted[j]!);
  if (last < 0) return null;
  const take: number[] = [];
  for (let i = last + 1; i < hashes.length; i++) take.push(i);
  return { take, windowGap: take.length > 0, hold: take.length === 0, startComplete: false, steps: [] };
}

/**
 * The far-future lines a cursor remembers delivering, as a multiset of hashes: its far-future list
 * and, when its frontier has no time (it accounted only untimed and far-future lines), the hashes of
 * that frontier's lines as well, so up to 16 of those are recognised rather than the last 8.
 */
export function rememberedFuture(state: CursorState | null): string[] {
  if (state === null) return [];
  const future = state.future.map(futureHash);
  if (state.lastTime !== null || state.hashes.length === 0) return future;
  const counts = new Map<string, number>();
  for (const h of future) counts.set(h, (counts.get(h) ?? 0) + 1);
  const fromHashes = new Map<string, number>();
  for (const h of state.hashes) fromHashes.set(h, (fromHashes.get(h) ?? 0) + 1);
  for (const [h, n] of fromHashes) if (n > (counts.get(h) ?? 0)) counts.set(h, n);
  const out: string[] = [];
  for (const [h, n] of counts) for (let i = 0; i < n; i++) out.push(h);
  return out;
}

/**
 * A remembered far-future line: its keyed hash, then `.` and its time (ms, base 36) when known. The
 * time decides which ones the cursor keeps (futureMemory).
 */
export const futureHash = (entry: string): string => entry.slice(0, 16);

/** The entry remembering a far-future line by its keyed hash and its key (a line time). */
export const futureEntry = (hash: string, key: string): string => `${hash}.${keyToMillis(key).toString(36)}`;

/** The time (ms) of a remembered far-future line; one without a time sorts as the farthest. */
const futureAt = (entry: string): number =>
  entry.length > 17 ? Number.parseInt(entry.slice(17), 36) : Number.POSITIVE_INFINITY;

/**
 * The far-future lines a cursor keeps: the `max` farthest. A sinceTime read stops returning a line
 * once its time falls behind the resume point, so the nearest ones leave the reads first (and, until
 * then, the anchor places them by log order); the farthest are returned the longest.
 */
export function futureMemory(entries: readonly string[], max: number): string[] {
  if (entries.length <= max) return entries.slice();
  return entries
    .map((e, i) => ({ e, i, at: futureAt(e) }))
    .sort((a, b) => b.at - a.at || b.i - a.i)
    .slice(0, max)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.e);
}

/** How many of the group's first lines are far-future lines the cursor remembers delivering. */
function knownLead(future: readonly string[], g: number, hashAt: (k: number) => string): number {
  if (future.length === 0) return 0;
  const left = new Map<string, number>();
  for (const f of future) left.set(f, (left.get(f) ?? 0) + 1);
  let k = 0;
  while (k < g) {
    const n = left.get(hashAt(k)) ?? 0;
    if (n === 0) break;
    left.set(hashAt(k), n - 1);
    k++;
  }
  return k;
}

/** Sorted index lists merged into one, in chunk order. */
function mergeOrdered(...lists: number[][]): number[] {
  const out = lists.flat();
  out.sort((x, y) => x - y);
  return out;
}

/** Positions in `take` whose time is before the timed line accounted just before them. */
function clockSteps(
  lines: readonly RawLine[],
  take: readonly number[],
  T: string,
  future: FutureRule,
): number[] {
  const steps: number[] = [];
  let prev = T;
  for (let q = 0; q < take.length; q++) {
    const key = resumeKey(lines[take[q]!]!, future);
    if (key === null) continue;
    if (key < prev) steps.push(q);
    prev = key;
  }
  return steps;
}
