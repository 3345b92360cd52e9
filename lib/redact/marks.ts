/**
 * Redaction kinds and their markers. While the chain runs, a redacted span is one private-use character
 * (a marker) that no later rule matches; markers become `[redacted:<kind>]` at the end.
 */

export const REDACTION_KINDS = [
  "pem",
  "argv",
  "header",
  "bearer",
  "basic",
  "netrc",
  "jwt",
  "userinfo",
  "token",
  "aws-key",
  "google-key",
  "query",
  "key-value",
  "long-token",
  "node",
  "image",
  "secret",
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

export const MARK_BASE = 0xe100;
const mark = (kind: RedactionKind): string => String.fromCharCode(MARK_BASE + REDACTION_KINDS.indexOf(kind));
export const M = Object.fromEntries(REDACTION_KINDS.map((k) => [k, mark(k)])) as Record<
  RedactionKind,
  string
>;

/** First code point of the caller-protected range (pseudonyms); `redactProtected` leaves these. */
export const PROTECTED_BASE = 0xf000;
export const PROTECTED_MAX = 0xf7ff;

const ANY_PRIVATE_USE = /[\ue000-\uf8ff]/;
const ANY_PRIVATE_USE_G = /[\ue000-\uf8ff]/g;

const MARKER_TEXT = REDACTION_KINDS.map((k) => `[redacted:${k}]`);

/** What a placeholder character stands for in the output. */
export function placeholderText(c: number, values: readonly string[]): string {
  if (c >= PROTECTED_BASE && c <= PROTECTED_MAX) return values[c - PROTECTED_BASE] ?? "\ufffd";
  return MARKER_TEXT[c - MARK_BASE] ?? "\ufffd";
}

/** Input private-use characters would collide with markers; they become U+FFFD. */
export function neutralizePrivateUse(s: string): string {
  return ANY_PRIVATE_USE.test(s) ? s.replace(ANY_PRIVATE_USE_G, "\ufffd") : s;
}
