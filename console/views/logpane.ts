/**
 * The log pane: rows (built with text nodes only), the level chips and text filter (client-side),
 * the wrap toggle, the "showing X of Y" count, the cap note and the scroll position that pauses
 * Follow. A restart inside a followed view is a marked row between the two instances' lines.
 */
import { byId, el } from "../dom.ts";
import { restartMarker, rowMessage, rowTime } from "../format.ts";
import { count, GAP_LABELS, WITHHELD_REMEDIES } from "../messages.ts";
import { type Filter, matches, type Row, RowBuffer, searchText } from "../rows.ts";
import { sandboxView } from "../sandbox.ts";
import { LEVELS, type Level, type LineRecord, type LogRecord, type Runtime, type Stream } from "../types.ts";

/** The streams on either side of a restart inside a view. */
export interface StreamChange {
  before: Stream | null;
  after: Stream | null;
}

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

function lineParts(record: LineRecord): (HTMLElement | null)[] {
  if (record.kind !== "sandbox") {
    const fields = fieldsText(record.fields);
    return [
      record.subsystem ? el("span", { class: "sub" }, record.subsystem) : null,
      el("span", { class: "msg" }, rowMessage(record)),
      fields ? el("span", { class: "fields" }, fields) : null,
    ];
  }
  const v = sandboxView(record);
  return [
    v.origin ? el("span", { class: `badge origin-${v.origin}` }, v.origin) : null,
    v.action ? el("span", { class: `badge verdict-${v.action.verdict}` }, v.action.text.toUpperCase()) : null,
    v.destination ? el("span", { class: "dest" }, `→ ${v.destination}`) : null,
    v.ocsf ? el("span", { class: "badge ocsf" }, "OCSF") : null,
    record.subsystem ? el("span", { class: "sub" }, record.subsystem) : null,
    el("span", { class: "msg" }, record.message),
    ...v.details.map((d) => el("span", { class: "detail" }, d)),
    v.rest.length > 0 ? el("span", { class: "fields" }, v.rest.join(" ")) : null,
  ];
}

/** The text of a restart marker row (its cause is filled in again when the status is re-read). */
function fillMarker(row: HTMLElement, change: StreamChange, runtime: Runtime | null): void {
  const marker = restartMarker(change.before, change.after, runtime);
  row.querySelector(".msg")?.replaceChildren(marker.title);
  row.querySelector(".cause")?.replaceChildren(marker.cause);
}

export function renderRecord(
  record: LogRecord,
  change: StreamChange | null = null,
  runtime: Runtime | null = null,
): HTMLLIElement {
  const time = el(
    "time",
    record.time ? { datetime: record.time, title: record.time } : {},
    rowTime(record.time),
  );
  switch (record.type) {
    case "line":
      return el(
        "li",
        { class: `row line level-${record.level}${record.kind === "sandbox" ? " sandbox" : ""}` },
        time,
        el("span", { class: "lvl" }, LEVEL_TEXT[record.level]),
        ...lineParts(record),
        record.truncated ? el("span", { class: "note" }, "(line cut)") : null,
      );
    case "gap": {
      if (record.reason === "stream_replaced" && change) {
        const row = el(
          "li",
          { class: "row gap restart" },
          time,
          el("span", { class: "tag" }, "RESTART"),
          el("span", { class: "msg" }),
          el("span", { class: "cause" }),
          el("span", { class: "remedy" }, record.remedy || `${GAP_LABELS.stream_replaced}.`),
        );
        fillMarker(row, change, runtime);
        return row;
      }
      return el(
        "li",
        { class: "row gap" },
        time,
        el("span", { class: "tag" }, "GAP"),
        el("span", { class: "msg" }, `${GAP_LABELS[record.reason] ?? `Gap (${record.reason})`}. `),
        el("span", { class: "remedy" }, record.remedy),
      );
    }
    case "withheld":
      return el(
        "li",
        { class: "row withheld" },
        time,
        el("span", { class: "tag" }, "WITHHELD"),
        el("span", { class: "msg" }, `${count(record.count, "line")} withheld (${record.reason}). `),
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
  private readonly wrap = byId("wrap", HTMLInputElement);
  private readonly buffer = new RowBuffer<HTMLLIElement>();
  /** Restart markers in the pane, re-filled when the status is read again. */
  private markers: { row: HTMLLIElement; change: StreamChange }[] = [];
  private runtime: Runtime | null = null;
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
    this.wrap.addEventListener("change", () => this.list.classList.toggle("nowrap", !this.wrap.checked));
    this.list.classList.toggle("nowrap", !this.wrap.checked);
  }

  /** The latest status: restart markers say what it knows about each restart. */
  setRuntime(runtime: Runtime | null): void {
    this.runtime = runtime;
    this.markers = this.markers.filter((m) => m.row.isConnected);
    for (const m of this.markers) fillMarker(m.row, m.change, runtime);
  }

  atBottom(): boolean {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight <= BOTTOM_SLACK;
  }

  scrollToBottom(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.jump.hidden = true;
  }

  private rowsFor(records: LogRecord[], change: StreamChange | null = null): Row<HTMLLIElement>[] {
    const f = this.currentFilter();
    return records.map((record) => {
      const haystack = searchText(record);
      const marks = change !== null && record.type === "gap" && record.reason === "stream_replaced";
      const view = renderRecord(record, marks ? change : null, this.runtime);
      if (marks) this.markers.push({ row: view, change });
      view.hidden = !matches(record, haystack, f);
      return { record, haystack, view };
    });
  }

  private currentFilter(): Filter {
    return { levels: this.filter.levels, text: this.filter.text };
  }

  /** A new view: every row is built first, then swapped in at once. */
  replace(records: LogRecord[]): void {
    this.markers = [];
    const rows = this.rowsFor(records);
    const fragment = document.createDocumentFragment();
    this.buffer.replace(rows);
    for (const row of this.buffer.all()) fragment.append(row.view);
    this.list.replaceChildren(fragment);
    this.afterChange();
    this.scrollToBottom();
  }

  /** A poll's records; `change` when its stream differs from the one before (a restart). */
  append(records: LogRecord[], change: StreamChange | null = null): void {
    const marked = change === null || records.some((r) => r.type === "gap" && r.reason === "stream_replaced");
    if (!marked) {
      // The stream changed without a gap saying so (a new view after the Pod went): mark it anyway.
      records = [
        { type: "gap", time: records[0]?.time ?? null, reason: "stream_replaced", remedy: "" },
        ...records,
      ];
    }
    if (records.length === 0) return;
    const stick = this.atBottom();
    const rows = this.rowsFor(records, change);
    const fragment = document.createDocumentFragment();
    for (const row of rows) fragment.append(row.view);
    this.list.append(fragment);
    for (const gone of this.buffer.push(rows)) gone.view.remove();
    this.afterChange();
    if (stick) this.scrollToBottom();
  }

  clear(): void {
    this.markers = [];
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
