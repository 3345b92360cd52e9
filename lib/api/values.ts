/**
 * The contract's closed sets and bounds as plain values (docs/api.md § The log query, § What comes
 * back), with no dependency: the zod schemas build on them, and the CLI, the console and the audit
 * checks use them without loading zod.
 */
import type { Level, SourceId } from "../domain.ts";

export const SOURCE_IDS = ["gateway", "agent", "sandbox"] as const satisfies readonly SourceId[];
/** The levels `minLevel` takes, most severe first. */
export const MIN_LEVELS = ["error", "warn", "info", "debug"] as const satisfies readonly Level[];
export const MAX_TAIL_LINES = 1000;
export const MAX_SINCE_SECONDS = 86_400;

/**
 * `Retry-After` as whole seconds: delta-seconds (the form this service sends), or, when the reader
 * passes its clock, an HTTP date counted from `now`. Undefined when absent or unparsable.
 */
export function parseRetryAfter(value: string | null, now?: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^[0-9]{1,9}$/.test(v)) return Number(v);
  if (now === undefined) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
