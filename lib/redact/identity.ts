/**
 * Keyed pseudonyms for identities (restarts.md § pseudonyms). This is the one function both log
 * pages and restart records use: `hmac-sha256:v1:{keyId}:{hex}` = HMAC-SHA-256 over the canonical
 * JSON `["runtime-logs.identity.v1", kind, namespaceId, value]`. Without a key it fails closed.
 */
import { createHmac } from "node:crypto";
import type { IdentityKey } from "../runtime-logs/types.ts";
import { PROTECTED_BASE, PROTECTED_MAX } from "./marks.ts";

export type PseudonymKind = "actor" | "session";

/** What stands in for an identity when no identity key is configured. */
export const WITHHELD_IDENTITY = "[withheld]";

const PSEUDONYM = /^hmac-sha256:v1:[A-Za-z0-9._-]{1,64}:[0-9a-f]{64}$/;

export function pseudonymize(
  key: IdentityKey | null,
  kind: PseudonymKind,
  namespaceId: string,
  value: string,
): string {
  if (key === null) return WITHHELD_IDENTITY;
  const canonical = JSON.stringify(["runtime-logs.identity.v1", kind, namespaceId, value]);
  const hex = createHmac("sha256", key.secret).update(canonical, "utf8").digest("hex");
  return `hmac-sha256:v1:${key.id}:${hex}`;
}

/** Whether `s` has the exact shape of a pseudonym. */
export const isPseudonym = (s: string): boolean => PSEUDONYM.test(s);

const FIELDS: ReadonlyArray<[string, PseudonymKind]> = [
  ["sender_id=", "actor"],
  ["session_key=", "session"],
];

const isKeyChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
const isValueEnd = (c: number): boolean => c <= 0x20 || c === 34 || c === 39 || (c >= 0xe000 && c <= 0xf8ff);

export interface Protected {
  /** The text with each pseudonym replaced by one protected placeholder character. */
  text: string;
  /** Pseudonyms (or the withheld marker) by placeholder index. */
  values: string[];
}

/**
 * Replace the values of `sender_id=` and `session_key=` by their pseudonyms, as protected
 * placeholders the redaction chain leaves alone; `restorePseudonyms` puts them back afterwards.
 */
export function protectPseudonyms(text: string, key: IdentityKey | null, namespaceId: string): Protected {
  if (!text.includes("sender_id=") && !text.includes("session_key=")) return { text, values: [] };
  const hits: Array<[number, number, string]> = [];
  for (const [name, kind] of FIELDS) {
    let i = text.indexOf(name);
    while (i >= 0) {
      const v = i + name.length;
      let end = v;
      while (end < text.length && !isValueEnd(text.charCodeAt(end))) end++;
      if ((i === 0 || !isKeyChar(text.charCodeAt(i - 1))) && end > v) {
        hits.push([v, end, pseudonymize(key, kind, namespaceId, text.slice(v, end))]);
      }
      i = text.indexOf(name, Math.max(end, v));
    }
  }
  if (hits.length === 0) return { text, values: [] };
  hits.sort((a, b) => a[0] - b[0]);
  let out = "";
  let from = 0;
  const values: string[] = [];
  for (const [start, end, value] of hits) {
    if (start < from || values.length > PROTECTED_MAX - PROTECTED_BASE) continue;
    out += text.slice(from, start) + String.fromCharCode(PROTECTED_BASE + values.length);
    values.push(value);
    from = end;
  }
  return { text: out + text.slice(from), values };
}

const PROTECTED_G = /[\uf000-\uf7ff]/g;

export function restorePseudonyms(text: string, values: readonly string[]): string {
  if (values.length === 0) return text;
  return text.replace(PROTECTED_G, (ch) => values[ch.charCodeAt(0) - PROTECTED_BASE] ?? "");
}
