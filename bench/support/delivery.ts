/**
 * Exactly-once-or-gap accounting for one view (docs/pipeline.md § Guarantees 2), from what a client
 * received: the lines (by the unique sequence number the appender wrote into them) and the gap
 * records, in arrival order. Pure; P7 keeps one ledger per view.
 */

export type Received =
  | { type: "line"; seq: number }
  | { type: "gap"; reason: string /** epoch ms, or null when the gap is undated */; timeMs: number | null };

export interface ViewAudit {
  /** Distinct sequence numbers delivered. */
  delivered: number;
  /** Deliveries of a sequence number already delivered in this view. */
  duplicates: number;
  /** Deliveries older than a line already delivered (not duplicates). */
  reordered: number;
  /** Lines never delivered between the first and the newest delivered line. */
  lost: number;
  /** Lost lines a gap record accounts for: received between its neighbours, dated no earlier. */
  lostInGap: number;
  /** Lost lines no gap accounts for (a broken guarantee). */
  lostWithoutGap: number;
  /** Appended lines newer than the newest delivered one (not yet fetched when the view stopped). */
  pending: number;
  gaps: Record<string, number>;
}

/** The sequence number a delivered message carries (`seq=<digits>`), or null. */
export function sequenceOf(message: string): number | null {
  const m = /\bseq=(\d{1,15})\b/.exec(message);
  return m ? Number(m[1]) : null;
}

export class ViewLedger {
  readonly #stream: Received[] = [];

  add(record: Received): void {
    this.#stream.push(record);
  }

  /**
   * `timeOf(seq)` is the epoch-ms time the line was appended with (undefined when unknown);
   * `lastAppended` the newest sequence number appended to the container.
   */
  audit(timeOf: (seq: number) => number | undefined, lastAppended: number): ViewAudit {
    const firstPos = new Map<number, number>();
    const gapPositions: number[] = [];
    const gaps: Record<string, number> = {};
    let duplicates = 0;
    let reordered = 0;
    let newest = Number.NEGATIVE_INFINITY;
    this.#stream.forEach((r, pos) => {
      if (r.type === "gap") {
        gapPositions.push(pos);
        gaps[r.reason] = (gaps[r.reason] ?? 0) + 1;
        return;
      }
      if (firstPos.has(r.seq)) {
        duplicates++;
        return;
      }
      firstPos.set(r.seq, pos);
      if (r.seq < newest) reordered++;
      else newest = r.seq;
    });

    const seqs = [...firstPos.keys()].sort((a, b) => a - b);
    let lost = 0;
    let lostInGap = 0;
    for (let i = 1; i < seqs.length; i++) {
      const prev = seqs[i - 1]!;
      const next = seqs[i]!;
      if (next === prev + 1) continue;
      // Every line strictly between two delivered neighbours was lost; a gap received between
      // the two deliveries, dated no earlier than the lost line, accounts for it.
      const from = firstPos.get(prev)!;
      const to = firstPos.get(next)!;
      const between = gapPositions
        .filter((p) => p > from && p < to)
        .map((p) => this.#stream[p] as Extract<Received, { type: "gap" }>);
      for (let m = prev + 1; m < next; m++) {
        lost++;
        const t = timeOf(m);
        if (between.some((g) => g.timeMs === null || t === undefined || t <= g.timeMs)) lostInGap++;
      }
    }
    const max = seqs.length > 0 ? seqs[seqs.length - 1]! : Number.NaN;
    return {
      delivered: seqs.length,
      duplicates,
      reordered,
      lost,
      lostInGap,
      lostWithoutGap: lost - lostInGap,
      pending: Number.isNaN(max) ? 0 : Math.max(0, lastAppended - max),
      gaps,
    };
  }
}

/** Sums per-view audits into one row's figures. */
export function totalAudits(audits: readonly ViewAudit[]): ViewAudit {
  const total: ViewAudit = {
    delivered: 0,
    duplicates: 0,
    reordered: 0,
    lost: 0,
    lostInGap: 0,
    lostWithoutGap: 0,
    pending: 0,
    gaps: {},
  };
  for (const a of audits) {
    total.delivered += a.delivered;
    total.duplicates += a.duplicates;
    total.reordered += a.reordered;
    total.lost += a.lost;
    total.lostInGap += a.lostInGap;
    total.lostWithoutGap += a.lostWithoutGap;
    total.pending += a.pending;
    for (const [reason, n] of Object.entries(a.gaps)) total.gaps[reason] = (total.gaps[reason] ?? 0) + n;
  }
  return total;
}
