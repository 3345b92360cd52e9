/**
 * Control stripping and byte-bounded truncation (docs/pipeline.md §2).
 */
import { escapeSequenceEnd } from "../redact/terminal.ts";

const HAS_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Any control but tab: escapes and C0/C1 controls need the scan; tabs alone are one native replace. */
const HAS_NON_TAB_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

/**
 * Remove ANSI/VT escape sequences (CSI, OSC, two-byte ESC), turn tabs into spaces, drop every other
 * C0 and C1 control and DEL. Linear; returns the input when there is nothing to do.
 */
export function stripControls(s: string): string {
  if (!HAS_CONTROL.test(s)) return s;
  if (!HAS_NON_TAB_CONTROL.test(s)) return tabsToSpaces(s);
  // Pieces joined once: appending thousands of one-character pieces to a string is slow in V8.
  const out: string[] = [];
  let from = 0;
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c <= 0x9f)) {
      i++;
      continue;
    }
    if (i > from) out.push(s.slice(from, i));
    if (c === 0x09) {
      out.push(" ");
      i++;
    } else if (c === 0x1b || c === 0x9b) {
      i = escapeSequenceEnd(s, i);
    } else {
      i++;
    }
    from = i;
  }
  if (from < n) out.push(s.slice(from));
  return out.join("");
}

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * `s` with every tab a space. A string of Latin-1 characters goes through a byte buffer (one pass,
 * no matter how many tabs: a line of 32 Ki tabs costs what its copy does); others use the native
 * replace.
 */
function tabsToSpaces(s: string): string {
  if (s.length < 256 || BEYOND_LATIN1.test(s)) return s.replaceAll("\t", " ");
  const bytes = Buffer.from(s, "latin1");
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 9) bytes[i] = 32;
  return bytes.toString("latin1");
}

/** UTF-8 length of a string (lone surrogates count as 3, as Buffer encodes them). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Cut `s` to at most `max` UTF-8 bytes at a character boundary. */
export function truncateUtf8(s: string, max: number): { text: string; cut: boolean } {
  const text = fitUtf8(s, max);
  return { text, cut: text.length !== s.length };
}

/** `s` cut to at most `max` UTF-8 bytes at a character boundary (`s` itself when it fits). */
export function fitUtf8(s: string, max: number): string {
  if (s.length <= max / 3 || utf8Length(s) <= max) return s;
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let size: number;
    let width = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        size = 4;
        width = 2;
      } else size = 3;
    } else size = 3;
    if (bytes + size > max) break;
    bytes += size;
    i += width;
  }
  return s.slice(0, i);
}
