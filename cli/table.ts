/**
 * Aligned plain-text tables. Cells are escaped here, so a hostile value can neither break the
 * layout (newlines, tabs) nor hide or reorder text; widths count terminal columns.
 */
import stringWidth from "string-width";
import { escapeText } from "./escape.ts";

/**
 * Terminal columns taken by already-escaped text (wide East Asian and emoji count 2, combining
 * marks 0), as measured by string-width, which follows Unicode's East Asian Width and emoji data.
 */
export function displayWidth(text: string): number {
  return stringWidth(text);
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
