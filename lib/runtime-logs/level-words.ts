/**
 * Level words (docs/pipeline.md § Levels): what the classifier reads a line's level from, and what
 * the CLI and the console recognize when they drop a leading word that only repeats the level
 * (`afterRepeatedLevel`). No dependency, so the clients (the console is bundled for the browser)
 * share these very tables and that one rule.
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

/** A leading word, maybe bracketed, and what follows it; a level word when PLAIN_LEVELS knows it. */
const LEADING_WORD = /^([[(<]?)([A-Za-z]{3,8})([\])>]?)(:|\s+|$)\s*/;

/**
 * `text` after a leading level word that only repeats `level` (and the spaces after it), possibly
 * empty; `text` itself when it has none. A level word is upper case, bracketed or followed by a
 * colon: "Error connecting…" is prose and stays.
 */
export function afterRepeatedLevel(text: string, level: unknown): string {
  const m = LEADING_WORD.exec(text);
  const word = m?.[2];
  if (m === null || word === undefined || PLAIN_LEVELS[word.toUpperCase()] !== level) return text;
  const marked = word === word.toUpperCase() || (m[1] !== "" && m[3] !== "") || m[4] === ":";
  return marked ? text.slice(m[0].length) : text;
}
