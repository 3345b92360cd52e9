/**
 * Keyed pseudonyms for identities (restart attribution). This is the one function both log
 * pages and restart records use: `hmac-sha256:v1:{keyId}:{hex}` = HMAC-SHA-256 over the canonical
 * JSON `["runtime-logs.identity.v1", kind, namespaceId, value]`. Without a key it fails closed.
 */
import { hmacOf } from "../hmac.ts";
import type { IdentityKey } from "../runtime-logs/types.ts";
import { isEscapedLtAt, valueAfterKey } from "./grammar.ts";
import { PROTECTED_BASE, PROTECTED_MAX } from "./marks.ts";
import { isAlnum, isKeyChar, isOneMark, splice } from "./scan.ts";

export type PseudonymKind = "actor" | "session";

/** What stands in for an identity when no identity key is configured. */
export const WITHHELD_IDENTITY = "[withheld]";

/**
 * The shape of a pseudonym, stated once: the key id takes what a key's `keyId` may be (lib/keys.ts),
 * the group captures it. Recognising one by shape is enough: a pseudonym made with the previous key
 * of a rotation is still one.
 */
export const PSEUDONYM_SOURCE = "hmac-sha256:v1:([A-Za-z0-9._-]{1,64}):[0-9a-f]{64}";
const PSEUDONYM = new RegExp(`^${PSEUDONYM_SOURCE}$`);

export function pseudonymize(
  key: IdentityKey | null,
  kind: PseudonymKind,
  namespaceId: string,
  value: string,
): string {
  if (key === null) return WITHHELD_IDENTITY;
  const canonical = JSON.stringify(["runtime-logs.identity.v1", kind, namespaceId, value]);
  const hex = hmacOf(key.secret).hex(canonical);
  return `hmac-sha256:v1:${key.id}:${hex}`;
}

/** Whether `s` has the exact shape of a pseudonym. */
export const isPseudonym = (s: string): boolean => PSEUDONYM.test(s);

/** Identity keys of the restart lines and the pseudonym kind of their values. */
const IDENTITY_KEYS = /sender[_-]?id|session[_-]?key/gi;

/** The pseudonym context: the identity key (null fails closed) and the namespace it is scoped to. */
export interface IdentityContext {
  identityKey: IdentityKey | null;
  namespaceId: string;
}

/**
 * Replace the value of every identity key (`sender_id`, `sender-id`, `session_key`, any case or camel form) in
 * every quoting the key-value grammar knows (`key=v`, `key="v"`, `key='v'`, `key: v`, `"key":"v"`,
 * escaped JSON) by a run of one protected placeholder; its pseudonym is appended to `values`.
 * Runs before the chain, so no rule masks the pseudonym, and a raw identifier never leaves.
 */
export function protectIdentities(s: string, ctx: IdentityContext | null, values: string[]): string {
  const spans: number[] = [];
  const reps: string[] = [];
  IDENTITY_KEYS.lastIndex = 0;
  for (let m = IDENTITY_KEYS.exec(s); m !== null; m = IDENTITY_KEYS.exec(s)) {
    const ks = m.index;
    const ke = IDENTITY_KEYS.lastIndex;
    const before = s.charCodeAt(ks - 1);
    // An element escaped as JSON writes it (`\u003csender_id\u003e`) is the key's whole word too.
    if (
      (isAlnum(before) && !isEscapedLtAt(s, ks - 5)) ||
      before === /* _ */ 95 ||
      isKeyChar(s.charCodeAt(ke))
    )
      continue;
    const value = valueAfterKey(s, ks, ke, before === /* - */ 45);
    if (value === null || value.end <= value.start || isOneMark(s, value.start, value.end)) continue;
    if (values.length > PROTECTED_MAX - PROTECTED_BASE) break;
    const kind: PseudonymKind = m[0].toLowerCase().startsWith("sender") ? "actor" : "session";
    const raw = s.slice(value.start, value.end);
    values.push(ctx === null ? WITHHELD_IDENTITY : pseudonymize(ctx.identityKey, kind, ctx.namespaceId, raw));
    spans.push(value.start, value.end);
    reps.push(String.fromCharCode(PROTECTED_BASE + values.length - 1));
    IDENTITY_KEYS.lastIndex = value.end;
  }
  return splice(s, spans, reps);
}
