/**
 * Level words (docs/pipeline.md § Levels): what the classifier reads a line's level from, and what
 * the CLI and the console recognize when they drop a leading word that only repeats the level.
 * No dependency, so the clients share these very tables.
 */
import type { Level } from "../domain.ts";

/** Structured level names and bracketed words (`[warn]`), matched in any case (lower-cased keys). */
export const LEVEL_WORDS: Record<string, Level> = {
  error: "error",
  err: "error",
  fatal: "error",
  panic: "error",
  dpanic: "error",
  critical: "error",
  crit: "error",
  alert: "error",
  emerg: "error",
  emergency: "error",
  warn: "warn",
  warning: "warn",
  info: "info",
  notice: "info",
  information: "info",
  debug: "debug",
  trace: "debug",
  verbose: "debug",
};

/** Bare upper-case words a plain-text line may start with (`ERROR …`). */
export const PLAIN_LEVELS: Record<string, Level> = {
  ERROR: "error",
  ERR: "error",
  FATAL: "error",
  PANIC: "error",
  CRITICAL: "error",
  WARN: "warn",
  WARNING: "warn",
  INFO: "info",
  NOTICE: "info",
  DEBUG: "debug",
  TRACE: "debug",
};
