/**
 * The sandbox source's page (the sandbox source's resume rules, pipeline §8): decide which lines of a
 * `GetSandboxLogs` answer are new, report what was lost, build records within the page budget,
 * sign the cursor for what was delivered, then apply the level filter. Pure: time is a parameter.
 *
 * Order of checks on every answer: first the instance (two IDs in one answer → 503; another ID
 * than the cursor's → `stream_replaced`, the frontier resets and every line is new); then the
 * frontier: lines older than the overlap start are never delivered again; lines inside the
 * overlap are matched against the remembered keyed hashes, per millisecond, as the run they were
 * delivered in (after the lines remembered by count; in the view's first millisecond after lines
 * older than the view too), or as multisets once the ring evicted some; newer lines are new, and
 * a line before one the view delivered never is.
 * A remembered line the answer no longer holds means the ring rolled past it (`buffer_lost`, or
 * `window_exceeded` when the answer was a full window of a ring holding more), dated at the oldest
 * returned line. Lines
 * with a time of 0, a negative time or one beyond now + 60 s are untimed for resume: delivered
 * once (far-future ones are remembered by hash), they never move the frontier.
 */
import { ServiceError } from "../api/errors.ts";
import type { Level } from "../domain.ts";
import type { SandboxChunk, SandboxLogLine } from "../openshell/types.ts";
import { belowMinLevel, type ClassifyContext } from "./classify.ts";
import { keyById, MAX_CURSOR_CHARS, signingKey } from "./cursor.ts";
import { jsonBytes } from "./json-size.ts";
import { PAGE_BUDGET_BYTES } from "./page.ts";
import {
  MAX_OVERLAP_HASHES,
  MAX_UNTIMED_HASHES,
  type OverlapGroup,
  SANDBOX_ID,
  SANDBOX_OVERLAP_MS,
  type SandboxCursorState,
  sandboxLineHash,
  signSandboxCursor,
} from "./sandbox-cursor.ts";
import { sandboxRecord, sandboxTime } from "./sandbox-records.ts";
import { utf8Length } from "./sanitize.ts";
import type {
  CursorBinding,
  GapRecord,
  LogPage,
  LogRecord,
  LogStream,
  PageRequest,
  SecretKey,
} from "./types.ts";

/** OpenShell's ring capacity, and the lines a resume asks for. */
export const SANDBOX_RING_CAPACITY = 2000;
/** Lines further in the future than this (by the service's clock) are untimed for resume. */
export const FUTURE_SKEW_MS = 60_000;

export const SANDBOX_REMEDIES = {
  stream_replaced:
    "The sandbox was replaced by a new instance; its earlier lines are no longer readable and lines around the change may be missing.",
  buffer_lost:
    "The sandbox log buffer rolled over between polls; older lines were evicted before they could be read. Poll more often to keep up.",
  window_exceeded:
    "More sandbox lines were written between polls than one read returns; poll more often to keep up.",
  cursor_expired:
    "The cursor was older than one hour, so a new view started; lines between the two views may be missing.",
  truncated:
    "The page reached its size limit; poll again with the cursor to continue right after the last line shown.",
} as const;

const gap = (reason: keyof typeof SANDBOX_REMEDIES, time: string | null): GapRecord => ({
  type: "gap",
  time,
  reason,
  remedy: SANDBOX_REMEDIES[reason],
});

/** What to ask OpenShell for: a new view's tail (and since), or the overlap re-read of a resume. */
export function planSandboxRead(input: {
  cursor: SandboxCursorState | null;
  tailLines: number;
  sinceMs?: number;
}): { lines: number; sinceMs: number } {
  const c = input.cursor;
  if (c === null) return { lines: input.tailLines, sinceMs: input.sinceMs ?? 0 };
  // Untimed lines left behind by a cut page are only seen without a time filter. Otherwise skip the
  // untimed ones (0 and below, already delivered) even before the first timed line.
  if (c.untimedPending) return { lines: SANDBOX_RING_CAPACITY, sinceMs: 0 };
  const since = c.frontierMs === null ? 1 : Math.max(1, c.frontierMs - SANDBOX_OVERLAP_MS);
  return { lines: SANDBOX_RING_CAPACITY, sinceMs: since };
}

export interface SandboxPageInput extends PageRequest {
  chunk: SandboxChunk;
  /** The verified cursor of this view, or null for a new view. */
  cursor: SandboxCursorState | null;
  expired: boolean;
  view: { binding: CursorBinding; tailLines: number; minLevel?: Level };
  /** The ring's capacity, when known to differ from OpenShell's 2000 (tests). */
  ringCapacity?: number;
}

export interface SandboxBuiltPage {
  page: LogPage;
  cursor: string;
  body: string;
}

enum Fate {
  /** Not delivered now, never to be: older than the overlap, or untimed on a resume. */
  Drop = 0,
  /** Delivered before (matched in the overlap, or a remembered far-future line). */
  Known = 1,
  New = 2,
}

const unavailable = (internal: string) => new ServiceError("RUNTIME_LOGS_UNAVAILABLE", { internal });

const hex = (b: Buffer) => b.toString("hex");

interface Selection {
  instance: string | null;
  replaced: boolean;
  fates: Uint8Array;
  hashes: (Buffer | null)[];
  /** Lines untimed for resume (time ≤ 0, or beyond now + 60 s). */
  untimed: Uint8Array;
  loss: GapRecord | null;
  /** The frontier the selection matched against (null for a new view or a replaced stream). */
  front: SandboxCursorState | null;
  /** The millisecond the view's first page began inside, while it is remembered. */
  openMs: number | null;
  /** The answer was the whole full ring: its first line (`ringStart` of the next cursor). */
  ringStart: number | null;
}

/** Steps 1–2 of the order of checks: the instance, then the frontier. */
export function selectSandboxLines(
  lines: readonly SandboxLogLine[],
  cursor: SandboxCursorState | null,
  ctx: {
    hashKey: SecretKey;
    now: number;
    requested: { lines: number; sinceMs: number };
    bufferTotal: number;
    ringCapacity: number;
  },
): Selection {
  let instance: string | null = null;
  for (const l of lines) {
    if (instance === null) instance = l.sandboxId;
    else if (l.sandboxId !== instance) throw unavailable("sandbox answer names two instances");
  }
  if (instance !== null && !SANDBOX_ID.test(instance)) throw unavailable("sandbox instance ID is malformed");
  const replaced =
    cursor !== null && cursor.sandboxId !== null && instance !== null && instance !== cursor.sandboxId;
  const front = cursor !== null && !replaced ? cursor : null;
  instance ??= cursor?.sandboxId ?? null;

  const n = lines.length;
  const fates = new Uint8Array(n);
  const untimed = new Uint8Array(n);
  const hashes: (Buffer | null)[] = new Array(n).fill(null);
  const hashOf = (i: number): Buffer => {
    hashes[i] ??= sandboxLineHash(ctx.hashKey, lines[i]!);
    return hashes[i]!;
  };
  const untimedSeen = new Map<string, number>();
  for (const h of front?.untimed ?? []) untimedSeen.set(hex(h), (untimedSeen.get(hex(h)) ?? 0) + 1);
  const known = (i: number): boolean => {
    const k = hex(hashOf(i));
    const left = untimedSeen.get(k) ?? 0;
    if (left === 0) return false;
    untimedSeen.set(k, left - 1);
    return true;
  };
  const horizon = ctx.now + FUTURE_SKEW_MS;
  const F = front?.frontierMs ?? null;
  const O = front?.overlapStartMs ?? null;
  const sinceFloor = front === null && ctx.requested.sinceMs > 0 ? ctx.requested.sinceMs : null;

  // Lines inside the overlap, per millisecond, in answer order.
  const byMs = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const t = lines[i]!.timestampMs;
    if (t > horizon || t <= 0) {
      untimed[i] = 1;
      // Delivered once: remembered by hash. A resume reads with since > 0, so lines at 0 and below
      // come back only after a cut page (read without a time filter) or from a server that
      // ignores the filter: then only unremembered ones are new.
      if (known(i)) fates[i] = Fate.Known;
      else fates[i] = front === null || t > 0 || front.untimedPending ? Fate.New : Fate.Drop;
      continue;
    }
    if (untimedSeen.size > 0 && known(i)) {
      // A far-future line delivered earlier whose time the clock has since reached.
      fates[i] = Fate.Known;
      continue;
    }
    if (sinceFloor !== null && t < sinceFloor) {
      fates[i] = Fate.Drop;
      continue;
    }
    if (F === null || O === null || t > F) {
      fates[i] = Fate.New;
      continue;
    }
    if (t < O) {
      fates[i] = Fate.Drop;
      continue;
    }
    const at = byMs.get(t);
    if (at) at.push(i);
    else byMs.set(t, [i]);
  }

  let missing = 0;
  for (const g of front?.groups ?? []) {
    const at = byMs.get(g.ms) ?? [];
    byMs.delete(g.ms);
    const run = g.hashes.length;
    let byPosition = g.count - run;
    // The remembered lines were delivered in a row, after the ones remembered by count. In a
    // millisecond the view began inside, older lines may come first: the latest place the answer
    // holds them in a row (a line after them is never taken for one of them). Elsewhere nothing
    // comes first: the place right after the counted ones, or earlier when the ring evicted some.
    const latest = g.open ? at.length - run : Math.min(at.length - run, byPosition);
    let place = -1;
    for (let p = latest; p >= 0 && run > 0 && place < 0; p--) {
      let same = true;
      for (let j = 0; j < run && same; j++) same = hashOf(at[p + j]!).equals(g.hashes[j]!);
      if (same) place = p;
    }
    let left = 0;
    if (place >= 0) {
      // Before them: the ones remembered by count, then lines older than the view. After: new.
      for (let j = 0; j < at.length; j++) fates[at[j]!] = j < place + run ? Fate.Known : Fate.New;
      const counted = Math.min(byPosition, place);
      for (let j = 0; j < place - counted; j++) fates[at[j]!] = Fate.Drop;
      byPosition -= counted;
    } else {
      // Not in a row any more: the ring evicted some of them. Matched as a multiset; the oldest
      // lines, by count, are the delivered ones when nothing remembered by hash is left.
      const remembered = new Map<string, number>();
      for (const h of g.hashes) remembered.set(hex(h), (remembered.get(hex(h)) ?? 0) + 1);
      left = run;
      let matched = false;
      for (const i of at) {
        const k = hex(hashOf(i));
        const r = remembered.get(k) ?? 0;
        if (r > 0) {
          remembered.set(k, r - 1);
          left--;
          matched = true;
          fates[i] = Fate.Known;
        } else if (byPosition > 0 && !matched) {
          byPosition--;
          fates[i] = Fate.Known;
        } else fates[i] = Fate.New;
      }
    }
    missing += left + byPosition;
  }
  // Milliseconds of the overlap with nothing remembered: lines the view has not delivered.
  for (const at of byMs.values()) for (const i of at) fates[i] = Fate.New;
  // A ring only appends and a page delivers a prefix of its answer: a line before one the view
  // delivered was written before it, so it was delivered too or is older than the view (its first
  // page began after it, whatever its time says). Only lines after the last delivered one are new.
  let lastKnown = -1;
  for (let i = 0; i < n; i++) if (fates[i] === Fate.Known) lastKnown = i;
  for (let i = 0; i < lastKnown; i++) if (fates[i] === Fate.New) fates[i] = Fate.Drop;

  const wholeRing = n > 0 && ctx.bufferTotal >= ctx.ringCapacity && n >= ctx.bufferTotal;
  let loss: GapRecord | null = null;
  if (front !== null) {
    let oldest: number | null = null;
    for (const l of lines) {
      if (l.timestampMs > 0 && l.timestampMs <= horizon) {
        oldest = l.timestampMs;
        break;
      }
    }
    const full = n >= ctx.requested.lines;
    // The whole ring came back full, and nothing older than the overlap (or, before the first timed
    // line, nothing at all) is left: it may have rolled past lines this view never saw, and
    // identical lines could hide which ones it evicted.
    // A ring that still begins with the line it began with at the last read evicted nothing since.
    const rolledInto =
      wholeRing &&
      oldest !== null &&
      (O === null || oldest >= O) &&
      !(front.ringStart !== null && hashOf(0).equals(front.ringStart));
    // A full answer from a ring holding more than one read returns: the missing lines may still be
    // in the ring, past the window. A full answer that was the whole ring: they were evicted.
    const windowCut = full && ctx.bufferTotal > n;
    if (missing > 0)
      loss = gap(windowCut ? "window_exceeded" : "buffer_lost", oldest === null ? null : sandboxTime(oldest));
    else if (rolledInto && oldest !== null) loss = gap("buffer_lost", sandboxTime(oldest));
  }

  // A new view's tail that cut the ring may have begun inside a millisecond: remember which.
  let openMs: number | null = front?.groups.find((g) => g.open)?.ms ?? null;
  if (cursor === null && n >= ctx.requested.lines && ctx.bufferTotal > n) {
    for (let i = 0; i < n && openMs === null; i++) if (!untimed[i]) openMs = lines[i]!.timestampMs;
  }
  return { instance, replaced, fates, hashes, untimed, loss, front, openMs, ringStart: wholeRing ? 0 : null };
}

/** The next cursor: the frontier and overlap after the last line this page accounts for. */
function nextState(
  lines: readonly SandboxLogLine[],
  sel: Selection,
  lastDelivered: number,
  x: { now: number; signing: SecretKey; tailLines: number },
): SandboxCursorState {
  const hashOf = (i: number): Buffer => {
    // Hashes made under a previous key are remade with the signing key.
    return sandboxLineHash(x.signing, lines[i]!);
  };
  const front = sel.front;
  const sameKey = front !== null && front.keyId === x.signing.id;
  const base = {
    keyId: x.signing.id,
    issuedAt: x.now,
    sandboxId: sel.instance,
    tailLines: x.tailLines,
    ringStart: sel.ringStart === null ? null : hashOf(sel.ringStart),
  };

  // Untimed lines delivered: the remembered ones, then the new ones (the newest 16 are kept).
  const untimed: Buffer[] = sameKey ? [...(front?.untimed ?? [])] : [];
  let untimedPending = false;
  for (let i = 0; i < lines.length; i++) {
    if (!sel.untimed[i] || sel.fates[i] !== Fate.New) continue;
    if (i <= lastDelivered) untimed.push(hashOf(i));
    else if (lines[i]!.timestampMs <= 0) untimedPending = true;
  }
  const kept = { untimed: untimed.slice(-MAX_UNTIMED_HASHES), untimedPending };

  // Timed lines accounted for: delivered before (matched) or now (up to the page's last line).
  const accounted: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (sel.untimed[i]) continue;
    const f = sel.fates[i];
    if (f === Fate.Known || (f === Fate.New && i <= lastDelivered)) accounted.push(i);
  }
  if (accounted.length === 0) {
    if (front === null || front.frontierMs === null) {
      return { ...base, frontierMs: null, overlapStartMs: null, groups: [], ...kept };
    }
    // Nothing new: keep the frontier (its hashes only while the key is the same). After a loss,
    // none of the remembered lines is left in the ring: forget them, or every poll would report it.
    const groups = sel.loss !== null ? [] : front.groups.map((g) => (sameKey ? g : { ...g, hashes: [] }));
    return {
      ...base,
      frontierMs: front.frontierMs,
      overlapStartMs: front.overlapStartMs,
      groups,
      ...kept,
    };
  }
  let frontier = 0;
  for (const i of accounted) frontier = Math.max(frontier, lines[i]!.timestampMs);
  let floor = frontier - SANDBOX_OVERLAP_MS;
  if (front?.overlapStartMs != null && front.overlapStartMs > floor) floor = front.overlapStartMs;
  const byMs = new Map<number, number[]>();
  for (const i of accounted) {
    const t = lines[i]!.timestampMs;
    if (t < floor) continue;
    const at = byMs.get(t);
    if (at) at.push(i);
    else byMs.set(t, [i]);
  }
  const newestFirst = [...byMs.keys()].sort((a, b) => b - a);
  const groups: OverlapGroup[] = [];
  let budget = MAX_OVERLAP_HASHES;
  let start = floor;
  for (const ms of newestFirst) {
    const at = byMs.get(ms)!;
    const take = Math.min(budget, at.length);
    const hashes = at.slice(at.length - take).map(hashOf);
    groups.unshift(
      ms === sel.openMs ? { ms, count: at.length, hashes, open: true } : { ms, count: at.length, hashes },
    );
    budget -= take;
    if (budget === 0) {
      // Older lines than these are never delivered again.
      start = ms;
      break;
    }
  }
  return { ...base, frontierMs: frontier, overlapStartMs: start, groups, ...kept };
}

const envelope = (page: LogPage, requestId: string): string =>
  JSON.stringify({ data: page, meta: { requestId } });

export function buildSandboxPage(input: SandboxPageInput): SandboxBuiltPage {
  const { chunk, view, now } = input;
  const budget = input.maxBytes ?? PAGE_BUDGET_BYTES;
  const lines =
    chunk.lines.length > chunk.requested.lines ? chunk.lines.slice(-chunk.requested.lines) : chunk.lines;
  const prior = input.cursor;
  const signing = signingKey(input.keys.cursor);
  const hashKey = prior === null ? signing : keyById(input.keys.cursor, prior.keyId);
  if (hashKey === null)
    throw new ServiceError("RUNTIME_LOGS_CURSOR_INVALID", { internal: "cursor key gone" });
  const sel = selectSandboxLines(lines, prior, {
    hashKey,
    now,
    requested: chunk.requested,
    bufferTotal: chunk.bufferTotal,
    ringCapacity: input.ringCapacity ?? SANDBOX_RING_CAPACITY,
  });

  const leading: GapRecord[] = [];
  if (input.expired) leading.push(gap("cursor_expired", null));
  if (sel.replaced) {
    const first = lines.find((l) => sandboxTime(l.timestampMs) !== null);
    leading.push(gap("stream_replaced", first ? sandboxTime(first.timestampMs) : null));
  }
  if (sel.loss) leading.push(sel.loss);

  const stream: LogStream = {
    source: "sandbox",
    gatewayId: chunk.gatewayId,
    sandbox: chunk.sandboxName,
    sandboxId: sel.instance,
  };
  const shell: LogPage = {
    deploymentId: input.deploymentId,
    source: "sandbox",
    stream,
    observedAt: new Date(now).toISOString(),
    records: [],
    withheld: 999_999_999,
    truncated: false,
    cursor: "x".repeat(MAX_CURSOR_CHARS),
  };
  let used = utf8Length(envelope(shell, input.requestId)) + jsonBytes(gap("truncated", sandboxTime(now))) + 1;
  const records: LogRecord[] = [];
  for (const g of leading) {
    used += jsonBytes(g) + 1;
    records.push(g);
  }
  if (used > budget)
    throw new ServiceError("INTERNAL", { internal: "sandbox page shell exceeds its budget" });

  // Records in order, each measured once; the page stops before the first that does not fit.
  const ctx: ClassifyContext = { identityKey: input.keys.identity, namespaceId: input.namespaceId };
  const lineRecords: { rec: LogRecord; index: number }[] = [];
  let lastDelivered = -1;
  let cut = false;
  let withheld = 0;
  let cutTime: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    if (sel.fates[i] !== Fate.New) continue;
    const rec = sandboxRecord(lines[i]!, ctx);
    const size = jsonBytes(rec) + 1;
    if (used + size > budget) {
      cut = true;
      cutTime = rec.time;
      break;
    }
    used += size;
    lineRecords.push({ rec, index: i });
    lastDelivered = i;
    if (rec.type === "withheld") withheld += rec.count;
  }
  if (cut && lineRecords.length === 0) {
    throw new ServiceError("INTERNAL", { internal: "a single sandbox record does not fit the page budget" });
  }
  // A cut page accounts only for lines up to the last one delivered.
  const accountedUpTo = cut ? lastDelivered : lines.length - 1;
  const state = nextState(lines, sel, accountedUpTo, {
    now,
    signing,
    tailLines: prior?.tailLines ?? view.tailLines,
  });
  const token = signSandboxCursor(state, view.binding, input.keys.cursor);

  // Level filter after signing: the cursor already resumes after hidden lines.
  const min = view.minLevel;
  for (const { rec } of lineRecords) {
    if (belowMinLevel(rec, min)) continue;
    records.push(rec);
  }
  if (cut) records.push(gap("truncated", cutTime));
  const page: LogPage = { ...shell, records, withheld, truncated: cut, cursor: token };
  const body = envelope(page, input.requestId);
  if (utf8Length(body) > budget)
    throw new ServiceError("INTERNAL", { internal: "sandbox page exceeded its budget" });
  return { page, cursor: token, body };
}
