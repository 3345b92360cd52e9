/**
 * Redaction (docs: pipeline §3): every string that leaves the service passes the chain. Each rule
 * family lives in `rules/` and declares its triggers; the chain runs them in the documented order
 * (PEM first, argv before the rest, long-token last), each over the output of the previous, and
 * skips a rule whose triggers are absent. Every rule is a linear scan: regexes are literal
 * alternations or single bounded character runs with nothing after them, so nothing backtracks.
 */
import { type EventTextHints, maskEventNames } from "./event-text.ts";
import { expandMarkers, neutralizePrivateUse } from "./marks.ts";
import { protectExisting, restoreProtected } from "./protect.ts";
import type { Rule } from "./rule.ts";
import { argv } from "./rules/argv.ts";
import { authSchemes } from "./rules/auth-schemes.ts";
import { header } from "./rules/header.ts";
import { jwt } from "./rules/jwt.ts";
import { keyValue } from "./rules/key-value.ts";
import { longToken } from "./rules/long-token.ts";
import { pem } from "./rules/pem.ts";
import { providerTokens } from "./rules/provider-tokens.ts";
import { query } from "./rules/query.ts";
import { userinfo } from "./rules/userinfo.ts";
import { compileTriggers } from "./triggers.ts";

export type { EventTextHints } from "./event-text.ts";
export {
  isPseudonym,
  type Protected,
  type PseudonymKind,
  protectPseudonyms,
  pseudonymize,
  restorePseudonyms,
  WITHHELD_IDENTITY,
} from "./identity.ts";
export {
  neutralizePrivateUse,
  PROTECTED_BASE,
  PROTECTED_MAX,
  REDACTION_KINDS,
  type RedactionKind,
} from "./marks.ts";
export { protectExisting, restoreProtected } from "./protect.ts";
export { findJwts } from "./rules/jwt.ts";

/** The chain, in order. */
export const RULES: readonly Rule[] = [
  pem,
  argv,
  header,
  authSchemes,
  jwt,
  userinfo,
  providerTokens,
  query,
  keyValue,
  longToken,
];

const TRIGGERS = compileTriggers(RULES);
const NEEDS_LOWER = RULES.reduce((f, r, k) => (r.needsLower === true ? f | (1 << k) : f), 0);

function redactChain(s: string): string {
  const f = TRIGGERS.of(s);
  if (f === 0) return s;
  const lower = f & NEEDS_LOWER ? s.toLowerCase() : "";
  for (let k = 0; k < RULES.length; k++) if (f & (1 << k)) s = RULES[k]!.apply(s, lower);
  return s;
}

/**
 * Run the chain over a string that may hold caller-protected placeholders (U+F000–U+F7FF) but no
 * other private-use character; returns the text with markers already expanded.
 */
export function redactProtected(s: string): string {
  return expandMarkers(redactChain(s));
}

/** Redact one string that leaves the service (messages, fields, reasons). */
export function redactText(text: string): string {
  const values: string[] = [];
  const s = protectExisting(neutralizePrivateUse(text), values);
  return restoreProtected(expandMarkers(redactChain(s)), values);
}

/**
 * Redact Kubernetes Event text and termination messages: node names, image references, Secret and
 * ConfigMap names (found by the usual phrasings, plus `hints`), then the whole redaction chain.
 */
export function redactEventText(text: string, hints: EventTextHints = {}): string {
  const values: string[] = [];
  const s = protectExisting(maskEventNames(neutralizePrivateUse(text), hints), values);
  return restoreProtected(expandMarkers(redactChain(s)), values);
}
