/**
 * Binds attribution to the pipeline's one pseudonym function and redaction (docs/restarts.md: one
 * function computes pseudonyms, in lib/runtime-logs/). A missing identity key fails closed: the
 * pipeline answers its withheld marker, which attribution turns into a null reference.
 */
import { isPseudonym, pseudonymize, redactEventText } from "../redact/index.ts";
import type { IdentityKey } from "../runtime-logs/types.ts";
import type { AttributionDeps } from "./attribute.ts";

export function attributionDeps(key: IdentityKey | null, namespaceId: string): AttributionDeps {
  return {
    pseudonymize(kind, value) {
      const p = pseudonymize(key, kind, namespaceId, value);
      return isPseudonym(p) ? p : null;
    },
    // Termination messages and reasons are cluster text: the Event-text redaction applies.
    redact: (text) => redactEventText(text),
  };
}
