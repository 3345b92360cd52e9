/**
 * Text the chain must leave alone, recognized only as a whole: `[redacted:<kind>]` already in the
 * input, the service's own pseudonyms and `[withheld]` (an identity withheld) become runs of a
 * placeholder no rule matches. A rule that
 * finds such a run inside a longer value masks the whole value (our markers shield nothing).
 */
import { PSEUDONYM_SOURCE, WITHHELD_IDENTITY } from "./identity.ts";
import { M, PROTECTED_BASE, PROTECTED_MAX, REDACTION_KINDS, type RedactionKind } from "./marks.ts";
import { holdsProviderPrefix } from "./rules/provider-tokens.ts";
import { splice } from "./scan.ts";

const REDACTED_G = new RegExp(`\\[redacted:(${REDACTION_KINDS.join("|")})\\]`, "g");
const PSEUDONYM_G = new RegExp(`${PSEUDONYM_SOURCE}(?![0-9a-f])`, "g");

/**
 * `s` with earlier redactions and pseudonym-shaped values as placeholders (a key id that looks like a token prefix is not trusted). Pseudonyms are appended to `values`.
 */
export function protectExisting(s: string, values: string[]): string {
  if (s.includes("[redacted:")) {
    const spans: number[] = [];
    const reps: string[] = [];
    REDACTED_G.lastIndex = 0;
    for (let m = REDACTED_G.exec(s); m !== null; m = REDACTED_G.exec(s)) {
      spans.push(m.index, m.index + m[0].length);
      reps.push(M[m[1] as RedactionKind]);
    }
    s = splice(s, spans, reps);
  }
  if (s.includes("hmac-sha256:v1:")) {
    const spans: number[] = [];
    const reps: string[] = [];
    PSEUDONYM_G.lastIndex = 0;
    for (let m = PSEUDONYM_G.exec(s); m !== null; m = PSEUDONYM_G.exec(s)) {
      if (holdsProviderPrefix(m[1]!) || values.length > PROTECTED_MAX - PROTECTED_BASE) continue;
      values.push(m[0]);
      spans.push(m.index, m.index + m[0].length);
      reps.push(String.fromCharCode(PROTECTED_BASE + values.length - 1));
    }
    s = splice(s, spans, reps);
  }
  if (s.includes(WITHHELD_IDENTITY)) {
    // Read as a value again, `[withheld]` would be a list holding an identity: kept as it is.
    const spans: number[] = [];
    const reps: string[] = [];
    for (
      let at = s.indexOf(WITHHELD_IDENTITY);
      at >= 0;
      at = s.indexOf(WITHHELD_IDENTITY, at + WITHHELD_IDENTITY.length)
    ) {
      if (values.length > PROTECTED_MAX - PROTECTED_BASE) break;
      values.push(WITHHELD_IDENTITY);
      spans.push(at, at + WITHHELD_IDENTITY.length);
      reps.push(String.fromCharCode(PROTECTED_BASE + values.length - 1));
    }
    s = splice(s, spans, reps);
  }
  return s;
}
