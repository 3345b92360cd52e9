/**
 * Strict RFC 3339 UTC instants (`YYYY-MM-DDTHH:MM:SS[.1-9 digits]Z`): the only time form the
 * contract accepts and the only one cluster data may carry. Offsets, bad calendar dates and any
 * other shape are rejected, never normalized.
 */

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/**
 * The date and time fields of a match whose groups 1–6 are year, month, day, hour, minute and
 * second, when they name a real calendar instant (no leap second); null otherwise.
 */
export function calendarFields(m: RegExpExecArray): [number, number, number, number, number, number] | null {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const valid =
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59;
  return valid ? [year, month, day, hour, minute, second] : null;
}

/** True for `YYYY-MM-DDTHH:MM:SS[.1-9 digits]Z` naming a real instant (no leap second, no offset). */
export function isRfc3339Utc(value: string): boolean {
  if (value.length > 30) return false;
  const m = SHAPE.exec(value);
  return m !== null && calendarFields(m) !== null;
}
