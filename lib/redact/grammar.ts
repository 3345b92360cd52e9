/**
 * The key-value grammar (docs/redaction.md), shared by the key-value and identity rules: what may
 * close a key (quotes at any escaping depth, brackets), the separators, and where a value ends. A
 * value is masked whole: a quoted value runs to its closing quote of the same kind and depth, an
 * unquoted one to the next whitespace; punctuation never ends it. Every scan here is linear and
 * bounded by the next whitespace or closing quote.
 */
import { firstOfClass, isAlnum, isSpace, skipBlanks, spaceFrom } from "./scan.ts";

const lower = (c: number): number => (c >= /* A */ 65 && c <= /* Z */ 90 ? c + 32 : c);

/** Whether `word` (lower case) is at `i`, ASCII case-insensitively. */
export function wordAt(s: string, i: number, word: string): boolean {
  if (i + word.length > s.length) return false;
  for (let k = 0; k < word.length; k++) if (lower(s.charCodeAt(i + k)) !== word.charCodeAt(k)) return false;
  return true;
}

/** Quote spellings besides the plain characters: JSON/JS escapes, URL and HTML encodings. */
const QUOTE_WORDS = ["u0022", "u0027", "u0060", "x22", "x27"];
const ENCODED_QUOTES = ["%22", "%27", "&quot;", "&#34;", "&#x22;", "&apos;", "&#39;", "&#x27;"];

/** Length of the letters of a JSON/JS quote escape (`u0022`, `x27`…) at `i`, or 0; the backslash before is the caller's. */
export const quoteWordLength = (s: string, i: number): number =>
  QUOTE_WORDS.find((q) => wordAt(s, i, q))?.length ?? 0;

const isQuote = (c: number): boolean => c === /* " */ 34 || c === /* ' */ 39 || c === /* backtick */ 96;

/**
 * Index past the decorations that close a key (or open a value) at `i`: quotes of any kind and
 * escaping depth (`"`, `\"`, `\\\"`, `\u0022`, `%22`, `&quot;`) and closing brackets. Bounded.
 */
export function skipKeyClose(s: string, i: number): number {
  const limit = Math.min(s.length, i + 32);
  while (i < limit) {
    const c = s.charCodeAt(i);
    // `\u003d` at any depth is a separator, not a closing escape.
    if (c === /* backslash */ 92 && escapedSeparatorEnd(s, i) >= 0) break;
    if (isQuote(c) || c === /* backslash */ 92 || c === /* ] */ 93) {
      i++;
      continue;
    }
    if (c === /* u */ 117 || c === /* x */ 120) {
      // `\u0022` / `\x22`: only right after a backslash.
      if (s.charCodeAt(i - 1) !== /* backslash */ 92) break;
      const w = QUOTE_WORDS.find((q) => wordAt(s, i, q));
      if (w === undefined) break;
      i += w.length;
      continue;
    }
    if (c === /* % */ 37 || c === /* & */ 38) {
      const w = ENCODED_QUOTES.find((q) => wordAt(s, i, q));
      if (w === undefined) break;
      i += w.length;
      continue;
    }
    break;
  }
  return i;
}

/** `=` and `:` as HTML character references. */
const ENTITY_SEPARATORS = ["&#61;", "&#x3d;", "&#58;", "&#x3a;", "&equals;", "&colon;"];

/** Index past a separator at `i` (`=`, `:`, `:=`, `=>`, `->`, `==`, or `=`/`:` encoded), or -1. */
export function separatorEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  const d = s.charCodeAt(i + 1);
  if (c === /* : */ 58) return d === /* = */ 61 ? i + 2 : i + 1;
  if (c === /* = */ 61) return d === /* > */ 62 || d === /* = */ 61 ? i + 2 : i + 1;
  if (c === /* - */ 45 && d === /* > */ 62) return i + 2;
  if (c === /* % */ 37) {
    // Percent-encoded once or twice (`%3D`, `%253D`).
    const e = wordAt(s, i + 1, "25") ? i + 3 : i + 1;
    if (wordAt(s, e, "3d") || wordAt(s, e, "3a")) return e + 2;
  }
  if (c === /* backslash */ 92) return escapedSeparatorEnd(s, i);
  if (c === /* & */ 38) {
    const w = ENTITY_SEPARATORS.find((e) => wordAt(s, i, e));
    if (w !== undefined) return i + w.length;
  }
  return -1;
}

/** Index past `\u003d` or `\u003a` at `i`, after any number of backslashes (JSON escaped again), or -1. */
function escapedSeparatorEnd(s: string, i: number): number {
  let j = i;
  while (s.charCodeAt(j) === /* backslash */ 92 && j - i < 16) j++;
  return wordAt(s, j, "u003d") || wordAt(s, j, "u003a") ? j + 5 : -1;
}

/** A value's span: `[start, end)`; `quoted` when it sat between quotes. */
export interface ValueSpan {
  start: number;
  end: number;
  quoted: boolean;
}

/**
 * The value starting at `i` (after the separator and blanks). A value that opens with a quote at
 * any depth runs to the matching close; otherwise to the next whitespace, or as a URL parameter's
 * (`param`) to the parameter's end.
 */
export function valueAt(s: string, i: number, param = false): ValueSpan | null {
  const n = s.length;
  if (i >= n || isSpace(s.charCodeAt(i))) return null;
  // Backslashes before a quote give its escaping depth; the close has exactly as many.
  let j = i;
  while (j < n && s.charCodeAt(j) === /* backslash */ 92 && j - i < 16) j++;
  const k = j - i;
  const c = s.charCodeAt(j);
  if (isQuote(c)) {
    const start = j + 1;
    const close = closingQuote(s, start, c, k);
    if (close === start) return null;
    return { start, end: close < 0 ? n : close, quoted: true };
  }
  if (k > 0 && (c === /* u */ 117 || c === /* x */ 120)) {
    const w = QUOTE_WORDS.find((q) => wordAt(s, j, q));
    if (w !== undefined) return encodedValue(s, j + w.length, `\\${w}`);
  }
  if (k === 0 && (c === /* % */ 37 || c === /* & */ 38)) {
    const w = ENCODED_QUOTES.find((q) => wordAt(s, j, q));
    if (w !== undefined) return encodedValue(s, j + w.length, w);
  }
  return { start: i, end: param ? parameterEnd(s, i) : spaceFrom(s, i), quoted: false };
}

/** Where a URL parameter's unquoted value ends: whitespace, `&`, `;` or `#`. */
const parameterEnd = firstOfClass(/[\x00-\x20&;#]/g);

function encodedValue(s: string, start: number, quote: string): ValueSpan | null {
  const close = indexOfWord(s, quote, start);
  if (close === start) return null;
  return { start, end: close < 0 ? s.length : close, quoted: true };
}

/** `indexOf` ignoring ASCII case; `word` in lower case. */
function indexOfWord(s: string, word: string, from: number): number {
  const first = word.charCodeAt(0);
  for (let i = from; i + word.length <= s.length; i++) {
    if (lower(s.charCodeAt(i)) === first && wordAt(s, i, word)) return i;
  }
  return -1;
}

/**
 * Index of the close of a quote `q` opened with `k` backslashes, searching from `i`: the same quote
 * preceded by exactly `k` backslashes (for `k = 0`, by an even number: escaped quotes are content).
 * The index returned is where the backslashes start, so the value excludes them. -1 if none.
 */
function closingQuote(s: string, i: number, q: number, k: number): number {
  const quote = String.fromCharCode(q);
  let at = s.indexOf(quote, i);
  while (at >= 0) {
    let b = at;
    while (b > i && s.charCodeAt(b - 1) === /* backslash */ 92) b--;
    const run = at - b;
    if (k === 0 ? run % 2 === 0 : run === k) return b;
    at = s.indexOf(quote, at + 1);
  }
  return -1;
}

/**
 * After a key from `ks` to `ke`: the value it names, in any of the grammar's forms, or null. A key
 * right after `?`, `&`, `;` or `#` is a URL parameter: its unquoted value ends where the parameter
 * does (at `&`, `;` or `#`), so the next parameter is neither masked nor taken with it.
 * `flag`: the key is a command-line flag (`--db-pass v`); whitespace separates it from its value.
 */
export function valueAfterKey(s: string, ks: number, ke: number, flag: boolean): ValueSpan | null {
  const n = s.length;
  const before = s.charCodeAt(ks - 1);
  const param =
    before === /* ? */ 63 || before === /* & */ 38 || before === /* ; */ 59 || before === /* # */ 35;
  const closed = skipKeyClose(s, ke);
  let j = skipBlanks(s, closed);
  const sep = separatorEnd(s, j);
  if (sep >= 0) {
    j = skipBlanks(s, sep);
    return valueAt(s, skipValueOpen(s, j), param);
  }
  // XML/HTML element: `<password>v</password>`, `<password type="x">v<`.
  if (s.charCodeAt(ks - 1) === /* < */ 60 && closed === ke) {
    let gt = ke;
    const limit = Math.min(n, ke + 256);
    while (gt < limit && s.charCodeAt(gt) !== /* > */ 62 && s.charCodeAt(gt) !== /* < */ 60) gt++;
    if (s.charCodeAt(gt) === /* > */ 62 && s.charCodeAt(gt - 1) !== /* slash */ 47) {
      const lt = s.indexOf("<", gt + 1);
      const end = lt < 0 ? n : lt;
      return end > gt + 1 ? { start: gt + 1, end, quoted: true } : null;
    }
    return null;
  }
  if (j > closed || closed > ke) {
    const c = s.charCodeAt(j);
    // SQL and prose: `PASSWORD 'v'`, `password "v"`.
    if (j > closed && isQuote(c)) return valueAt(s, j, param);
    // A name/value pair: `name="password" value="v"`, `{"name":"DB_PASS","value":"v"}`.
    if (closed > ke) {
      let v = j;
      if (s.charCodeAt(v) === /* , */ 44) v = skipBlanks(s, v + 1);
      // A quoted flag in a list, its value the next item: `["--db-pass", "v"]`, `['--token', 'v']`.
      if (flag && v > j) {
        const item = valueAt(s, v, param);
        if (item?.quoted && s.charCodeAt(item.start) !== /* - */ 45) return item;
      }
      v = skipKeyClose(s, v);
      if (wordAt(s, v, "value") && !isAlnum(s.charCodeAt(v + 5))) {
        const after = skipBlanks(s, skipKeyClose(s, v + 5));
        const sep2 = separatorEnd(s, after);
        if (sep2 >= 0) return valueAt(s, skipValueOpen(s, skipBlanks(s, sep2)), param);
      }
    }
    // A flag and its value: `--db-pass v` (a following flag is not a value).
    if (flag && j > closed && c !== /* - */ 45) return valueAt(s, j, param);
  }
  return null;
}

/** Skips a `{` or `[` only when a quote follows (`password: ["v"]`), so the quoted value is used. */
function skipValueOpen(s: string, j: number): number {
  const c = s.charCodeAt(j);
  if (
    (c === /* [ */ 91 || c === /* ( */ 40) &&
    (isQuote(s.charCodeAt(j + 1)) || s.charCodeAt(j + 1) === /* backslash */ 92)
  )
    return j + 1;
  return j;
}
