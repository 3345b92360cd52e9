/**
 * The log pane: rows (built with text nodes only), the level chips and text filter (client-side),
 * the "showing X of Y" count, the cap note and the scroll position that pauses Follow.
 */
import { byId, el } from "../dom.ts";
import { clockTime } from "../format.ts";
import { GAP_LABELS, WITHHELD_REMEDIES } from "../messages.ts";
import { type Filter, matches, type Row, RowBuffer, searchText } from "../rows.ts";
import { LEVELS, type Level, type LogRecord } from "../types.ts";

const LEVEL_TEXT: Record<Level, string> = {
  error: "ERROR",
  warn: "WARN",
  info: "INFO",
  debug: "DEBUG",
  unknown: "—",
};

/** How close to the end counts as "at the bottom" (px). */
const BOTTOM_SLACK = 24;

function fieldsText(fields: Record<string, unknown> | undefined): string {
  if (!fields) return "";
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
}

export function renderRecord(record: LogRecord): HTMLLIElement {
  const time = el(
    "time",
    record.time ? { datetime: record.time, title: record.time } : {},
    clockTime(record.time),
  );
  switch (record.type) {
    case "line": {
      const fields = fieldsText(record.fields);
      return el(
        "li",
        { class: `row line level-${record.level}` },
        time,
        el("span", { class: "lvl" }, LEVEL_TEXT[record.level]),
        record.subsystem ? el("span", { class: "sub" }, record.subsystem) : null,
        el("span", { class: "msg" }, record.message),
        fields ? el("span", { class: "fields" }, fields) : null,
        record.truncated ? el("span", { class: "note" }, "(line cut)") : null,
      );
    }
    case "gap":
      return el(
        "li",
        { class: "row gap" },
        time,
        el("span", { class: "tag" }, "GAP"),
        el("span", { class: "msg" }, `${GAP_LABELS[record.reason] ?? `Gap (${record.reason})`}. `),
        el("span", { class: "remedy" }, record.remedy),
      );
    case "withheld":
      return el(
        "li",
        { class: "row withheld" },
        time,
        el("span", { class: "tag" }, "WITHHELD"),
        el(
          "span",
          { class: "msg" },
          `${record.count} ${record.count === 1 ? "line" : "lines"} withheld (${record.reason}). `,
        ),
        el(
          "span",
          { class: "remedy" },
          WITHHELD_REMEDIES[record.reason] ?? "Ask an operator with cluster access.",
        ),
      );
  }
}

export class LogPaneView {
  readonly scroller = byId("log-scroll", HTMLElement);
  readonly list = byId("log-rows", HTMLOListElement);
  private readonly count = byId("log-count", HTMLParagraphElement);
  private readonly capNote = byId("cap-note", HTMLParagraphElement);
  private readonly empty = byId("log-empty", HTMLParagraphElement);
  private readonly filterInput = byId("filter", HTMLInputElement);
  private readonly chips = byId("levels", HTMLFieldSetElement);
  private readonly jump = byId("jump-bottom", HTMLButtonElement);
  private readonly buffer = new RowBuffer<HTMLLIElement>();
  private readonly filter: { levels: Set<Level>; text: string } = { levels: new Set(LEVELS), text: "" };
  /** Called when the user comes back to the bottom (Follow resumes). */
  onBottom: () => void = () => {};

  constructor() {
    for (const level of LEVELS) {
      const chip = el(
        "button",
        { type: "button", class: `chip level-${level}`, "aria-pressed": "true", "data-level": level },
        level === "unknown" ? "no level" : level,
      );
      chip.addEventListener("click", () => {
        const on = !this.filter.levels.has(level);
        if (on) this.filter.levels.add(level);
        else this.filter.levels.delete(level);
        chip.setAttribute("aria-pressed", String(on));
        this.applyFilter();
      });
      this.chips.append(chip);
    }
    this.filterInput.addEventListener("input", () => {
      this.filter.text = this.filterInput.value;
      this.applyFilter();
    });
    let wasAtBottom = true;
    this.scroller.addEventListener("scroll", () => {
      const now = this.atBottom();
      this.jump.hidden = now;
      if (now && !wasAtBottom) this.onBottom();
      wasAtBottom = now;
    });
    this.jump.addEventListener("click", () => this.scrollToBottom());
  }

  atBottom(): boolean {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight <= BOTTOM_SLACK;
  }

  scrollToBottom(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.jump.hidden = true;
  }

  private rowsFor(records: LogRecord[]): Row<HTMLLIElement>[] {
    const f = this.currentFilter();
    return records.map((record) => {
      const haystack = searchText(record);
      const view = renderRecord(record);
      view.hidden = !matches(record, haystack, f);
      return { record, haystack, view };
    });
  }

  private currentFilter(): Filter {
    return { levels: this.filter.levels, text: this.filter.text };
  }

  /** A new view: every row is built first, then swapped in at once. */
  replace(records: LogRecord[]): void {
    const rows = this.rowsFor(records);
    const fragment = document.createDocumentFragment();
    this.buffer.replace(rows);
    for (const row of this.buffer.all()) fragment.append(row.view);
    this.list.replaceChildren(fragment);
    this.afterChange();
    this.scrollToBottom();
  }

  append(records: LogRecord[]): void {
    if (records.length === 0) return;
    const stick = this.atBottom();
    const rows = this.rowsFor(records);
    const fragment = document.createDocumentFragment();
    for (const row of rows) fragment.append(row.view);
    this.list.append(fragment);
    for (const gone of this.buffer.push(rows)) gone.view.remove();
    this.afterChange();
    if (stick) this.scrollToBottom();
  }

  clear(): void {
    this.buffer.replace([]);
    this.list.replaceChildren();
    this.afterChange();
  }

  /** Shows or hides kept rows; never a request. */
  applyFilter(): void {
    const f = this.currentFilter();
    for (const row of this.buffer.all()) row.view.hidden = !matches(row.record, row.haystack, f);
    this.updateCount();
  }

  private afterChange(): void {
    this.updateCount();
    const dropped = this.buffer.dropped;
    this.capNote.hidden = dropped === 0;
    this.capNote.textContent =
      dropped === 0
        ? ""
        : `Only the newest ${this.buffer.size} rows are kept: ${dropped} older ${dropped === 1 ? "row was" : "rows were"} dropped. Download saves the last 1000 lines.`;
  }

  private updateCount(): void {
    const total = this.buffer.size;
    const shown = this.buffer.count(this.currentFilter());
    this.count.textContent = `Showing ${shown} of ${total} ${total === 1 ? "row" : "rows"}`;
    this.empty.hidden = total > 0;
  }

  setEmptyText(text: string): void {
    this.empty.textContent = text;
  }
}
