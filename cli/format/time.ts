/**
 * Every time the CLI prints in text, in one form: UTC with milliseconds
 * (`2026-11-29T11:59:58.123Z`). The service writes record times with up to nine fraction digits,
 * Kubernetes times with none, and the registry milliseconds; mixed in one table they misalign
 * and read as different precisions. Extra digits are cut, never rounded (a time never moves
 * forward); `-o json` keeps the server's form.
 */
const UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/i;
const OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?[+-]\d{2}:\d{2}$/;

/** `time` in the CLI's form; anything that is not an RFC 3339 time is returned as it came. */
export function displayTime(time: string): string {
  const m = UTC.exec(time);
  if (m !== null) return `${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}Z`;
  if (OFFSET.test(time)) {
    const ms = Date.parse(time);
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  return time;
}

/** A string field as a display time, or undefined when it is not a non-empty string. */
export function timeCell(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? displayTime(v) : undefined;
}
