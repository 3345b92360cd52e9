/**
 * Redaction (docs/redaction.md): every string that leaves the service passes the chain. Each rule
 * family lives in `rules/` and declares its triggers; the chain runs them in the documented order
 * (PEM first, argv before the rest, long-token last), each over the output of the previous, and
 * skips a rule whose triggers are absent. Every rule is a linear scan: regexes are literal
 * alternations or single bounded character runs with nothing after them, so nothing backtracks.
 */
import { decodeKeyEscapes, ESCAPE_WORDS } from "./escapes.ts";
import { type EventTextHints, maskEventNames } from "./event-text.ts";
import { type IdentityContext, protectIdentities } from "./identity.ts";
import { MARK_BASE, neutralizePrivateUse, placeholderText } from "./marks.ts";
import { protectExisting } from "./protect.ts";
import type { Rule } from "./rule.ts";
import { argv } from "./rules/argv.ts";
import { authSchemes } from "./rules/auth-schemes.ts";
import { calls } from "./rules/calls.ts";
import { connectStrings } from "./rules/connect-strings.ts";
import { header } from "./rules/header.ts";
import { jwt } from "./rules/jwt.ts";
import { keyValue } from "./rules/key-value.ts";
import { longToken } from "./rules/long-token.ts";
import { pem } from "./rules/pem.ts";
import { providerTokens } from "./rules/provider-tokens.ts";
import { query } from "./rules/query.ts";
import { userinfo } from "./rules/userinfo.ts";
import {
  currentLedger,
  flatText,
  manySpans,
  marksTouchRuns,
  scratchUnits,
  startLedger,
  utf16Text,
} from "./scan.ts";
import { isAscii, neutralizeInvisible, type Shadow, shadowOf } from "./shadow.ts";
import { compileTriggers } from "./triggers.ts";

export type { EventTextHints } from "./event-text.ts";
export {
  type IdentityContext,
  isPseudonym,
  type PseudonymKind,
  pseudonymize,
  WITHHELD_IDENTITY,
} from "./identity.ts";
export { REDACTION_KINDS, type RedactionKind } from "./marks.ts";
export { findJwts } from "./rules/jwt.ts";
export { PROVIDERS } from "./rules/provider-tokens.ts";
export { neutralizeInvisible, shadowOf } from "./shadow.ts";

/**
 * The chain, in order. Key-value runs just before query: a query value masked first could hide a
 * key the key-value grammar needs (`?q=password => v`); key-value stops at `&` inside a query.
 */
export const RULES: readonly Rule[] = [
  pem,
  argv,
  header,
  authSchemes,
  jwt,
  userinfo,
  connectStrings,
  calls,
  providerTokens,
  keyValue,
  query,
  longToken,
];

/**
 * Identity keys and escaped key characters are found by the same trigger scan (the last two flags):
 * identities run before the chain; escapes are read in the shadow before anything runs.
 */
const IDENTITY_WORDS: Rule = { name: "identity", words: ["sender", "session"], apply: (s) => s };
const ESCAPES: Rule = { name: "escapes", words: ESCAPE_WORDS, apply: (s) => s };
export const TRIGGERS = compileTriggers([...RULES, IDENTITY_WORDS, ESCAPES]);
const F_IDENTITY = 1 << RULES.length;
const F_ESCAPES = 1 << (RULES.length + 1);

/** Run the rules whose triggers `f` found, in order (and those a marker may trigger: `joinsMarks`). */
export function redactChain(s: string, f: number): string {
  for (let k = 0; k < RULES.length; k++) {
    const rule = RULES[k]!;
    if (f & (1 << k) || (rule.joinsMarks === true && marksTouchRuns(s))) s = rule.apply(s);
  }
  return s;
}

export interface RedactOptions {
  /** Pseudonymize identities with this key and namespace; without it they are withheld. */
  identity?: IdentityContext;
  /** Event text: also mask node, image, Secret and ConfigMap names. */
  event?: EventTextHints;
}

/**
 * Results for short strings in which no identity was pseudonymized, remembered: logs repeat the same
 * subsystems, methods and messages many times (`session resumed` too: an identity word, no identity
 * value). Bounded; cleared when full. The result of such a string depends on its text alone (no key,
 * no hints), so remembering it changes nothing.
 */
const REMEMBERED = new Map<string, string>();
const REMEMBER_MAX_CHARS = 64;
const REMEMBER_MAX_ENTRIES = 4096;

/** A text at least this long that is its own shadow is read by the rules as a flat copy (`flatText`). */
const FLAT_MIN = 256;

/**
 * Redact one string that leaves the service. Rules run on the shadow of the text (invisible
 * characters removed, compatibility forms folded) and mask the matching spans of the original;
 * what is left of the original shows its invisible characters as escapes. `ascii`: the caller has
 * checked that `text` is ASCII.
 */
export function redact(text: string, options: RedactOptions = {}, ascii = false): string {
  const short = text.length <= REMEMBER_MAX_CHARS && options.event === undefined;
  if (short) {
    const known = REMEMBERED.get(text);
    if (known !== undefined) return known;
  }
  // ASCII holds no private-use character and is its own shadow.
  const asciiText = ascii || isAscii(text);
  const original = asciiText ? text : neutralizePrivateUse(text);
  // ASCII is its own shadow, unless a terminal's escape sequence colours it.
  let shadow: Shadow | null = asciiText && !original.includes("\x1b") ? null : shadowOf(original, asciiText);
  // Protecting, pseudonymizing and masking only put placeholders in, which complete no trigger
  // word: the triggers of the shadow hold for every later step.
  let f = shadow === null ? TRIGGERS.of(text, true) : TRIGGERS.of(shadow.text);
  if (f & F_ESCAPES) {
    // Escaped key characters read as themselves: the words they spell are found in a second scan.
    const decoded = decodeKeyEscapes(shadow ?? { text, start: null, end: null, invisible: false });
    if (decoded !== null) {
      shadow = decoded;
      f = TRIGGERS.of(decoded.text, asciiText);
    }
    f &= ~F_ESCAPES;
  }
  let out: string;
  /** An identity was pseudonymized: the result depends on the identity key. */
  let keyed = false;
  if (f === 0 && options.event === undefined) {
    out = shadow?.invisible ? neutralizeInvisible(original) : original;
  } else {
    const values: string[] = [];
    let whole: Shadow = shadow ?? { text, start: null, end: null, invisible: false };
    if (whole.text === original && original.length >= FLAT_MIN)
      whole = { ...whole, text: flatText(original, asciiText) };
    startLedger(asciiText);
    let s = protectExisting(whole.text, values);
    if (f & F_IDENTITY) {
      const before = values.length;
      s = protectIdentities(s, options.identity ?? null, values);
      keyed = values.length > before;
    }
    if (options.event !== undefined) s = maskEventNames(s, options.event);
    s = redactChain(s, f);
    out = assemble(original, whole, s, values);
  }
  if (short && !keyed) {
    if (REMEMBERED.size >= REMEMBER_MAX_ENTRIES) REMEMBERED.clear();
    REMEMBERED.set(text, out);
  }
  return out;
}

/**
 * The output: the original text with each placeholder of the masked text replaced by its text (a
 * marker or a pseudonym) over the original span it stands for (found through the ledger); the rest
 * of the original kept, its invisible characters escaped.
 */
export function assemble(
  original: string,
  shadow: Shadow,
  masked: string,
  values: readonly string[],
): string {
  const keep = shadow.invisible ? neutralizeInvisible : (t: string): string => t;
  if (masked === shadow.text) return keep(original);
  const { at } = currentLedger();
  // The shadow is the original itself and only markers went in (no pseudonym): the output is the
  // masked text with each marker's text in its place, replaced natively kind by kind (joining a
  // piece per span costs several times more on a line of thousands).
  if (shadow.start === null && !shadow.invisible && values.length === 0) {
    let kinds = 0;
    for (let li = 0; li < at.length; li++) kinds |= 1 << (masked.charCodeAt(at[li]!) - MARK_BASE);
    let out = masked;
    for (let k = 0; kinds !== 0; k++, kinds >>>= 1)
      if (kinds & 1)
        out = out.replaceAll(String.fromCharCode(MARK_BASE + k), placeholderText(MARK_BASE + k, values));
    return out;
  }
  if (!shadow.invisible && manySpans(at.length, original.length))
    return assembleByUnits(original, shadow, masked, values);
  const spans = originalSpans(shadow);
  const out: string[] = [];
  let pos = 0;
  for (let li = 0; li < at.length; li++) {
    const from = spans[2 * li]!;
    if (from > pos) out.push(keep(original.slice(pos, from)));
    out.push(placeholderText(masked.charCodeAt(at[li]!), values));
    if (spans[2 * li + 1]! > pos) pos = spans[2 * li + 1]!;
  }
  out.push(keep(original.slice(pos)));
  return out.join("");
}

/**
 * The span of the original each placeholder of the chain's text stands for, as [from, to) pairs in
 * ledger order: its shadow characters (the ledger) led back through the shadow's map.
 */
function originalSpans(shadow: Shadow): Int32Array {
  const { at, covers } = currentLedger();
  const { start, end } = shadow;
  const spans = new Int32Array(2 * at.length);
  /** How much longer the shadow is than the chain's text before the current placeholder. */
  let extra = 0;
  for (let li = 0; li < at.length; li++) {
    const a = at[li]! + extra;
    const b = a + covers[li]!;
    extra += covers[li]! - 1;
    spans[2 * li] = start === null ? a : start[a]!;
    spans[2 * li + 1] = end === null ? b : end[b - 1]!;
  }
  return spans;
}

/**
 * `assemble` for many spans over a mapped shadow (text with foldable characters): the output copied
 * unit by unit into scratch memory, instead of joining a piece per span (two-byte pieces join slowly).
 */
function assembleByUnits(
  original: string,
  shadow: Shadow,
  masked: string,
  values: readonly string[],
): string {
  const { at } = currentLedger();
  const spans = originalSpans(shadow);
  let size = original.length;
  for (let li = 0; li < at.length; li++) size += placeholderText(masked.charCodeAt(at[li]!), values).length;
  const units = scratchUnits(size);
  let o = 0;
  let pos = 0;
  for (let li = 0; li < at.length; li++) {
    for (const from = spans[2 * li]!; pos < from; pos++) units[o++] = original.charCodeAt(pos);
    const text = placeholderText(masked.charCodeAt(at[li]!), values);
    for (let k = 0; k < text.length; k++) units[o++] = text.charCodeAt(k);
    if (spans[2 * li + 1]! > pos) pos = spans[2 * li + 1]!;
  }
  for (; pos < original.length; pos++) units[o++] = original.charCodeAt(pos);
  return utf16Text(units.subarray(0, o));
}

/** Redact one string that leaves the service (messages, fields, reasons). */
export function redactText(text: string): string {
  return redact(text);
}

/**
 * Redact Kubernetes Event text and termination messages: node names, image references, Secret and
 * ConfigMap names (found by the usual phrasings, plus `hints`), then the whole redaction chain.
 */
export function redactEventText(text: string, hints: EventTextHints = {}): string {
  return redact(text, { event: hints });
}
