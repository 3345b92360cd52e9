/**
 * The log pane's rows, without DOM: a capped buffer (oldest dropped) and the client-side filter
 * (level chips and text). Filtering never reads again; it only decides which kept rows show.
 */
import type { Level, LogRecord } from "./types.ts";

export const ROW_CAP = 5000;

export interface Row<V = unknown> {
  record: LogRecord;
  /** Lower-cased searchable text of the row. */
  haystack: string;
  /** What the view attached (its element). */
  view: V;
}

export interface Filter {
  levels: ReadonlySet<Level>;
  text: string;
}

export function searchText(record: LogRecord): string {
  switch (record.type) {
    case "line": {
      const fields = record.fields ? Object.entries(record.fields).map(([k, v]) => `${k}=${String(v)}`) : [];
      return [record.subsystem ?? "", record.message, ...fields].join(" ").toLowerCase();
    }
    case "gap":
      return `gap ${record.reason} ${record.remedy}`.toLowerCase();
    case "withheld":
      return `withheld ${record.count} ${record.reason}`.toLowerCase();
  }
}

/** Gaps and withheld rows always show: hiding a loss would hide the truth. */
export function matches(record: LogRecord, haystack: string, filter: Filter): boolean {
  if (record.type !== "line") return true;
  if (!filter.levels.has(record.level)) return false;
  const needle = filter.text.trim().toLowerCase();
  return needle === "" || haystack.includes(needle);
}

export class RowBuffer<V> {
  private rows: Row<V>[] = [];
  /** Rows dropped by the cap since the last reset. */
  dropped = 0;

  constructor(private readonly cap = ROW_CAP) {}

  get size(): number {
    return this.rows.length;
  }

  all(): readonly Row<V>[] {
    return this.rows;
  }

  /** Appends rows; returns the ones pushed out at the front (their views must go too). */
  push(added: Row<V>[]): Row<V>[] {
    this.rows.push(...added);
    const over = this.rows.length - this.cap;
    if (over <= 0) return [];
    this.dropped += over;
    return this.rows.splice(0, over);
  }

  /** Replaces everything (a new view); the cap applies to the new rows too. */
  replace(rows: Row<V>[]): Row<V>[] {
    const old = this.rows;
    this.rows = [];
    this.dropped = 0;
    return [...old, ...this.push(rows)];
  }

  count(filter: Filter): number {
    let n = 0;
    for (const row of this.rows) if (matches(row.record, row.haystack, filter)) n++;
    return n;
  }
}
