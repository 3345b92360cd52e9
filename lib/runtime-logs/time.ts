/**
 * Kubelet timestamps (docs/pipeline.md §1): `YYYY-MM-DDTHH:MM:SS[.1-9 digits](Z|±HH:MM)`.
 * `Z` times are kept verbatim; offset times are converted to UTC keeping their fraction digits.
 * Anything else (bad calendar date, malformed prefix) is untimed, never guessed.
 */

import { isCalendarInstant, isRfc3339Utc, utcMillis } from "../rfc3339.ts";

export interface ParsedTime {
  /** UTC time as delivered: `…Z` with the original fraction digits. */
  time: string;
  /** Comparison key: `YYYY-MM-DDTHH:MM:SS.fffffffff` (fraction padded to 9 digits). */
  key: string;
  /** Index just past the timestamp. */
  end: number;
}

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(at + i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const pad = (v: number, n: number): string => String(v).padStart(n, "0");

/**
 * Parse a timestamp at the start of `s`, or at `at` in it: the line that starts there ends at a
 * newline or at the end of `s` (no newline can be part of a timestamp, so the parse never reads
 * into the next line). Null when absent, malformed or not a calendar date; `end` is an index of `s`.
 */
export function parseTimestamp(s: string, at = 0): ParsedTime | null {
  if (s.length - at < 20) return null;
  const y = digits(s, at, 4);
  const mo = digits(s, at + 5, 2);
  const d = digits(s, at + 8, 2);
  const h = digits(s, at + 11, 2);
  const mi = digits(s, at + 14, 2);
  const se = digits(s, at + 17, 2);
  if (
    s.charCodeAt(at + 4) !== 45 ||
    s.charCodeAt(at + 7) !== 45 ||
    s.charCodeAt(at + 10) !== 84 ||
    s.charCodeAt(at + 13) !== 58 ||
    s.charCodeAt(at + 16) !== 58
  ) {
    return null;
  }
  // Days up to 28 exist in every month: the full calendar check only for the rest.
  const inEveryMonth =
    y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= 28 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59;
  if (!(inEveryMonth && se >= 0 && se <= 59) && !isCalendarInstant(y, mo, d, h, mi, se)) return null;
  const seconds = at + 19;
  let i = seconds;
  /** Fraction digits: `[seconds + 1, fractionEnd)` (none when fractionEnd is `seconds`). */
  let fractionEnd = seconds;
  if (s.charCodeAt(i) === 46) {
    let j = i + 1;
    while (j < s.length && j - i <= 9) {
      const c = s.charCodeAt(j);
      if (c < 48 || c > 57) break;
      j++;
    }
    const n = j - i - 1;
    if (n < 1 || n > 9) return null;
    const c = s.charCodeAt(j);
    if (c >= 48 && c <= 57) return null; // more than 9 digits
    fractionEnd = j;
    i = j;
  }
  const digitsOf = fractionEnd - seconds - 1;
  const zone = s.charCodeAt(i);
  let end: number;
  let time: string;
  let key: string;
  if (zone === 90) {
    end = i + 1;
    time = s.slice(at, end);
    // A `Z` time with all 9 fraction digits (the kubelet's own format) is its key already: slice it
    // rather than build a new string.
    key =
      digitsOf === 9
        ? s.slice(at, at + 29)
        : `${s.slice(at, seconds)}.${digitsOf > 0 ? s.slice(seconds + 1, fractionEnd).padEnd(9, "0") : "000000000"}`;
  } else if (zone === 43 || zone === 45) {
    const oh = digits(s, i + 1, 2);
    const om = digits(s, i + 4, 2);
    if (oh < 0 || om < 0 || s.charCodeAt(i + 3) !== 58 || oh > 23 || om > 59) return null;
    end = i + 6;
    const sign = zone === 43 ? -1 : 1;
    const ms = utcMillis(y, mo, d, h, mi, se) + sign * (oh * 60 + om) * 60_000;
    const date = new Date(ms);
    const uy = date.getUTCFullYear();
    if (uy < 1 || uy > 9999) return null;
    const base = `${pad(uy, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(
      date.getUTCHours(),
      2,
    )}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}`;
    const fraction = digitsOf > 0 ? s.slice(seconds + 1, fractionEnd) : "";
    time = `${base}${fraction === "" ? "" : `.${fraction}`}Z`;
    key = `${base}.${fraction.padEnd(9, "0")}`;
  } else {
    return null;
  }
  return { time, key, end };
}

/** A whole string that is a valid UTC (`Z`) timestamp; returns its parse or null. */
export function parseUtcTime(s: string): ParsedTime | null {
  return isRfc3339Utc(s) ? parseTimestamp(s) : null;
}

/** Milliseconds since the epoch of a comparison key (fraction below 1 ms dropped). */
export function keyToMillis(key: string): number {
  const ms = utcMillis(
    Number(key.slice(0, 4)),
    Number(key.slice(5, 7)),
    Number(key.slice(8, 10)),
    Number(key.slice(11, 13)),
    Number(key.slice(14, 16)),
    Number(key.slice(17, 19)),
  );
  return ms + Number(key.slice(20, 23));
}

/** RFC 3339 UTC with whole seconds (`…:SSZ`), for kubelet `sinceTime`. */
export function formatSeconds(ms: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  return `${d.toISOString().slice(0, 19)}Z`;
}
