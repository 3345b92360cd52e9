/**
 * Strict RFC 3339 UTC timestamps as Kubernetes serializes them (metav1.Time and MicroTime).
 * Cluster times are never normalized: a value with an offset, a bad calendar date or any other
 * shape is rejected, and accepted values are kept verbatim.
 */

export { isRfc3339Utc } from "../rfc3339.ts";

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
