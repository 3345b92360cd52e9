/**
 * Resume and de-duplication (docs/pipeline.md §5). Lines are grouped by an effective time key: a timed
 * line's own key, an untimed line the key of the timed line before it in the chunk. Against the
 * cursor's frontier (lastTime T, count n, the keyed hashes of the last ≤ 16 lines accounted at T),
 * older lines are dropped, newer ones taken, and the lines at T are skipped by position when that is
 * certain, else by finding where the remembered hashes end. Lines that could be either are held
 * back while nothing follows them, and reported in a gap once something does.
 */
import { lineHash } from "./cursor.ts";
import type { RawLine } from "./lines.ts";
import { parseUtcTime } from "./time.ts";
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
  // Leading untimed lines are older than the frontier if a line at or before it follows them;
  // otherwise they may continue the frontier's group.
  const leading =
    frontierKey === null || frontierKey === BEFORE_ALL || (firstTimed !== null && firstTimed <= frontierKey)
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
  if (state.lastTime === null) return BEFORE_ALL;
  const parsed = parseUtcTime(state.lastTime);
  return parsed === null ? BEFORE_ALL : parsed.key;
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
    return { take, windowGap, hold: false, eff, startComplete: chunkStartComplete };
  }
  const T = frontierKey(state);
  const eff = effectiveKeys(lines, T, future);
  const group: number[] = [];
  const newer: number[] = [];
  let olderTimedBeforeGroup = false;
  for (let i = 0; i < lines.length; i++) {
    const e = eff[i]!;
    if (e === T) group.push(i);
    else if (e > T) newer.push(i);
    else if (group.length === 0 && resumeKey(lines[i]!, future) !== null) olderTimedBeforeGroup = true;
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
    const lo = startComplete ? n : 0;
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
    pmin = 0;
    pmax = g;
  }
  pmin = Math.min(pmin, g);
  pmax = Math.min(pmax, g);
  const take: number[] = [];
  // Chunk order: the group's new tail and the newer lines, merged.
  let a = pmax;
  let b = 0;
  while (a < g || b < newer.length) {
    const ga = a < g ? group[a]! : Number.POSITIVE_INFINITY;
    const nb = b < newer.length ? newer[b]! : Number.POSITIVE_INFINITY;
    if (ga < nb) {
      take.push(ga);
      a++;
    } else {
      take.push(nb);
      b++;
    }
  }
  if (take.length === 0) return { take, windowGap: false, hold: true, eff, startComplete };
  const windowGap = T !== BEFORE_ALL && (unknown || pmin < pmax || (!startComplete && pmin === 0));
  const ambiguousUntimed = T === BEFORE_ALL && (pmin < pmax || (!chunkStartComplete && pmin === 0));
  return { take, windowGap: windowGap || ambiguousUntimed, hold: false, eff, startComplete };
}
