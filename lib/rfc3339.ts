/**
 * RFC 3339 times, the one grammar every part of the service parses with.
 *
 * - `isRfc3339Utc`: the strict UTC form (`YYYY-MM-DDTHH:MM:SS[.1-9 digits]Z`), the only time form the
 *   contract accepts and the only one cluster data may carry. Offsets, bad calendar dates and any
 *   other shape are rejected, never normalized.
 * - `readRfc3339`: the full form (either case of `T` and `Z`, `±HH:MM` offsets), for what people
 *   type (the CLI's `--since-time`, scenario files) and what the console shows.
 * - `isCalendarInstant` and `utcMillis`: the calendar checks and arithmetic both build on, shared
 *   with the pipeline's hand-rolled kubelet timestamp reader (`lib/runtime-logs/time.ts`).
 */

const UTC_SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
/** The longest strict UTC time: nine fraction digits. */
const MAX_UTC_LENGTH = 30;

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** Year, month (1–12), day, hour, minute and second of a UTC instant. */
export type CalendarFields = [
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
];

/** True when the fields name a real calendar instant of years 1–9999 (no leap second). */
export function isCalendarInstant(...[year, month, day, hour, minute, second]: CalendarFields): boolean {
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59
  );
}

/** Epoch milliseconds of a UTC calendar instant: Date.UTC without its mapping of years 0–99 to 1900–1999. */
export function utcMillis(...[year, month, day, hour, minute, second]: CalendarFields): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getTime();
}

/** True for `YYYY-MM-DDTHH:MM:SS[.1-9 digits]Z` naming a real instant (no leap second, no offset). */
export function isRfc3339Utc(value: string): boolean {
  if (value.length > MAX_UTC_LENGTH) return false;
  const m = UTC_SHAPE.exec(value);
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as CalendarFields;
  return isCalendarInstant(year, month, day, hour, minute, second);
}

/** The parts of a time in the full RFC 3339 form, checked separately so callers can say which is wrong. */
export interface Rfc3339Time {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** The fraction's digits as written; "" when there is none. */
  fraction: string;
  /** The offset east of UTC in minutes (0 for `Z`). */
  offsetMinutes: number;
  /** The date and time fields name a real calendar instant. */
  realDate: boolean;
  /** The offset's hours are at most 23 and its minutes at most 59. */
  realOffset: boolean;
}

/** The parts of a full-form RFC 3339 time; null when the text does not have its shape. */
export function readRfc3339(text: string): Rfc3339Time | null {
  const m = SHAPE.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as CalendarFields;
  const sign = m[8];
  const oh = sign === undefined ? 0 : Number(m[9]);
  const om = sign === undefined ? 0 : Number(m[10]);
  return {
    year,
    month,
    day,
    hour,
    minute,
    second,
    fraction: m[7] ?? "",
    offsetMinutes: (sign === "-" ? -1 : 1) * (oh * 60 + om),
    realDate: isCalendarInstant(year, month, day, hour, minute, second),
    realOffset: oh <= 23 && om <= 59,
  };
}

/** Epoch milliseconds of the time's whole second, offset applied (the fraction is the caller's). */
export function wholeSecondMillis(t: Rfc3339Time): number {
  return utcMillis(t.year, t.month, t.day, t.hour, t.minute, t.second) - t.offsetMinutes * 60_000;
}

/** A real instant in the full form as UTC with its fraction digits kept (`…[.fraction]Z`); null otherwise. */
export function toUtcRfc3339(text: string): string | null {
  const t = realInstant(text);
  return t === null ? null : utcWithFraction(wholeSecondMillis(t), t.fraction);
}

/**
 * A real instant in the full form as UTC with exactly three fraction digits
 * (`YYYY-MM-DDTHH:MM:SS.mmmZ`): extra digits are cut, never rounded (a time never moves forward);
 * null otherwise. The one display precision of the CLI and the console.
 */
export function toUtcMillisRfc3339(text: string): string | null {
  const t = realInstant(text);
  return t === null ? null : utcWithFraction(wholeSecondMillis(t), t.fraction.padEnd(3, "0").slice(0, 3));
}

/**
 * Epoch milliseconds of a real instant in the full form, its sub-millisecond digits as the decimal
 * part (so times within one millisecond still order); null otherwise.
 */
export function fractionalMillis(text: string): number | null {
  const t = realInstant(text);
  return t === null ? null : wholeSecondMillis(t) + Number(`0.${t.fraction}`) * 1000;
}

/** The parts of a full-form time that names a real instant with a real offset; null otherwise. */
function realInstant(text: string): Rfc3339Time | null {
  const t = readRfc3339(text);
  return t?.realDate && t.realOffset ? t : null;
}

/** `YYYY-MM-DDTHH:MM:SS[.fraction]Z` for epoch milliseconds of a whole second and fraction digits. */
export function utcWithFraction(wholeSecondMs: number, fraction: string): string {
  const whole = new Date(wholeSecondMs).toISOString().slice(0, 19);
  return `${whole}${fraction === "" ? "" : `.${fraction}`}Z`;
}

/**
 * A key that orders strict UTC times (`isRfc3339Utc`) chronologically as plain strings:
 * `YYYY-MM-DDTHH:MM:SS.fffffffff`, the fraction padded to nine digits.
 */
export function utcSortKey(utc: string): string {
  const dot = utc.indexOf(".");
  const base = dot === -1 ? utc.slice(0, -1) : utc.slice(0, dot);
  const fraction = dot === -1 ? "" : utc.slice(dot + 1, -1);
  return `${base}.${fraction.padEnd(9, "0")}`;
}
