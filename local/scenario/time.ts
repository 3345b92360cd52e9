/**
 * Scenario times (docs/kube.md § Scenario file): absolute RFC 3339, or relative to a reference instant
 * (`now`, `now-<decimal>(ms|s|m|h|d)`). Kept as epoch nanoseconds because kubelet log times carry
 * nine fraction digits and a JavaScript Date only keeps milliseconds.
 */

import { readRfc3339, wholeSecondMillis } from "../../lib/rfc3339.ts";

const RELATIVE = /^now(?:-(\d+(?:\.\d+)?)(ms|s|m|h|d))?$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/** Epoch nanoseconds of an absolute RFC 3339 time, or null when it is not one (or not a real date). */
export function parseRfc3339(text: string): bigint | null {
  const t = readRfc3339(text);
  if (t === null || !t.realDate || !t.realOffset) return null;
  return BigInt(wholeSecondMillis(t)) * NS_PER_MS + BigInt(t.fraction.padEnd(9, "0"));
}

/** Whether `text` follows the scenario time grammar (absolute or relative). */
export function isScenarioTime(text: string): boolean {
  return RELATIVE.test(text) || parseRfc3339(text) !== null;
}

/** Resolves a scenario time against `referenceNs` (the instant `now` names); null when malformed. */
export function resolveScenarioTime(text: string, referenceNs: bigint): bigint | null {
  const rel = RELATIVE.exec(text);
  if (rel) {
    if (rel[1] === undefined) return referenceNs;
    const unit = UNIT_MS[rel[2] as keyof typeof UNIT_MS];
    // Microsecond resolution is plenty for offsets and keeps the arithmetic exact for years.
    const offsetUs = Math.round(Number(rel[1]) * unit * 1000);
    if (!Number.isSafeInteger(offsetUs)) return null;
    return referenceNs - BigInt(offsetUs) * 1000n;
  }
  return parseRfc3339(text);
}

/** Kubelet's form: UTC with exactly nine fraction digits, e.g. `2026-11-29T12:00:00.120000000Z`. */
export function formatKubeletTime(ns: bigint): string {
  let seconds = ns / NS_PER_S;
  let fraction = ns % NS_PER_S;
  if (fraction < 0n) {
    fraction += NS_PER_S;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}.${fraction.toString().padStart(9, "0")}Z`;
}

/** metav1.Time: RFC 3339 UTC with whole seconds, as the API server serializes object times. */
export function formatMetaTime(ns: bigint): string {
  return `${formatKubeletTime(ns).slice(0, 19)}Z`;
}

/** metav1.MicroTime: six fraction digits (Event `eventTime`, `series.lastObservedTime`). */
export function formatMicroTime(ns: bigint): string {
  return `${formatKubeletTime(ns).slice(0, 26)}Z`;
}

/** RFC 3339 UTC with milliseconds (`Date.toISOString`), the registry's form. */
export function formatIsoMillis(ns: bigint): string {
  return new Date(Number(floorDiv(ns, NS_PER_MS))).toISOString();
}

export function nsToMs(ns: bigint): number {
  return Number(floorDiv(ns, NS_PER_MS));
}

export function msToNs(ms: number): bigint {
  return BigInt(Math.round(ms)) * NS_PER_MS;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b < 0n ? q - 1n : q;
}
