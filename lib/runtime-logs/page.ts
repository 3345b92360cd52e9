/**
 * The log page (pipeline.md §5–§7): select the lines the view has not accounted for, classify and
 * redact them, mask PEM blocks across lines and pages, fit the page into its byte budget with one
 * pass of prefix sums, sign the cursor for what was delivered, then apply the level filter.
 */
import { ServiceError } from "../api/errors.ts";
import type { Level, LogChunk, SourceId } from "../domain.ts";
import { belowMinLevel, LineClassifier, Pem, type WithheldContent } from "./classify.ts";
import { FUTURE_MS, frontierAhead, futureRule, keyAt, probeSelection } from "./clock.ts";
import {
  CURSOR_MAX_SKEW_MS,
  CURSOR_TTL_MS,
  frontierTime,
  keyById,
  lineHash,
  MAX_CURSOR_CHARS,
  MAX_FRONTIER_HASHES,
  MAX_FUTURE_HASHES,
  signCursor,
  signingKey,
} from "./cursor.ts";
import { gap } from "./gaps.ts";
import { recordBytes } from "./json-size.ts";
import { type RawLine, type SplitChunk, splitRead } from "./lines.ts";
import { missingAt, nextPending, type PendingPlace, placePending } from "./pending.ts";
import { RESUME_OVERLAP_MS, readTailLines, resumeSince, resumesStream, sinceOf } from "./plan.ts";
import {
  BEFORE_ALL,
  effectiveKeys,
  frontierKey,
  futureEntry,
  futureHash,
  futureMemory,
  hasFrontier,
  type Selection,
  selectLines,
} from "./resume.ts";
import { utf8Length } from "./sanitize.ts";
import { keyToMillis, parseUtcTime } from "./time.ts";
import type {
  CursorBinding,
  CursorState,
  GapRecord,
  LineRecord,
  LogPage,
  LogRecord,
  LogStream,
  PageRequest,
  SecretKey,
  WithheldRecord,
} from "./types.ts";

export const PAGE_BUDGET_BYTES = 524_288;
/** Downloads render the same records as text; keep them well under Lambda's 6 MB response. */
export const DOWNLOAD_BUDGET_BYTES = 5 * 1024 * 1024 - 64 * 1024;
/** A line the read cut stalls the view while it is younger than this (pipeline.md §5). */
export const STALL_MS = 3_000;
/** A re-anchored cursor's issue time stays this far inside the verifier's clock-skew limit. */
const MAX_ISSUED_AHEAD_MS = CURSOR_MAX_SKEW_MS - 1_000;
/** A stalled partial line is retried from no further back than half a cursor's lifetime. */
const STALL_RETRY_WINDOW_MS = CURSOR_TTL_MS / 2;
/** Past every instant of the frontier's whole second, however its fraction was written. */
const PAST_FRONTIER_SECOND_MS = 1_001;

export interface PageView {
  binding: CursorBinding;
  /** The view's tailLines (a cursor's own for a cursor poll). */
  tailLines: number;
  minLevel?: Level;
  source: SourceId;
}

export interface BuildLogPageInput extends PageRequest {
  /** The driver's read; null when no Pod runs. */
  chunk: LogChunk | null;
  /** The verified cursor of this view, or null for a new view. */
  cursor: CursorState | null;
  /** The query's cursor had expired: a new view that starts with a `cursor_expired` gap. */
  expired: boolean;
  view: PageView;
  /**
   * The clock-step probe (pipeline.md §5): the last lines of the same stream read without
   * sinceTime, when the plan asked for one and the read was idle (`isIdleRead`). Null or absent
   * otherwise.
   */
  probe?: LogChunk | null;
  /** `chunk` as the caller split it already (`splitRead`), used when it keeps the page's tail. */
  split?: SplitChunk;
  /**
   * Benchmarks only (P1): parse every line of the chunk, not only the read's tail. Pair with a large
   * `maxBytes` to push every line through every stage.
   */
  uncapped?: boolean;
}

export interface BuiltPage {
  page: LogPage;
  cursor: string | null;
  /** The serialized success envelope `{"data":page,"meta":{"requestId":…}}`, checked against the budget. */
  body: string;
}

const PEM_MASK = "[redacted:pem]";

/**
 * The page's records in order, in parallel arrays (no object per record): each record, the index in
 * `take` of the last line it covers (-1 for gaps), and its bytes in the page's array, comma
 * included (0 until measured, unless known when it was added).
 */
class PageRecords {
  readonly recs: LogRecord[] = [];
  readonly last: number[] = [];
  readonly size: number[] = [];

  gap(rec: GapRecord): void {
    this.add(rec, -1, 0);
  }

  add(rec: LogRecord, last: number, size: number): void {
    this.recs.push(rec);
    this.last.push(last);
    this.size.push(size);
  }
}

interface PemState {
  open: boolean;
  unknown: boolean;
}

export function buildLogPage(input: BuildLogPageInput): BuiltPage {
  const { chunk, view, now } = input;
  const observedAt = new Date(now).toISOString();
  const budget = input.maxBytes ?? PAGE_BUDGET_BYTES;
  if (chunk === null) {
    const page: LogPage = {
      deploymentId: input.deploymentId,
      source: view.source,
      stream: null,
      observedAt,
      records: [],
      withheld: 0,
      truncated: false,
      cursor: null,
    };
    return { page, cursor: null, body: envelope(page, input.requestId) };
  }

  const prior = input.cursor;
  const sameStream = resumesStream(prior, chunk);
  let frontier = sameStream ? prior : null;
  // A cursor whose stream was replaced during its read keeps the old instance's frontier only as
  // the point to read from: nothing of this instance is accounted yet, so nothing is matched.
  if (frontier !== null && frontier.anchor === "" && hasFrontier(frontier)) {
    frontier = { ...frontier, lastTime: null, count: 0, complete: false, hashes: [] };
  }
  // The view keeps its own tail; the read asked for `readTail` lines, and no more are parsed.
  const tailLines = prior?.tailLines ?? view.tailLines;
  const readTail = readTailLines(prior, chunk, view.tailLines);
  const split = splitRead(chunk, input.uncapped === true ? undefined : readTail, input.split);
  let lines = split.lines;
  let firstTime = firstTimeOf(lines);

  const entries = new PageRecords();
  if (input.expired) entries.gap(gap("cursor_expired", null));
  if (prior !== null && !sameStream) {
    const restarted = prior.pod === chunk.pod && prior.podUid === chunk.podUid;
    entries.gap(gap("stream_replaced", firstTime, restarted ? "stream_replaced" : "stream_replaced_pod"));
  }

  let chunkStartComplete = !chunk.truncated && split.returned < readTail;
  const hashKey =
    frontier === null ? signingKey(input.keys.cursor) : keyById(input.keys.cursor, frontier.keyId);
  if (hashKey === null)
    throw new ServiceError("RUNTIME_LOGS_CURSOR_INVALID", { internal: "cursor key gone" });
  // Hostile clocks (docs/pipeline.md §5): lines dated beyond now + 60 s never move the frontier. The
  // lines the cursor accounted for are judged as the read that built it judged them (its readAt),
  // so none turns from far-future into timed (and new) between two polls; the new cursor is built
  // with this read's judgement.
  const judgedAt = hasFrontier(frontier) ? frontier.readAt : now;
  const future = futureRule(judgedAt, frontier, hashKey);
  // A frontier ahead of the service's clock: continue from now − overlap (the plan read from there).
  if (frontier !== null && frontierAhead(frontier, now)) {
    entries.gap(gap("clock_step", null, "clock_step_service"));
    frontier = null;
  }
  let sel = selectLines(lines, frontier, chunkStartComplete, hashKey, chunk.truncated, future);
  // The clock-step probe of an idle poll (the last lines, without sinceTime): lines it holds after the
  // last one accounted for that the sinceTime read could not hold mean the node's clock stepped back
  // and hid them. Log order places them, after a clock_step gap.
  let probeGap = false;
  const probed =
    !chunk.truncated && frontier !== null && input.probe
      ? probeSelection(input.probe, chunk, frontier, sel, lines, hashKey, keyAt(resumeSince(frontier)))
      : null;
  if (probed !== null) {
    lines = probed.lines;
    const eff = effectiveKeys(
      lines,
      hasFrontier(frontier) ? frontierKey(frontier) : null,
      futureRule(judgedAt, frontier, hashKey),
    );
    probeGap = !probed.reached;
    sel = {
      take: probed.take,
      windowGap: false,
      hold: false,
      eff,
      startComplete: false,
      steps: probed.reached && probed.hidden >= 0 ? [probed.hidden] : [],
    };
    firstTime = lines[probed.take[0]!]!.time;
    chunkStartComplete = false;
  }
  // Untimed lines the last page left (cut off, or held back) must be in their places after the last
  // line accounted, else the kubelet dated them before this read's start: a clock_step gap goes where
  // each is missing. A gap before every line (a window gap, an unplaced probe) covers them already.
  const pending =
    frontier !== null && frontier.pending !== undefined && !sel.windowGap && !probeGap
      ? placePending(lines, sel.take, frontier.pending, hashKey)
      : [];
  if (pending.length > 0) sel = { ...sel, steps: mergeSteps(sel.steps, missingAt(pending, sel.take)) };
  // Everything this read offers after the last line accounted: the untimed lines the page does not
  // deliver (held back below, or after its cut) are named in its cursor.
  const offered = sel.take;
  // Lines without a usable time at the end of a sinceTime read (untimed, far-future) cannot tell
  // whether a clock step back hid lines before them: they wait for a read that places them, a timed
  // line after them or the probe of the next (idle) poll.
  if (input.probe == null && probed === null && sameStream && frontier !== null && !chunk.truncated) {
    // (Only behind a timed line shown now: the next read is then idle, and probes, unless a timed line
    // came meanwhile; the cursor names the untimed ones held for that case.)
    const futureKey = keyAt(judgedAt + FUTURE_MS);
    let keep = sel.take.length;
    while (keep > 0) {
      const key = lines[sel.take[keep - 1]!]!.key;
      if (key !== null && key <= futureKey) break;
      keep--;
    }
    if (keep > 0 && keep < sel.take.length) {
      const take = sel.take.slice(0, keep);
      sel = { ...sel, take, hold: take.length === 0, windowGap: sel.windowGap && take.length > 0 };
    }
  }
  const take = sel.take;
  // The keys the new cursor is built with: this read's far-future judgement.
  const effNow =
    judgedAt === now
      ? sel.eff
      : effectiveKeys(
          lines,
          hasFrontier(frontier) ? frontierKey(frontier) : null,
          futureRule(now, frontier, hashKey),
        );
  // A full read that began after the last line shown is a burst; otherwise the resume point itself
  // could not be matched (lines at one instant that cannot be told apart).
  const fullRead = chunk.truncated || split.returned >= readTail;
  if (probeGap) {
    entries.gap(gap("clock_step", firstTime));
  } else if (sel.windowGap) {
    entries.gap(gap("window_exceeded", firstTime, fullRead ? "window_exceeded" : "window_exceeded_resume"));
  }

  // Trailing gaps: a stalled read, a stream replaced during the read.
  const trailing: GapRecord[] = [];
  let stall: "stay" | "skip" | null = null;
  const partialTime = split.partialTime?.time ?? null;
  const frontierMs = frontier === null ? null : (frontierTime(frontier)?.ms ?? null);
  if (chunk.truncated && take.length === 0) {
    // The line's age; when its time was cut off, the frontier is a lower bound of it.
    const partialMs = split.partialTime === null ? frontierMs : keyToMillis(split.partialTime.key);
    stall = partialMs !== null && now - partialMs < STALL_MS ? "stay" : "skip";
    // Whose fault the stall is: one line larger than what the read had left after the lines already
    // shown (an oversized line), or so many already-shown lines at the resume point that they fill
    // the read (the resume point cannot be passed).
    const partialBytes = chunk.text.length - chunk.text.lastIndexOf("\n") - 1;
    const oversized = partialBytes >= chunk.text.length / 2;
    trailing.push(
      stall === "stay"
        ? gap("truncated", partialTime, oversized ? "truncated_line" : "truncated_resume")
        : gap("window_exceeded", partialTime, oversized ? "window_exceeded_line" : "window_exceeded_resume"),
    );
  }
  const after = chunk.observedAfter;
  const replacedDuringRead =
    after === null || after.podUid !== chunk.podUid || after.restartCount !== chunk.restartCount;
  if (replacedDuringRead) {
    const restarted = after !== null && after.podUid === chunk.podUid;
    trailing.push(gap("stream_replaced", null, restarted ? "stream_replaced" : "stream_replaced_pod"));
  }

  // Budget: envelope, trailing gaps, a possible `truncated` gap and the largest cursor are reserved.
  const stream: LogStream = {
    source: view.source,
    pod: chunk.pod,
    podUid: chunk.podUid,
    container: chunk.container,
    restartCount: chunk.restartCount,
    previous: chunk.previous,
  };
  const shell: LogPage = {
    deploymentId: input.deploymentId,
    source: view.source,
    stream,
    observedAt,
    records: [],
    withheld: 999_999_999,
    truncated: false,
    cursor: "x".repeat(MAX_CURSOR_CHARS),
  };
  const truncGapReserve = utf8Length(JSON.stringify(gap("truncated", "9999-12-31T23:59:59.999999999Z"))) + 1;
  let reserved = utf8Length(envelope(shell, input.requestId)) + truncGapReserve;
  for (const g of trailing) reserved += utf8Length(JSON.stringify(g)) + 1;

  // Classify, mask PEM blocks and build records in order, batch by batch, measuring each final
  // record once (its size as it will appear in the array, comma included) and summing: lines past
  // the first record that does not fit are never classified. A record is final once no later line
  // can change it: a run of withheld lines may still grow, and PEM-shaped lines may still be masked
  // by an END below them; such a trailing run waits for the next batch.
  const carried: PemState & { key: string | null } =
    frontier?.pemOpen === true
      ? {
          open: true,
          unknown: frontier.pemFrontier === null,
          key: frontier.pemFrontier === null ? null : (parseUtcTime(frontier.pemFrontier)?.key ?? null),
        }
      : { open: false, unknown: false, key: null };
  const classifier = new LineClassifier({ identityKey: input.keys.identity, namespaceId: input.namespaceId });
  const classified: Classified = {
    content: new Array(take.length),
    pem: new Uint8Array(take.length),
    shape: new Uint8Array(take.length),
    bytes: new Uint32Array(take.length),
  };
  const contents = classified.content;
  const pem = new PemMasker(lines, take, classified, carried);
  const unsettled = new UnsettledRun(classified, pem.masked);
  const masked = pem.masked;
  const pemAfter = pem.after;
  let done = 0;
  let built = 0;
  const { recs, last: lasts, size: sizes } = entries;
  /** The withheld record the next withheld line of its reason joins, and its place in `entries`. */
  let open: WithheldRecord | null = null;
  let openAt = -1;
  let used = reserved;
  let nextStep = 0;
  let k = 0;
  let full = false;
  for (;;) {
    // Measure the records built so far (line records were measured as they were built).
    for (; k < recs.length; k++) {
      const size = sizes[k] || recordBytes(recs[k]!) + 1;
      if (used + size > budget) {
        full = true;
        break;
      }
      sizes[k] = size;
      used += size;
    }
    if (full || built === take.length) break;
    const to = Math.min(take.length, done + CLASSIFY_BATCH);
    for (let q = done; q < to; q++) {
      const line = lines[take[q]!]!;
      contents[q] = classifier.line(line.text, line.time);
      classified.pem[q] = classifier.pem;
      classified.shape[q] = classifier.maskShape;
      classified.bytes[q] = classifier.bytes;
    }
    pem.advance(done, to);
    unsettled.extend(done, to);
    done = to;
    const stable = done === take.length ? done : Math.max(built, unsettled.start);
    // Records, coalescing consecutive withheld lines of one reason.
    for (let q = built; q < stable; q++) {
      const line = lines[take[q]!]!;
      if (q === sel.steps[nextStep]) {
        // The node's clock went back before this line: lines written around it may be missing.
        entries.gap(gap("clock_step", line.time));
        open = null;
        nextStep++;
      }
      const c = contents[q]!;
      if (!masked[q] && c.type === "withheld") {
        if (open !== null && open.reason === c.reason) {
          open.count++;
          lasts[openAt] = q;
          continue;
        }
        open = { type: "withheld", time: line.time, count: 1, reason: c.reason };
        openAt = recs.length;
        entries.add(open, q, 0);
        continue;
      }
      open = null;
      if (masked[q]) {
        entries.add(
          { type: "line", time: line.time, kind: "text", level: "unknown", message: PEM_MASK },
          q,
          0,
        );
      } else {
        // The classifier built the record with its time in place, and measured it.
        entries.add(c as LineRecord, q, classified.bytes[q]! + 1);
      }
    }
    built = stable;
  }
  const cut = full;
  // Records [0, k) fit the page.
  let lastItem = -1;
  for (let i = 0; i < k; i++) if (lasts[i]! > lastItem) lastItem = lasts[i]!;
  if (cut && lastItem < 0) {
    throw new ServiceError("INTERNAL", { internal: "a single record does not fit the page budget" });
  }
  // A cut that leaves lines the next read cannot reach (dated before its start, further back than the
  // cursor can be dated): the lines up to the last of them are reported in a clock_step gap, and the
  // view resumes after it (the next read reaches back to it, so the lines after it still come).
  const passTo = cut && lastItem >= 0 ? lastUnreachableAfterCut(lines, take, lastItem, effNow, now) : -1;
  const passRead = passTo >= 0;
  const tail: GapRecord[] = [];
  if (cut) tail.push(passRead ? gap("clock_step", recs[k]!.time) : gap("truncated", recs[k]!.time));
  tail.push(...trailing);

  // The cursor: the frontier after the last delivered line.
  const state = nextState({
    input,
    lines,
    take,
    sel,
    frontier,
    lastItem: passRead ? passTo : lastItem,
    pem: passRead
      ? { open: (pemAfter[lastItem]! & 1) !== 0, unknown: true }
      : lastItem >= 0
        ? { open: (pemAfter[lastItem]! & 1) !== 0, unknown: (pemAfter[lastItem]! & 2) !== 0 }
        : { open: carried.open, unknown: carried.unknown },
    stall,
    partialMs: split.partialTime === null ? null : keyToMillis(split.partialTime.key),
    frontierMs,
    chunkStartComplete,
    tailLines,
    carry: sameStream ? prior : null,
    futureKey: keyAt(now + FUTURE_MS),
    latestKey: pem.latestKey,
    effNow,
    offered,
    pending,
    hashKey,
  });
  const token = signCursor(state, view.binding, input.keys.cursor);

  // Level filter after signing: the cursor already resumes after hidden lines.
  const min = view.minLevel;
  // Without a filter or a cut, the page's records are the ones built (no copy).
  const copy = min !== undefined || k < recs.length;
  const records: LogRecord[] = copy ? [] : recs;
  let recordsBytes = 0;
  let withheld = 0;
  for (let i = 0; i < k; i++) {
    const rec = recs[i]!;
    if (rec.type === "withheld") withheld += rec.count;
    if (belowMinLevel(rec, min)) continue;
    if (copy) records.push(rec);
    recordsBytes += sizes[i]!;
  }
  for (const g of tail) {
    records.push(g);
    recordsBytes += recordBytes(g) + 1;
  }
  const page: LogPage = { ...shell, records, withheld, truncated: cut || stall === "stay", cursor: token };
  // One native serialization of the whole page; its size is the measured records' sum (one comma
  // fewer than records) plus the envelope around them, so the 1 MiB body is not measured again.
  const body = envelope(page, input.requestId);
  const bytes =
    utf8Length(envelope({ ...page, records: [] }, input.requestId)) +
    recordsBytes -
    (records.length > 0 ? 1 : 0);
  // A UTF-8 size is never below the UTF-16 length: a cheap check that the sum is not short.
  if (bytes > budget || body.length > bytes) {
    throw new ServiceError("INTERNAL", { internal: "page exceeded its budget after serialization" });
  }
  return { page, cursor: token, body };
}

function firstTimeOf(lines: readonly RawLine[]): string | null {
  for (const l of lines) if (l.time !== null) return l.time;
  return null;
}

/** `{"data":page,"meta":{"requestId"}}`: one native serialization, flat and exact. */
function envelope(page: LogPage, requestId: string): string {
  return JSON.stringify({ data: page, meta: { requestId } });
}

/**
 * The page's classified lines, by position in `take`: each line's record or withheld content, its
 * PEM shapes and its record's size (one byte or word each, no object per line).
 */
interface Classified {
  content: (LineRecord | WithheldContent)[];
  pem: Uint8Array;
  /** The shape masking goes by: `pem`, or Begin for a line that opens a block anywhere in it. */
  shape: Uint8Array;
  /** The bytes of each line record, as the classifier measured it. */
  bytes: Uint32Array;
}

/** Lines classified per batch: small enough that a page cut early classifies little past its end. */
const CLASSIFY_BATCH = 256;

/**
 * The trailing run of lines that a later line may still change: a run of unmasked withheld lines of
 * one reason (it may grow), or of unmasked PEM-shaped lines (an END without a BEGIN below them masks
 * them). Lines before `start` are final. Tracked as lines are classified, so each line is looked at
 * once (pipeline.md §5a: no rescans of trailing runs per batch).
 */
class UnsettledRun {
  start = 0;
  private kind: "none" | "withheld" | "shaped" = "none";
  private reason = "";
  private readonly classified: Classified;
  private readonly masked: Uint8Array;

  constructor(classified: Classified, masked: Uint8Array) {
    this.classified = classified;
    this.masked = masked;
  }

  /** Lines [from, to) were classified and masked. */
  extend(from: number, to: number): void {
    const { content, pem } = this.classified;
    for (let q = from; q < to; q++) {
      const c = content[q]!;
      if (this.masked[q]) {
        this.kind = "none";
        this.start = q + 1;
      } else if (c.type === "withheld") {
        if (this.kind !== "withheld" || this.reason !== c.reason) {
          this.kind = "withheld";
          this.reason = c.reason;
          this.start = q;
        }
      } else if (pem[q] === Pem.Shaped) {
        if (this.kind !== "shaped") {
          this.kind = "shaped";
          this.start = q;
        }
      } else {
        this.kind = "none";
        this.start = q + 1;
      }
    }
  }
}

/**
 * PEM masking over the page's lines (pipeline.md §6), advanced in order as lines are classified.
 * `masked` tells which lines become `[redacted:pem]`; `after` holds the block state after each line
 * (for the cursor of a page cut short).
 */
class PemMasker {
  readonly masked: Uint8Array;
  /** Bit 1: block open after the line; bit 2: its frontier unknown. */
  readonly after: Uint8Array;
  private open: boolean;
  private unknown: boolean;
  private fromCarry: boolean;
  private prevKey: string | null = null;
  private readonly lines: readonly RawLine[];
  private readonly take: readonly number[];
  private readonly classified: Classified;
  private readonly carried: PemState & { key: string | null };

  constructor(
    lines: readonly RawLine[],
    take: readonly number[],
    classified: Classified,
    carried: PemState & { key: string | null },
  ) {
    this.lines = lines;
    this.take = take;
    this.classified = classified;
    this.carried = carried;
    this.masked = new Uint8Array(take.length);
    this.after = new Uint8Array(take.length);
    this.open = carried.open;
    this.unknown = carried.unknown;
    this.fromCarry = carried.open;
  }

  /** The greatest key of the lines masked so far (null while none had a time). */
  get latestKey(): string | null {
    return this.prevKey;
  }

  /** Mask lines [from, to); every line before `to` is classified. */
  advance(from: number, to: number): void {
    const { lines, take, carried, masked, after } = this;
    const { content, pem, shape: shapes } = this.classified;
    let { open, unknown, fromCarry, prevKey } = this;
    for (let q = from; q < to; q++) {
      const key = lines[take[q]!]!.key;
      // One key comparison for a line in order, two for one out of order.
      let reordered: boolean;
      if (key === null) reordered = true;
      else if (prevKey === null || key > prevKey) {
        reordered = false;
        prevKey = key;
      } else reordered = key < prevKey;
      const shape = shapes[q] as Pem;
      if (content[q]!.type === "withheld") {
        // A BEGIN marker opens a block whatever happens to its line (withheld here).
        if (shape === Pem.Begin && !open) {
          open = true;
          unknown = false;
          fromCarry = false;
        }
        after[q] = (open ? 1 : 0) | (unknown ? 2 : 0);
        continue;
      }
      if (open) {
        if (!unknown) {
          if (fromCarry && key !== null && carried.key !== null && key <= carried.key) {
            // Only a line strictly newer than the carried frontier may close a carried block.
            masked[q] = 1;
            after[q] = 1;
            continue;
          }
          // A missing or reordered time: where the block ends is no longer known.
          if (reordered) unknown = true;
        }
        if (unknown) {
          // An uncertain block masks PEM-shaped lines, and lines without a time (their text may be a
          // body line behind a broken prefix); timed ordinary text stays visible, so one bad
          // timestamp does not blind the view.
          if (shape !== Pem.None || key === null) masked[q] = 1;
        } else if (shape === Pem.Shaped || shape === Pem.Begin) {
          masked[q] = 1;
          fromCarry = false;
        } else if (shape === Pem.End) {
          masked[q] = 1;
          open = false;
          fromCarry = false;
        } else {
          open = false;
          fromCarry = false;
        }
      } else if (shape === Pem.Begin) {
        open = true;
        unknown = false;
        fromCarry = false;
      } else if (shape === Pem.End) {
        // An END without its BEGIN: the page began mid-block; mask the PEM-shaped lines above it.
        masked[q] = 1;
        for (let b = q - 1; b >= 0; b--) {
          if (masked[b] || content[b]!.type !== "line" || pem[b] !== Pem.Shaped) break;
          masked[b] = 1;
        }
      }
      after[q] = (open ? 1 : 0) | (unknown ? 2 : 0);
    }
    this.open = open;
    this.unknown = unknown;
    this.fromCarry = fromCarry;
    this.prevKey = prevKey;
  }
}

interface NextStateInput {
  input: BuildLogPageInput;
  lines: readonly RawLine[];
  take: readonly number[];
  sel: Selection;
  frontier: CursorState | null;
  lastItem: number;
  pem: PemState;
  stall: "stay" | "skip" | null;
  partialMs: number | null;
  chunkStartComplete: boolean;
  tailLines: number;
  frontierMs: number | null;
  /** The cursor of this same stream before any re-anchoring (its far-future hashes, anchor, idle time). */
  carry: CursorState | null;
  futureKey: string | null;
  /** The greatest key of the page's lines up to the last delivered one, or later. */
  latestKey: string | null;
  /** Effective keys of `lines` under this read's far-future judgement. */
  effNow: readonly string[];
  /** `take` before untimed lines at its end were held back. */
  offered: readonly number[];
  /** The pending lines of the cursor, placed in this read (empty when a gap before it covers them). */
  pending: readonly PendingPlace[];
  /** The key the cursor's line hashes were made with. */
  hashKey: SecretKey;
}

function nextState(x: NextStateInput): CursorState {
  const { input, lines, take, sel, frontier, lastItem, now } = { ...x, now: x.input.now };
  const chunk = input.chunk!;
  const signing = signingKey(input.keys.cursor);
  const after = chunk.observedAfter;
  const replaced =
    after !== null && (after.podUid !== chunk.podUid || after.restartCount !== chunk.restartCount);
  const base = {
    keyId: signing.id,
    issuedAt: now,
    pod: chunk.pod,
    podUid: replaced ? after.podUid : chunk.podUid,
    container: chunk.container,
    restartCount: replaced ? after.restartCount : chunk.restartCount,
    previous: chunk.previous,
    tailLines: x.tailLines,
  };
  const quiet = { lastTime: null, count: 0, complete: false, hashes: [] as string[] };
  let front: Pick<CursorState, "lastTime" | "count" | "complete" | "hashes">;
  let pem = x.pem;

  if (lastItem < 0) {
    if (x.stall === "skip") {
      // Skip the line the read cannot hold: resume from the end of this read (the next read starts at
      // issuedAt − 2 s = now rounded up to a whole second, past every line this read saw, untimed
      // ones included, and strictly after lastTime); the trailing gap reports what lies between.
      front = quiet;
      pem = { open: pem.open, unknown: true };
      const pastRead = Math.ceil(now / 1000) * 1000 + RESUME_OVERLAP_MS;
      const pastFrontier =
        x.frontierMs === null ? 0 : x.frontierMs + PAST_FRONTIER_SECOND_MS + RESUME_OVERLAP_MS;
      base.issuedAt = Math.min(now + MAX_ISSUED_AHEAD_MS, Math.max(pastRead, pastFrontier));
    } else if (hasFrontier(frontier)) {
      front = rehash(frontier, signing);
      if (x.stall === "stay" && frontier.lastTime === null && x.partialMs !== null) {
        base.issuedAt = Math.max(now - STALL_RETRY_WINDOW_MS, Math.min(now, x.partialMs));
      }
    } else {
      front = quiet;
      if (x.stall === "stay" && x.partialMs !== null) {
        base.issuedAt = Math.max(now - STALL_RETRY_WINDOW_MS, Math.min(now, x.partialMs));
      }
    }
  } else {
    // The frontier is the group of the last line accounted in log order: every line of the chunk up
    // to it is accounted for (delivered before, reported in a gap, or delivered now). After a clock
    // step back that group is older than lines before it; the next read drops those by log order.
    const eff = x.effNow;
    const lastIdx = take[lastItem]!;
    const top = eff[lastIdx]!;
    const T = frontier === null || !hasFrontier(frontier) ? null : frontierKey(frontier);
    const group: number[] = [];
    for (let i = 0; i <= lastIdx; i++) if (sameKey(eff[i]!, top)) group.push(i);
    const count = group.length;
    let complete: boolean;
    if (T !== null && top === T) {
      complete = sel.startComplete && T !== BEFORE_ALL;
    } else {
      const first = group[0]!;
      let olderBefore = false;
      for (let i = 0; i < first && !olderBefore; i++) {
        const key = lines[i]!.key;
        if (key !== null && key < top) olderBefore = true;
      }
      complete = top !== BEFORE_ALL && (x.chunkStartComplete || olderBefore);
    }
    let lastTime: string | null = null;
    if (top !== BEFORE_ALL) {
      if (T !== null && top === T) lastTime = frontier!.lastTime;
      else {
        // The line that dates the group (far-future lines in it never do); it may precede the
        // delivered ones.
        for (const line of lines) {
          if (line.key !== null && sameKey(line.key, top)) {
            lastTime = line.time;
            break;
          }
        }
      }
    }
    const hashes = group.slice(-MAX_FRONTIER_HASHES).map((i) => lineHash(signing, lines[i]!.raw));
    front = { lastTime, count, complete, hashes };
  }
  // A view with no timed frontier resumes from its previous read: never from before it (a skipped
  // line moved that point past the read it was in).
  if (x.stall === null && front.lastTime === null && frontier !== null && frontier.lastTime === null) {
    base.issuedAt = Math.max(base.issuedAt, frontier.issuedAt);
  }
  // Lines of this read left after the page's cut and dated before where the next read starts (the
  // node's clock stepped back within the read) would be hidden from it: the cursor is dated at the
  // earliest of them, so the next read reaches back to them (resumeFrom).
  if (lastItem >= 0 && lastItem < take.length - 1) {
    const resume =
      front.lastTime === null
        ? base.issuedAt
        : Math.min(keyToMillis(lastKey(take, lastItem, x.effNow)), base.issuedAt);
    const earliest = hiddenAfterCut(lines, take, lastItem, resume, x.futureKey);
    if (earliest !== null) base.issuedAt = Math.max(1, earliest);
  }
  if (replaced || after === null) pem = { open: false, unknown: false };
  const pemFrontier = pem.open && !pem.unknown ? front.lastTime : null;
  // Far-future lines delivered now join the remembered ones; the anchor is the last line accounted.
  const carry = x.carry !== null && x.carry.keyId === signing.id && !replaced ? x.carry : null;
  const future = carry?.future.slice() ?? [];
  if (!replaced && x.futureKey !== null && sel.behindBefore !== undefined) {
    // Far-future lines this read placed behind the view are accounted for: remember those not yet.
    const known = new Map<string, number>();
    for (const f of future) known.set(futureHash(f), (known.get(futureHash(f)) ?? 0) + 1);
    for (let i = 0; i < sel.behindBefore && i < lines.length; i++) {
      const line = lines[i]!;
      if (line.key === null || line.key <= x.futureKey) continue;
      const h = lineHash(signing, line.raw);
      const n = known.get(h) ?? 0;
      if (n > 0) known.set(h, n - 1);
      else future.push(futureEntry(h, line.key));
    }
  }
  // Only a page whose latest line is beyond the far-future key has far-future lines to look for.
  const anyFuture = x.futureKey !== null && x.latestKey !== null && x.latestKey > x.futureKey;
  for (let q = 0; q <= lastItem && !replaced && anyFuture; q++) {
    const line = lines[take[q]!]!;
    if (x.futureKey !== null && line.key !== null && line.key > x.futureKey)
      future.push(futureEntry(lineHash(signing, line.raw), line.key));
  }
  // Untimed lines left after the last one accounted, and pending ones this page could not settle.
  // Hashes of another key cannot be carried; a stream replaced (or gone) ends with its own gap.
  const settled = replaced || after === null || front.count === 0;
  const carried = x.hashKey.id === signing.id ? x.pending : [];
  const pending = settled ? [] : nextPending(lines, x.offered, lastItem, carried, signing);
  const anchor =
    lastItem >= 0 && !replaced
      ? lineHash(signing, lines[take[lastItem]!]!.raw)
      : x.carry === null || replaced
        ? ""
        : (carry?.anchor ?? null);
  return {
    ...base,
    ...front,
    pemOpen: pem.open,
    pemFrontier,
    future: futureMemory(future, MAX_FUTURE_HASHES),
    anchor,
    // Only a timed line moves the frontier: far-future and untimed ones leave the view idle.
    lastNewAt: timedUpTo(lines, take, lastItem, x.futureKey) ? now : (x.carry?.lastNewAt ?? now),
    // A page that accounted nothing keeps its frontier, and with it the judgement it was built with.
    readAt: lastItem < 0 && !replaced && after !== null && hasFrontier(frontier) ? frontier.readAt : now,
    ...(pending.length > 0 ? { pending } : {}),
  };
}

/**
 * The earliest time (ms) of the lines after `take[lastItem]` that a read resuming from `resume`
 * (before the overlap) would not reach, or null when it reaches them all.
 */
function hiddenAfterCut(
  lines: readonly RawLine[],
  take: readonly number[],
  lastItem: number,
  resume: number,
  futureKey: string | null,
): number | null {
  const since = sinceOf(resume);
  let earliest = Number.POSITIVE_INFINITY;
  for (let q = lastItem + 1; q < take.length; q++) {
    const key = lines[take[q]!]!.key;
    if (key !== null && (futureKey === null || key <= futureKey))
      earliest = Math.min(earliest, keyToMillis(key));
  }
  return earliest < since ? earliest : null;
}

/**
 * The last line (index in `take`) of those left after a cut that the next read cannot reach: dated
 * before its start, further back than a cursor can be dated. -1 when there is none.
 */
function lastUnreachableAfterCut(
  lines: readonly RawLine[],
  take: readonly number[],
  lastItem: number,
  eff: readonly string[],
  now: number,
): number {
  if (lastItem >= take.length - 1) return -1;
  const top = lastKey(take, lastItem, eff);
  const resume = top === BEFORE_ALL ? now : Math.min(keyToMillis(top), now);
  const reach = keyAt(Math.min(sinceOf(resume), now - STALL_RETRY_WINDOW_MS));
  for (let q = take.length - 1; q > lastItem; q--) {
    const key = lines[take[q]!]!.key;
    if (key !== null && key < reach) return q;
  }
  return -1;
}

/** The frontier key after `take[lastItem]`: the effective key of its group. */
function lastKey(take: readonly number[], lastItem: number, eff: readonly string[]): string {
  return eff[take[lastItem]!] ?? BEFORE_ALL;
}

/** Whether a line of `take[0..lastItem]` has a time that moves the frontier (not far-future). */
function timedUpTo(
  lines: readonly RawLine[],
  take: readonly number[],
  lastItem: number,
  futureKey: string | null,
): boolean {
  for (let q = 0; q <= lastItem; q++) {
    const key = lines[take[q]!]!.key;
    if (key !== null && (futureKey === null || key <= futureKey)) return true;
  }
  return false;
}

/**
 * Keep a frontier across a page that accounted nothing new. Hashes made with a previous key cannot
 * be re-signed: keep the count, drop the hashes, so the next poll treats the group as ambiguous
 * (held back or reported) rather than trusting hashes of another key.
 */
function rehash(
  frontier: CursorState,
  signing: SecretKey,
): Pick<CursorState, "lastTime" | "count" | "complete" | "hashes"> {
  const same = { lastTime: frontier.lastTime, count: frontier.count, complete: frontier.complete };
  if (frontier.keyId === signing.id) return { ...same, hashes: frontier.hashes };
  return { ...same, complete: false, hashes: [] };
}

/** Two sorted lists of step positions merged, each position once. */
function mergeSteps(a: readonly number[], b: readonly number[]): number[] {
  if (a.length === 0) return b.slice();
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

/**
 * `a === b` for comparison keys. Keys are mostly slices of the chunk, which V8 compares slowly, and
 * a page compares each line's key a few times: the last fraction digit, the likeliest to differ, is
 * looked at first.
 */
function sameKey(a: string, b: string): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  return n === 0 || (a.charCodeAt(n - 1) === b.charCodeAt(n - 1) && a === b);
}
