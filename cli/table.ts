/**
 * Aligned plain-text tables. Cells are escaped here, so a hostile value can neither break the
 * layout (newlines, tabs) nor hide or reorder text; widths count terminal columns.
 */
import { escapeText } from "./escape.ts";

const ZERO_WIDTH = /[\p{Mn}\p{Me}]/u;

/** Terminal columns taken by already-escaped text: wide East Asian and emoji count 2, marks 0. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x300) width += 1;
    else if (ZERO_WIDTH.test(ch)) width += 0;
    else if (isWide(cp)) width += 2;
    else width += 1;
  }
  return width;
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

export type Cell = string | number | boolean | null | undefined;

function cellText(cell: Cell): string {
  if (cell === null || cell === undefined || cell === "") return "-";
  return escapeText(String(cell));
}

/**
 * Renders a header row and data rows as lines (no trailing newline), two spaces between columns.
 * The last column is not padded, so long messages do not drag trailing blanks.
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string[] {
  const texts = [
    headers.map((h) => escapeText(h)),
    ...rows.map((r) => headers.map((_, i) => cellText(r[i]))),
  ];
  const widths = headers.map((_, col) => Math.max(...texts.map((r) => displayWidth(r[col]!))));
  return texts.map((r) =>
    r
      .map((cell, col) =>
        col === r.length - 1 ? cell : cell + " ".repeat(widths[col]! - displayWidth(cell)),
      )
      .join("  ")
      .trimEnd(),
  );
}
