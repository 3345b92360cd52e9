/**
 * Every time the CLI prints in text, in one form: UTC with milliseconds
 * (`2026-11-29T11:59:58.123Z`). The service writes record times with up to nine fraction digits,
 * Kubernetes times with none, and the registry milliseconds; mixed in one table they misalign
 * and read as different precisions. The form is lib/rfc3339.ts's `toUtcMillisRfc3339` (the
 * console's too); `-o json` keeps the server's form.
 */
import { toUtcMillisRfc3339 } from "../../lib/rfc3339.ts";

/** `time` in the CLI's form; anything that is not an RFC 3339 time is returned as it came. */
export function displayTime(time: string): string {
  return toUtcMillisRfc3339(time) ?? time;
}

/** A string field as a display time, or undefined when it is not a non-empty string. */
export function timeCell(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? displayTime(v) : undefined;
}
