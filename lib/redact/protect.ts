/**
 * Text the chain must leave alone, recognized only as a whole: `[redacted:<kind>]` already in the
 * input and the service's own pseudonyms become runs of a placeholder no rule matches. A rule that
 * finds such a run inside a longer value masks the whole value (our markers shield nothing).
 */
import { M, PROTECTED_BASE, PROTECTED_MAX, REDACTION_KINDS, type RedactionKind } from "./marks.ts";
import { holdsProviderPrefix } from "./rules/provider-tokens.ts";

const REDACTED_G = new RegExp(`\\[redacted:(${REDACTION_KINDS.join("|")})\\]`, "g");
const PSEUDONYM_G = /hmac-sha256:v1:([A-Za-z0-9._-]{1,32}):[0-9a-f]{64}(?![0-9a-f])/g;

/**
 * `s` with earlier redactions and pseudonym-shaped values as placeholder runs of the same length (a
 * key id that looks like a token prefix is not trusted). Pseudonyms are appended to `values`.
 */
export function protectExisting(s: string, values: string[]): string {
  if (s.includes("[redacted:")) {
    s = s.replace(REDACTED_G, (m, kind: string) => M[kind as RedactionKind].repeat(m.length));
  }
  if (s.includes("hmac-sha256:v1:")) {
    s = s.replace(PSEUDONYM_G, (m, keyId: string) => {
      if (holdsProviderPrefix(keyId) || values.length > PROTECTED_MAX - PROTECTED_BASE) return m;
      values.push(m);
      return String.fromCharCode(PROTECTED_BASE + values.length - 1).repeat(m.length);
    });
  }
  return s;
}
