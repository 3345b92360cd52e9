/**
 * Text the chain must leave alone: `[redacted:<kind>]` already in the input and the service's own
 * pseudonyms become placeholders no rule matches, and are put back afterwards.
 */
import { M, PROTECTED_BASE, PROTECTED_MAX, REDACTION_KINDS, type RedactionKind } from "./marks.ts";
import { PREFIXES } from "./rules/provider-tokens.ts";

const REDACTED_G = new RegExp(`\\[redacted:(${REDACTION_KINDS.join("|")})\\]`, "g");
const PSEUDONYM_G = /hmac-sha256:v1:([A-Za-z0-9._-]{1,32}):[0-9a-f]{64}(?![0-9a-f])/g;
const PROTECTED_G = /[\uf000-\uf7ff]/g;

/**
 * Text that is already redacted, and pseudonym-shaped values, become placeholders no rule matches
 * (a key id that looks like a token prefix is not trusted). Pseudonyms are appended to `values`.
 */
export function protectExisting(s: string, values: string[]): string {
  if (s.includes("[redacted:")) s = s.replace(REDACTED_G, (_m, kind: string) => M[kind as RedactionKind]);
  if (s.includes("hmac-sha256:v1:")) {
    s = s.replace(PSEUDONYM_G, (m, keyId: string) => {
      PREFIXES.lastIndex = 0;
      if (PREFIXES.test(keyId) || values.length > PROTECTED_MAX - PROTECTED_BASE) return m;
      values.push(m);
      return String.fromCharCode(PROTECTED_BASE + values.length - 1);
    });
  }
  return s;
}

/** Put protected values back. */
export function restoreProtected(s: string, values: readonly string[]): string {
  if (values.length === 0) return s;
  return s.replace(PROTECTED_G, (ch) => values[ch.charCodeAt(0) - PROTECTED_BASE] ?? "");
}
