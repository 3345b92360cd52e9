/**
 * Strict RFC 3339 UTC timestamps as Kubernetes serializes them (metav1.Time and MicroTime).
 * Cluster times are never normalized: a value with an offset, a bad calendar date or any other
 * shape is rejected, and accepted values are kept verbatim.
 */

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** True for `YYYY-MM-DDTHH:MM:SS[.1-9 digits]Z` naming a real instant (no leap second, no offset). */
export function isRfc3339Utc(value: string): boolean {
  if (value.length > 30) return false;
  const m = SHAPE.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

/** A key that orders valid timestamps chronologically as plain strings (fraction padded to 9 digits). */
export function timeKey(value: string): string {
  const dot = value.indexOf(".");
  const base = dot === -1 ? value.slice(0, -1) : value.slice(0, dot);
  const fraction = dot === -1 ? "" : value.slice(dot + 1, -1);
  return `${base}.${fraction.padEnd(9, "0")}`;
}

/** Milliseconds since the epoch of a valid timestamp (sub-millisecond digits dropped; for ages only). */
export function toEpochMs(value: string): number {
  return Date.parse(value);
}
