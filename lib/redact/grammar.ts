/**
 * The key-value grammar (docs/redaction.md), shared by the key-value, identity, argv, header and
 * connect-string rules: what may close a key (quotes at any escaping depth, brackets), the
 * separators, and where a value ends. A value is masked whole: a quoted value runs to its closing
 * quote of the same kind and depth (and on, if its shell word does), an unquoted one to the end of
 * its shell word; punctuation never ends it. Every scan here is bounded by the next whitespace or
 * closing quote, and where a run ends is searched once per run of the line (`firstOfClass`).
 */
import { numericReference } from "./escapes.ts";
import { laterLinesValue, mayOpenLaterLines } from "./next-lines.ts";
import {
  firstMatch,
  firstOfClass,
  isAlnum,
  isKeyChar,
  isLetter,
  isOneMark,
  isPlaceholder,
  isSpace,
  skipBlanks,
  spaceFrom,
} from "./scan.ts";

const lower = (c: number): number => (c >= /* A */ 65 && c <= /* Z */ 90 ? c + 32 : c);

/** Whether `word` (lower case) is at `i`, ASCII case-insensitively. */
export function wordAt(s: string, i: number, word: string): boolean {
  if (i + word.length > s.length) return false;
  for (let k = 0; k < word.length; k++) if (lower(s.charCodeAt(i + k)) !== word.charCodeAt(k)) return false;
  return true;
}

/** Quote spellings besides the plain characters: JSON/JS escapes, URL (once or twice) and HTML encodings. */
const QUOTE_WORDS = ["u0022", "u0027", "u0060", "x22", "x27"];
const ENCODED_QUOTES = [
  ...["%22", "%27", "%2522", "%2527"],
  ...["&quot;", "&#34;", "&#x22;", "&apos;", "&#39;", "&#x27;"],
];

/** Length of the letters of a JSON/JS quote escape (`u0022`, `x27`…) at `i`, or 0; the backslash before is the caller's. */
export const quoteWordLength = (s: string, i: number): number =>
  QUOTE_WORDS.find((q) => wordAt(s, i, q))?.length ?? 0;

export const isQuote = (c: number): boolean =>
  c === /* " */ 34 || c === /* ' */ 39 || c === /* backtick */ 96;

/** Whether `u003c` at `i` follows a backslash: a `<` as JSON escapes it (Go's encoder always does). */
export const isEscapedLtAt = (s: string, i: number): boolean =>
  s.charCodeAt(i - 1) === /* backslash */ 92 && wordAt(s, i, "u003c");
/** What an index between brackets may hold: not white space, a quote, a bracket, `=`, `:`, `<` or `>`. */
const isIndexChar = (c: number): boolean =>
  c > /* space */ 32 &&
  !isQuote(c) &&
  c !== /* [ */ 91 &&
  c !== /* ] */ 93 &&
  c !== /* = */ 61 &&
  c !== /* : */ 58 &&
  c !== /* < */ 60 &&
  c !== /* > */ 62 &&
  c !== 127;

/**
 * Index past the decorations that close a key (or open a value) at `i`: quotes of any kind and
 * escaping depth (`"`, `\"`, `\\\"`, `\u0022`, `%22`, `&quot;`) and closing brackets, an array key's index. Bounded.
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
    // An index after the key: `password[]=`, `password[0]=` (PHP's and Rails' form fields), written
    // in any escape (`[%31]`), or a name (`password[new]=`): up to 24 characters, no space or quote.
    if (c === /* [ */ 91) {
      let d = i + 1;
      while (d < i + 25 && isIndexChar(s.charCodeAt(d))) d++;
      if (s.charCodeAt(d) !== /* ] */ 93) break;
      i = d + 1;
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

/** `=` and `:` as named HTML character references (numeric ones are read by `numericReference`). */
const ENTITY_SEPARATORS = ["&equals;", "&colon;"];

/**
 * Separators NFKC leaves as they are but a reader takes for `:`, `=`, `->` or `<-`: arrows (`→`,
 * `⇒`, `⟶`, `⟹`, `←`, `⇐`, `⟵`), ratio and modifier colons (`∶`, `꞉`, `ː`), colon-equals (`≔`).
 */
const LOOKALIKE_SEPARATORS = new Set([
  ...[0x2192, 0x21d2, 0x27f6, 0x27f9, 0x2190, 0x21d0, 0x27f5],
  ...[0x2236, 0xa789, 0x02d0, 0x2254],
]);

/**
 * Index past a separator at `i` (`=`, `:`, `:=`, `=>`, `->`, `==`, R's and Go's `<-`, `=`/`:`
 * encoded, or a lookalike), or -1.
 */
export function separatorEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c > 0x7f) return LOOKALIKE_SEPARATORS.has(c) ? i + 1 : -1;
  const d = s.charCodeAt(i + 1);
  if (c === /* : */ 58) return d === /* = */ 61 ? i + 2 : i + 1;
  if (c === /* = */ 61) return d === /* > */ 62 || d === /* = */ 61 ? i + 2 : i + 1;
  if (c === /* - */ 45 && d === /* > */ 62) return i + 2;
  if (c === /* < */ 60 && d === /* - */ 45) return i + 2;
  if (c === /* % */ 37) {
    // Percent-encoded once or twice (`%3D`, `%253D`).
    const e = wordAt(s, i + 1, "25") ? i + 3 : i + 1;
    if (wordAt(s, e, "3d") || wordAt(s, e, "3a")) return e + 2;
  }
  if (c === /* backslash */ 92) return escapedSeparatorEnd(s, i);
  if (c === /* & */ 38) {
    const ref = numericReference(s, i);
    if (ref >> 8 === /* = */ 61 || ref >> 8 === /* : */ 58) return i + (ref & 0xff);
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
  /**
   * YAML's node properties written before the value (`password: !!str v`, `&anchor`): masked as
   * well, since what looks like a tag may be the secret itself (`password: !s3cret (from env)`).
   */
  properties?: { start: number; end: number };
}

/**
 * Where an unquoted value ends: at the end of its shell word (`word`); as a URL parameter's at
 * whitespace, `&`, `;` or `#` (`parameter`); as a field of a `;`-separated connection string
 * (`Server=db;Password=a b;`) at `;` or a line break only, spaces included (`field`).
 */
export type Ending = "word" | "parameter" | "field";

/**
 * The value starting at `i` (after the separator and blanks). A value that opens with a quote at
 * any depth runs to the matching close, and on if its word does (`'ab'cd`); otherwise to where
 * `ending` says.
 */
export function valueAt(s: string, i: number, ending: Ending = "word"): ValueSpan | null {
  const n = s.length;
  if (i >= n || isSpace(s.charCodeAt(i))) return null;
  // Backslashes before a quote give its escaping depth; the close has exactly as many.
  let j = i;
  while (j < n && s.charCodeAt(j) === /* backslash */ 92 && j - i < 16) j++;
  const k = j - i;
  const c = s.charCodeAt(j);
  let start = -1;
  let close = -1;
  if (isQuote(c)) {
    start = j + 1;
    close = closingQuote(s, start, c, k);
  } else if (k > 0 && (c === /* u */ 117 || c === /* x */ 120)) {
    const w = quoteWordLength(s, j);
    if (w > 0) {
      start = j + w;
      close = closingQuoteWord(s, start, s.slice(j, j + w).toLowerCase(), k);
    }
  } else if (k === 0 && (c === /* % */ 37 || c === /* & */ 38)) {
    const w = ENCODED_QUOTES.find((q) => wordAt(s, j, q));
    if (w !== undefined) {
      start = j + w.length;
      close = indexOfWord(s, w, start);
    }
  }
  if (start < 0 && k === 0 && OTHER_OPENINGS[c] === 1) {
    const other = otherValueAt(s, i, c, ending);
    if (other !== undefined) return other;
  }
  // A list, an object or a tuple (`["a", "b"]`, `{"password": "v"}`, `("a" "b")`) is one value,
  // masked whole inside its brackets: each item of a secret's list is a secret, and a key inside
  // it no safer. (The brackets stay, so the masked text reads as the same value again.)
  if (start < 0 && k === 0 && ending === "word" && isOpening(c)) return structureValue(s, i, c);
  if (start < 0) {
    // Unquoted, a value is a shell word: quoted segments and escaped spaces belong to it.
    const end =
      ending === "word" ? wordEnd(s, i) : ending === "parameter" ? parameterEnd(s, i) : fieldEnd(s, i);
    return { start: i, end, quoted: false };
  }
  const open = openQuoteEnd(s, start, close);
  if (open >= 0) return { start, end: open, quoted: true };
  // A word that goes on past its closing quote is one shell word (`'ab'cd`, `'ab'"c d"`), as is
  // SQL's doubled quote (`'it''s'`): the value is all of it, its opening quote too (masked again,
  // an unbalanced quote would run to the end).
  const after = pastQuote(s, close);
  if (wordGoesOn(s, after)) return { start: i, end: wordEnd(s, after), quoted: true };
  return close === start ? null : { start, end: close, quoted: true };
}

/** The value inside the brackets of a structure opened at `i` (`c`: its bracket), to its close or its line's end. */
function structureValue(s: string, i: number, c: number): ValueSpan {
  let close = structureClose(s, i);
  // A doubled `}` with more value after it is ODBC's escaped brace (`Pwd={a}}b}` as a first field).
  if (c === /* { */ 123 && close >= 0 && s.charCodeAt(close + 1) === /* } */ 125 && wordGoesOn(s, close + 2))
    close = bracedFieldClose(s, close + 2);
  return quotedTo(s, i + 1, close);
}

/**
 * A quoted value from `start` to its close at `close`, or to the end of its line when it does not
 * close (-1): a value left open runs no further than its line.
 */
const quotedTo = (s: string, start: number, close: number): ValueSpan => ({
  start,
  end: close >= 0 ? close : lineEnd(s, start),
  quoted: true,
});

/** The first characters of the values `otherValueAt` reads: `(`, `s`, `e`, `E`, `$`, `{`. */
const OTHER_OPENINGS = new Uint8Array(128);
for (const c of "(seE${") OTHER_OPENINGS[c.charCodeAt(0)] = 1;

/**
 * A value at `i` (`c`: the code there) in a form besides quotes, structures and words: after a
 * dumper's type note, a PostgreSQL string constant (`E'…'`, `$$…$$`), an ODBC field's braces;
 * undefined when there is none.
 */
function otherValueAt(s: string, i: number, c: number, ending: Ending): ValueSpan | null | undefined {
  const noted = notedValue(s, i, c, ending);
  if (noted !== undefined) return noted;
  if ((c | 0x20) === /* e */ 101 && s.charCodeAt(i + 1) === /* ' */ 39) {
    // PostgreSQL's string with escapes, `E'it\'s'`: a quote after a backslash, at any escaping
    // depth, is inside it.
    return quotedTo(s, i + 2, unescapedQuote(s, i + 2));
  }
  if (c === /* $ */ 36) {
    const close = dollarQuoteClose(s, i);
    if (close >= 0) return { start: s.indexOf("$", i + 1) + 1, end: close, quoted: true };
  }
  // ODBC's braces quote a field's value, `;` included (`Pwd={a;b}`); `}}` is a `}` inside.
  if (ending === "field" && c === /* { */ 123) {
    return quotedTo(s, i + 1, bracedFieldClose(s, i + 1));
  }
  return undefined;
}

/** Where a URL parameter's unquoted value ends: whitespace, `&`, `;` or `#`. */
const parameterEnd = firstOfClass(/[\x00-\x20&;#]/g);
/** Where a connection-string field's unquoted value ends: `;` or a control character. */
const fieldEnd = firstOfClass(/[\x00-\x1f;]/g);
/**
 * Where the line going on at `i` ends: a quote never closes past it (lines are statements; a quote
 * left open on one line must not carry a value over the next line's keys in a text of several).
 */
const lineEnd = firstOfClass(/[\n\r]/g);

/**
 * Where a value whose quote opened before `from` ends when the quote does not close on its line
 * (`close`: where it closes, -1 if never): at the line's end; -1 when it closes on its line.
 */
function openQuoteEnd(s: string, from: number, close: number): number {
  const eol = lineEnd(s, from);
  return close < 0 || close > eol ? eol : -1;
}

/**
 * The `}` that closes an ODBC braced value whose text starts at `i` (a `}}` pair is a `}` of the
 * text), or -1 if none on its line.
 */
function bracedFieldClose(s: string, i: number): number {
  const eol = lineEnd(s, i);
  for (let p = s.indexOf("}", i); p >= 0 && p < eol; p = s.indexOf("}", p + 2))
    if (s.charCodeAt(p + 1) !== /* } */ 125) return p;
  return -1;
}

/** The first `'` from `i` on its line that no backslash precedes and no `'` follows, or -1. */
function unescapedQuote(s: string, i: number): number {
  const eol = lineEnd(s, i);
  for (let p = s.indexOf("'", i); p >= 0 && p < eol; p = s.indexOf("'", p + 1)) {
    // SQL's doubled quote is a quote inside too.
    if (s.charCodeAt(p + 1) === /* ' */ 39) p++;
    else if (s.charCodeAt(p - 1) !== /* backslash */ 92) return p;
  }
  return -1;
}

/** The longest tag of a PostgreSQL dollar quote (`$tag$`) looked for. */
const DOLLAR_TAG_MAX = 64;

/**
 * Where the PostgreSQL dollar-quoted string opened at `i` (`$$v$$`, `$tag$v$tag$`) closes on its
 * line, or -1 (a `$` that opens no such string: `$HOME`, `$$`, a `$x$` never closed).
 */
function dollarQuoteClose(s: string, i: number): number {
  let e = i + 1;
  const limit = Math.min(s.length, i + DOLLAR_TAG_MAX);
  if (s.charCodeAt(e) !== /* $ */ 36) {
    if (!isLetter(s.charCodeAt(e)) && s.charCodeAt(e) !== /* _ */ 95) return -1;
    while (e < limit && (isAlnum(s.charCodeAt(e)) || s.charCodeAt(e) === /* _ */ 95)) e++;
    if (s.charCodeAt(e) !== /* $ */ 36) return -1;
  }
  const tag = s.slice(i, e + 1);
  const close = s.indexOf(tag, e + 1);
  return close > e + 1 && close < lineEnd(s, e) ? close : -1;
}

/** The longest type name of a dumper's note read before a value (`(map[string]interface {})`). */
const TYPE_NOTE_MAX = 64;

/**
 * A value a dumper writes after a note of its type, at `i` (`c`: the code there), with the note as
 * its properties (masked too: it gives the secret's length, and what looks like a note may be the
 * secret); undefined when there is none. go-spew: `(string) (len=12) "v"`, `(int) 5`, and a
 * pointer's `(*string)(0xc000010250)((len=12) "v")`, masked whole inside the outer parentheses;
 * PHP's `var_dump`: `string(12) "v"`.
 */
function notedValue(s: string, i: number, c: number, ending: Ending): ValueSpan | null | undefined {
  if (ending !== "word") return undefined;
  let e = -1;
  if (c === /* ( */ 40) {
    // `(` type `)`: a name with `*`, `.`, `[`, `]` (`*main.Config`, `[]uint8`, `map[string]int`), or
    // anything else without blanks or parentheses (the note is masked as well).
    e = i + 1;
    const limit = Math.min(s.length, i + TYPE_NOTE_MAX);
    while (e < limit && isTypeChar(s.charCodeAt(e))) e++;
    if (e === i + 1 || s.charCodeAt(e) !== /* ) */ 41) return undefined;
    e++;
    if (wordAt(s, e, "(0x")) {
      // A pointer and its address; the value pointed to follows in parentheses.
      let p = e + 3;
      while (p < e + 32 && s.charCodeAt(p) !== /* ) */ 41 && !isSpace(s.charCodeAt(p))) p++;
      if (s.charCodeAt(p) !== /* ) */ 41 || s.charCodeAt(p + 1) !== /* ( */ 40) return undefined;
      // Masked whole inside the note's `(` and the value's `)`, which stay, as a structure's brackets do.
      return quotedTo(s, i + 1, structureClose(s, p + 1));
    }
  } else if (c === /* s */ 115 && wordAt(s, i, "string(")) {
    e = i + 7;
    while (e < i + 24 && isTypeChar(s.charCodeAt(e))) e++;
    if (e === i + 7 || s.charCodeAt(e) !== /* ) */ 41) return undefined;
    e++;
  } else return undefined;
  let v = skipBlanks(s, e);
  if (v === e) return undefined;
  if (wordAt(s, v, "(len=")) {
    // go-spew's length (and a slice's capacity: `(len=3 cap=4)`).
    let p = v + 5;
    while (p < v + 32 && (isTypeChar(s.charCodeAt(p)) || s.charCodeAt(p) === /* space */ 32)) p++;
    if (s.charCodeAt(p) !== /* ) */ 41) return undefined;
    v = skipBlanks(s, p + 1);
  }
  // A dumped value: quoted (in any of the quote's forms), a number, a structure; not an arrow, a
  // word or the line's end.
  if (!DUMPED_VALUE_STARTS.includes(s[v] ?? "") && !isQuote(s.charCodeAt(v))) return undefined;
  const value = valueAt(s, v);
  if (value !== null) value.properties = { start: i, end: blankBefore(s, v) };
  return value;
}

/** How a dumped value after a type note may start, besides a quote: an escaped or encoded quote, a digit, a structure. */
const DUMPED_VALUE_STARTS = "\\%&0123456789{[";

/**
 * What a type note holds between its parentheses: no blank, no parenthesis, no placeholder (a
 * value masked in its parentheses is a value, so redacting again changes nothing).
 */
const isTypeChar = (c: number): boolean =>
  !isSpace(c) && c !== /* ( */ 40 && c !== /* ) */ 41 && !isPlaceholder(c);

const isOpening = (c: number): boolean => c === /* { */ 123 || c === /* [ */ 91 || c === /* ( */ 40;
export const isClosing = (c: number): boolean => c === /* } */ 125 || c === /* ] */ 93 || c === /* ) */ 41;

/**
 * Where the structure opened at `i` (`{`, `[` or `(`) closes, or -1 if not on its line: brackets
 * nest (any kind closes any: a value is masked, not validated), and a quoted string inside is
 * skipped to its close at the same escaping depth, so a bracket in it counts for nothing; a quote
 * not closed on the line leaves the structure open. One pass: each character is looked at once.
 */
export function structureClose(s: string, i: number): number {
  const eol = lineEnd(s, i);
  let depth = 0;
  for (let p = i; p < eol; p++) {
    const c = s.charCodeAt(p);
    if (isOpening(c)) depth++;
    else if (isClosing(c)) {
      if (--depth === 0) return p;
    } else if (mayOpenString(c)) {
      const close = stringClose(s, p, i);
      if (close === -2) {
        // A bracket after a backslash may be escaped: the reading that masks more counts it for nothing.
        const next = s.charCodeAt(p + 1);
        if (c === /* backslash */ 92 && (isOpening(next) || isClosing(next))) p++;
        continue;
      }
      if (close < 0 || close > eol) return -1;
      p = pastQuote(s, close) - 1;
    }
  }
  return -1;
}

/** Whether a string may open at a character `c`: a quote, or the first of one escaped or encoded. */
export const mayOpenString = (c: number): boolean =>
  isQuote(c) || c === /* backslash */ 92 || c === /* % */ 37 || c === /* & */ 38;

/**
 * Where the string opened at `p` closes, its quote in any form: plain after any number of
 * backslashes (counted from `from`), or written as an escape or an encoding (`\\u0022`, `&quot;`,
 * `%22`; a quote inside a string at any depth counts for nothing). -1 if it does not close, -2 if no
 * string opens at `p`.
 */
export function stringClose(s: string, p: number, from: number): number {
  const c = s.charCodeAt(p);
  return isQuote(c)
    ? closingQuote(s, p + 1, c, p - backslashesBefore(s, p, from))
    : quoteWordClose(s, p, from);
}

/**
 * Where the string opened by a quote written as a word at `p` closes (`\u0022` after any number of
 * backslashes, not before `from`; `%22`, `&quot;` and the other encodings): -1 if it does not, -2
 * if no such quote opens at `p`.
 */
function quoteWordClose(s: string, p: number, from: number): number {
  if (s.charCodeAt(p) === /* backslash */ 92) {
    if (s.charCodeAt(p - 1) === /* backslash */ 92) return -2;
    let q = p;
    while (s.charCodeAt(q) === /* backslash */ 92) q++;
    const w = quoteWordLength(s, q);
    return w > 0
      ? closingQuoteWord(s, q + w, s.slice(q, q + w).toLowerCase(), q - backslashesBefore(s, q, from))
      : -2;
  }
  const w = ENCODED_QUOTES.find((e) => wordAt(s, p, e));
  return w === undefined ? -2 : indexOfWord(s, w, p + w.length);
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
 * The index returned is where the backslashes start, so a value ends there. -1 if none.
 */
export function closingQuote(s: string, i: number, q: number, k: number): number {
  const quote = String.fromCharCode(q);
  let at = s.indexOf(quote, i);
  while (at >= 0) {
    const b = backslashesBefore(s, at, i);
    if (k === 0 ? (at - b) % 2 === 0 : at - b === k) return b;
    at = s.indexOf(quote, at + 1);
  }
  return -1;
}

/** `closingQuote` for a quote written as an escape (`\\u0022` opened with `k` backslashes, `word` in lower case). */
export function closingQuoteWord(s: string, i: number, word: string, k: number): number {
  for (let at = indexOfWord(s, word, i); at >= 0; at = indexOfWord(s, word, at + 1)) {
    const b = backslashesBefore(s, at, i);
    if (at - b === k) return b;
  }
  return -1;
}

/** Where the run of backslashes that ends at `at` starts (not before `from`). */
function backslashesBefore(s: string, at: number, from: number): number {
  let b = at;
  while (b > from && s.charCodeAt(b - 1) === /* backslash */ 92) b--;
  return b;
}

/** Index past the quote (a character, an escape or an encoding) whose close was found at `b`. */
export function pastQuote(s: string, b: number): number {
  while (s.charCodeAt(b) === /* backslash */ 92) b++;
  const c = s.charCodeAt(b);
  if (isQuote(c)) return b + 1;
  const w = quoteWordLength(s, b) || (ENCODED_QUOTES.find((q) => wordAt(s, b, q))?.length ?? 0);
  return b + Math.max(1, w);
}

/** Where the shell command going on at `i` ends: at its `;`, `&`, `|` or newline (or the end). */
export const commandEnd = firstOfClass(/[;&|\n]/g);

/** Quotes, the backslash and `$`, searched natively: where a shell word's scan must look closer. */
const nextQuoteOrEscape = firstOfClass(/["'`\\$]/g);

/**
 * `nextQuoteOrEscape` with the next few characters looked at here first: in a word they are
 * usually near (`"api_key":"…`), and a native search costs a call.
 */
function quoteOrEscapeFrom(s: string, i: number): number {
  const stop = Math.min(s.length, i + 16);
  for (; i < stop; i++) {
    const c = s.charCodeAt(i);
    if (isQuote(c) || c === /* backslash */ 92 || c === /* $ */ 36) return i;
  }
  return i >= s.length ? s.length : nextQuoteOrEscape(s, i);
}

/**
 * How far a command substitution or parameter expansion (`$(…)`, `${…}`) is looked into for its
 * close: one holding a secret is short (`$(echo v)`, `${PW:-v}`), and a bound keeps a line of
 * unclosed ones (`-u $(a -u $(a …`) linear.
 */
const SUBSTITUTION_MAX = 64;

/**
 * Index of the `)` or `}` that closes a substitution whose body starts at `i` (`open`: the code of
 * `(` or `{`), counting nested ones and skipping quoted segments and escapes; -1 if none within
 * `SUBSTITUTION_MAX`.
 */
function substitutionEnd(s: string, i: number, open: number): number {
  const close = open === /* ( */ 40 ? /* ) */ 41 : /* } */ 125;
  const stop = Math.min(s.length, i + SUBSTITUTION_MAX);
  let depth = 1;
  for (let j = i; j < stop; j++) {
    const c = s.charCodeAt(j);
    if (c === open) depth++;
    else if (c === close && --depth === 0) return j;
    else if (c === /* backslash */ 92) j++;
    else if (isQuote(c)) {
      const q = closingQuote(s, j + 1, c, 0);
      if (q < 0 || q >= stop) return -1;
      j = pastQuote(s, q) - 1;
    }
  }
  return -1;
}

/**
 * End of a shell word starting at `i`: the first whitespace neither quoted nor escaped. Quoted
 * segments, backslash escapes, command substitutions and parameter expansions belong to the word,
 * so `'ab'"c d"ef`, `ab\\ cd`, `$(printf a b)` and SQL's doubled quote `'it''s'` are each one
 * word; a quote not closed on its line runs to the line's end. Whether the word sits in text
 * escaped again (JSON in JSON) cannot be told here, so the reading that takes more is taken:
 * a quote after backslashes (`\\"`, `\\u0022`) opens a segment that closes at the same depth, and
 * backslashes escape the character after them, whitespace too.
 */
export function wordEnd(s: string, i: number): number {
  const n = s.length;
  // Most words are short and plain: a few characters looked at here first.
  for (const stop = Math.min(n, i + 16); i < stop; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) return i;
    if (isQuote(c) || c === /* backslash */ 92 || c === /* $ */ 36) break;
  }
  if (i >= n) return n;
  for (;;) {
    const space = spaceFrom(s, i);
    let q = i < n ? quoteOrEscapeFrom(s, i) : n;
    if (q >= space) return space;
    if (s.charCodeAt(q) === /* $ */ 36) {
      // `$(…)` and `${…}` belong to the word whatever they hold (`$(echo a b)`); an unclosed `$` is a character.
      const open = s.charCodeAt(q + 1);
      const close = open === /* ( */ 40 || open === /* { */ 123 ? substitutionEnd(s, q + 2, open) : -1;
      i = close >= 0 ? close + 1 : q + 1;
      if (i >= n) return n;
      continue;
    }
    const first = q;
    while (s.charCodeAt(q) === /* backslash */ 92) q++;
    const c = s.charCodeAt(q);
    let close = -2;
    if (isQuote(c)) close = closingQuote(s, q + 1, c, q - first);
    else if (q > first && (c === /* u */ 117 || c === /* x */ 120)) {
      const w = quoteWordLength(s, q);
      if (w > 0) close = closingQuoteWord(s, q + w, s.slice(q, q + w).toLowerCase(), q - first);
    }
    if (close !== -2) {
      const open = openQuoteEnd(s, q, close);
      if (open >= 0) return open;
    }
    i = close >= 0 ? pastQuote(s, close) : q + 1;
    if (i >= n) return n;
  }
}

/**
 * Whether a shell operator starts at `i`: a redirection, a pipe or the end of a command (`<`,
 * `<<<`, `<(`, `>`, `|`, `&&`, `;`; `&` but not an HTML reference's, `&quot;`), or a redirection of a
 * numbered descriptor (`2>&1`, `0<in`). Never a flag's value.
 */
export function isOperatorAt(s: string, i: number): boolean {
  let k = i;
  while (k < i + 3 && s.charCodeAt(k) >= /* 0 */ 48 && s.charCodeAt(k) <= /* 9 */ 57) k++;
  const c = s.charCodeAt(k);
  if (k > i) return c === /* < */ 60 || c === /* > */ 62;
  if (c === /* & */ 38) {
    const d = s.charCodeAt(i + 1);
    return !isAlnum(d) && d !== /* # */ 35;
  }
  return c === /* < */ 60 || c === /* > */ 62 || c === /* | */ 124 || c === /* ; */ 59;
}

/** What closes a structure around a value: a word stops at it after a closing quote. */
const STRUCTURE = new Uint8Array(128);
for (const c of ",;&|)]}<>") STRUCTURE[c.charCodeAt(0)] = 1;

/**
 * Whether a word goes on at `i`, right after a closing quote (`'ab'cd`, `'ab'"cd"`, `'it''s'`):
 * not at whitespace, the end, or the punctuation that closes a structure around the value
 * (`,;&|)]}<>`, `/>`).
 */
export function wordGoesOn(s: string, i: number): boolean {
  if (i >= s.length) return false;
  const c = s.charCodeAt(i);
  if (isSpace(c) || STRUCTURE[c] === 1) return false;
  return !(c === /* slash */ 47 && s.charCodeAt(i + 1) === /* > */ 62);
}

/**
 * Index past an optional quote (`"`, `'` or `\\"`) at `i`, with the quote's code and escaping depth
 * (backslashes before it); code 0 when there is none.
 */
export function optionalQuote(s: string, i: number): [number, number, number] {
  const c = s.charCodeAt(i);
  if (c === /* " */ 34 || c === /* ' */ 39) return [i + 1, c, 0];
  if (c === /* backslash */ 92 && s.charCodeAt(i + 1) === /* " */ 34) return [i + 2, 34, 1];
  return [i, 0, 0];
}

/**
 * After a key from `ks` to `ke`: the value it names, in any of the grammar's forms, or null. A key
 * right after `?`, `&` or `#` is a URL parameter: its unquoted value ends where the parameter
 * does (at `&`, `;` or `#`), so the next parameter is neither masked nor taken with it. A key right
 * after `;` is a field of a connection string (or a parameter): its value runs to the next `;`,
 * spaces included, the reading that masks more.
 * `flag`: the key is a command-line flag (`--db-pass v`); whitespace separates it from its value.
 * `secret`: judges the key once a value is there, before its end is looked for (null if it fails).
 */
export function valueAfterKey(
  s: string,
  ks: number,
  ke: number,
  flag: boolean,
  secret?: KeyJudge,
): ValueSpan | null {
  const ending = endingAfter(s, ks);
  const closed = keyCloseEnd(s, ks, ke);
  const j = skipBlanks(s, closed);
  const sep = separatorEnd(s, j);
  if (sep >= 0) return separatedValue(s, ks, ke, closed, j, sep, ending, secret);
  return unseparatedValue(s, ks, ke, flag, closed, j, ending, secret);
}

/** The longest string `plainValueAfterKey` reads; a longer one is `valueAfterKey`'s. */
const PLAIN_STRING_MAX = 256;

/**
 * `valueAfterKey` for the forms most keys are written in, read in a few steps: a bare key after a
 * space or a JSON key (`token: v`, `password=v`, `"token":"v"`), then `:` or `=` and blanks; then a
 * plain word or a double-quoted string without escapes or line breaks, ending where no word goes
 * on. Undefined where anything else may follow (a declaration's `=`, a triple quote, an escape, a
 * word that `otherValueAt` may read…): `valueAfterKey` reads those. Where this answers, it is
 * `valueAfterKey`'s answer (a test compares the two over the grammar), in a fraction of the time,
 * which a flood of keys spends mostly here.
 */
export function plainValueAfterKey(
  s: string,
  ks: number,
  ke: number,
  secret: KeyJudge,
): ValueSpan | null | undefined {
  const before = s.charCodeAt(ks - 1);
  /** Where the separator is. */
  let at = ke;
  if (before === /* " */ 34) {
    // A JSON key: not a PHP property's (`["password":protected]`) nor an escaped quote's.
    const p = s.charCodeAt(ks - 2);
    if (s.charCodeAt(ke) !== /* " */ 34 || p === /* [ */ 91 || p === /* backslash */ 92) return undefined;
    at = ke + 1;
  } else if (before !== /* space */ 32) return undefined;
  const colon = s.charCodeAt(at) === /* : */ 58;
  if (!colon && s.charCodeAt(at) !== /* = */ 61) return undefined;
  // (`:=`, `=>`, `==`: what follows starts no plain value.)
  const v = skipBlanks(s, at + 1);
  const c = s.charCodeAt(v);
  if (c === /* " */ 34) {
    if (s.charCodeAt(v + 1) === /* " */ 34) {
      // A triple quote's string is `valueAfterKey`'s; an empty one is nothing, unless its shell
      // word goes on (`""v`, quotes and all).
      if (s.charCodeAt(v + 2) === /* " */ 34) return undefined;
      if (!secret(s, ks, ke) || !wordGoesOn(s, v + 2)) return null;
      return { start: v, end: wordEnd(s, v + 2), quoted: true };
    }
    if (!secret(s, ks, ke)) return null;
    const stop = Math.min(s.length, v + 1 + PLAIN_STRING_MAX);
    let close = v + 1;
    for (; close < stop; close++) {
      const x = s.charCodeAt(close);
      if (x === /* " */ 34) break;
      if (x === /* backslash */ 92 || x === /* \n */ 10 || x === /* \r */ 13) return undefined;
    }
    if (close === stop || wordGoesOn(s, close + 1)) return undefined;
    return { start: v + 1, end: close, quoted: true };
  }
  if (!isAlnum(c) || OTHER_OPENINGS[c] === 1) return undefined;
  if (!secret(s, ks, ke)) return null;
  const end = wordEnd(s, v);
  // `password: str = "v"`: a declaration, its type read first.
  if (colon) {
    const eq = skipBlanks(s, end);
    if (eq > end && s.charCodeAt(eq) === /* = */ 61) return undefined;
  }
  return { start: v, end, quoted: false };
}

/** How the value of the key at `ks` ends, by what comes before the key (see `valueAfterKey`). */
function endingAfter(s: string, ks: number): Ending {
  let before = s.charCodeAt(ks - 1);
  if (before === /* ; */ 59) {
    // A key quoted as HTML writes it (`&quot;password&quot;`): that `;` is the entity's.
    const quote = quoteBefore(s, ks);
    if (quote >= 0) before = s.charCodeAt(quote - 1);
  }
  if (before === /* ; */ 59) return "field";
  return before === /* ? */ 63 || before === /* & */ 38 || before === /* # */ 35 ? "parameter" : "word";
}

/** Index past what closes the key from `ks` to `ke`: its decorations, and a PHP property's visibility. */
function keyCloseEnd(s: string, ks: number, ke: number): number {
  const close = skipKeyClose(s, ke);
  return s.charCodeAt(close) === /* : */ 58 && mayOpenProperty(s, ks) ? visibilityEnd(s, ks, close) : close;
}

/** `valueAfterKey`'s value after the separator that runs from `j` to `sep`. */
function separatedValue(
  s: string,
  ks: number,
  ke: number,
  closed: number,
  j: number,
  sep: number,
  ending: Ending,
  secret: KeyJudge | undefined,
): ValueSpan | null {
  const assigned = closed === ke && sep === ke + 1 && s.charCodeAt(ke) === /* = */ 61;
  const colon = sep === j + 1 && s.charCodeAt(j) === /* : */ 58;
  const v = skipBlanks(s, sep);
  // A value on the lines after its key (a here-document, `password = <<EOT`; YAML's `password:\n  v`,
  // `password: |`), once the key is judged: the lines of a key that names no secret may hold many
  // more such keys.
  if (ending === "word" && mayOpenLaterLines(s, v, colon) && (secret === undefined || secret(s, ks, ke))) {
    const lines = laterLinesValue(s, ks, v, colon);
    if (lines !== null) return lines;
  }
  const properties = ending === "word" ? nodePropertiesEnd(s, v) : v;
  let value = judgedValueAt(s, properties, ending, secret, ks, ke);
  if (value !== null && properties > v) value.properties = { start: v, end: blankBefore(s, properties) };
  else if (colon && value !== null && !value.quoted && ending === "word") value = declaredValue(s, value);
  // `-e "PGPASSWORD=a b"`: an assignment that opens a quoted string is valued to its close.
  // (A value already masked whole, one marker, stays as it is: redacting again changes nothing.)
  if (
    assigned &&
    value !== null &&
    !value.quoted &&
    ending === "word" &&
    !isOneMark(s, value.start, value.end)
  )
    value.end = assignmentEnd(s, ks, value.start, value.end);
  return value;
}

/** `valueAfterKey`'s value where no separator follows the key (closed at `closed`, blanks to `j`). */
function unseparatedValue(
  s: string,
  ks: number,
  ke: number,
  flag: boolean,
  closed: number,
  j: number,
  ending: Ending,
  secret: KeyJudge | undefined,
): ValueSpan | null {
  // A flag before another (`--password --verbose`): no value, and no other form either.
  if (flag && closed === ke && j > ke && s.charCodeAt(j) === /* - */ 45) return null;
  // XML/HTML element: `<password>v</password>`, `<password type="x">v<`, its name in a namespace
  // or not (`<wsse:Password>`, `&lt;ns2:password&gt;`).
  const tag = namespaceStart(s, ks);
  if (s.charCodeAt(tag - 1) === /* < */ 60 && closed === ke) return elementText(s, ke, secret, ks, ke);
  const escaped = escapedElementText(s, tag, ks, ke, secret);
  if (escaped !== undefined) return escaped;
  if (j > closed || closed > ke) {
    const c = s.charCodeAt(j);
    // SQL and prose: `PASSWORD 'v'`, `password "v"`; not a quoted key that a separator follows
    // (`chpasswd "password"= "v"`: the value is that key's).
    if (j > closed && (isQuote(c) || isSqlStringAt(s, j, c))) {
      // The key is judged before the quote's close is looked for (keys inside a long value).
      if (secret !== undefined && !secret(s, ks, ke)) return null;
      const close = isQuote(c) ? closingQuote(s, j + 1, c, 0) : -1;
      if (close >= 0 && separatorEnd(s, skipBlanks(s, close + 1)) >= 0) return null;
      return judgedValueAt(s, j, ending, undefined, ks, ke);
    }
    // A name/value pair: `name="password" value="v"`, `{"name":"DB_PASS","value":"v"}`.
    if (closed > ke) {
      let v = j;
      if (s.charCodeAt(v) === /* , */ 44) v = skipBlanks(s, v + 1);
      // A quoted flag in a list, its value the next item: `["--db-pass", "v"]`, `['--token', 'v']`;
      // a call's first argument, its value the second: `setProperty("db.password", "v")`.
      const call = !flag && v > j && isFirstArgument(s, ks);
      if ((flag || call) && v > j && (secret === undefined || secret(s, ks, ke))) {
        const item = valueAt(s, v, ending);
        if (item?.quoted && (call || s.charCodeAt(item.start) !== /* - */ 45)) return item;
      }
      v = skipKeyClose(s, v);
      if (wordAt(s, v, "value") && !isAlnum(s.charCodeAt(v + 5))) {
        const after = skipBlanks(s, skipKeyClose(s, v + 5));
        const sep2 = separatorEnd(s, after);
        if (sep2 >= 0) return judgedValueAt(s, skipBlanks(s, sep2), ending, secret, ks, ke);
      }
      // An element named by an attribute, its text the value: `<entry key="db.password">v</entry>`.
      if (isAttributeValue(s, ks)) return elementText(s, j, secret, ks, ke);
    }
    // A flag and its value: `--db-pass v` (a following flag is not a value).
    if (flag && j > closed && c !== /* - */ 45 && !isOperatorAt(s, j))
      return judgedValueAt(s, j, ending, secret, ks, ke);
  }
  if (closed === ke) {
    // A call of a secret-named function, its first argument a string (`setPassword("v")`, a
    // builder's `.password("v")`, `withToken('v')`, `verifyToken(\"v\")`).
    if (s.charCodeAt(ke) === /* ( */ 40) {
      const argument = valueAt(s, skipBlanks(s, ke + 1));
      if (argument?.quoted && (secret === undefined || secret(s, ks, ke))) return argument;
    }
    // A pair whose first item is the key, bare (Erlang's `{password, "v"}`): its second, a string.
    if (s.charCodeAt(j) === /* , */ 44 && isPairOpening(s.charCodeAt(blankBefore(s, ks) - 1))) {
      const item = valueAt(s, skipBlanks(s, j + 1));
      if (item?.quoted && (secret === undefined || secret(s, ks, ke))) return item;
    }
  }
  // An unquoted name/value pair, as Go, YAML's flow style and Java print a Kubernetes EnvVar:
  // `{Name:DB_PASSWORD Value:v}`, `&EnvVar{Name:DB_PASSWORD,Value:v,}`, `{name: DB_PASSWORD,
  // value: v}`, `EnvVar(name=API_KEY, value=v)`.
  if (closed === ke && isNamed(s, ks)) {
    let v = j;
    if (s.charCodeAt(v) === /* , */ 44) v = skipBlanks(s, v + 1);
    if (wordAt(s, v, "value") && !isKeyChar(s.charCodeAt(v + 5))) {
      const sep2 = separatorEnd(s, skipBlanks(s, v + 5));
      if (sep2 >= 0) return judgedValueAt(s, skipBlanks(s, sep2), ending, secret, ks, ke);
    }
  }
  return null;
}

/** Whether the key at `ks` is the value of a `name` (`Name:`, `name: `, `name=`) before it. */
function isNamed(s: string, ks: number): boolean {
  const sep = blankBefore(s, ks) - 1;
  if (s.charCodeAt(sep) !== /* : */ 58 && s.charCodeAt(sep) !== /* = */ 61) return false;
  const p = blankBefore(s, sep);
  return p >= 4 && wordAt(s, p - 4, "name") && !isKeyChar(s.charCodeAt(p - 5));
}

/**
 * Where the quote that opens a key at `ks` starts, in any of its forms (`"`, `\\"`, `\\u0022`,
 * `%22`, `&quot;`, with the backslashes before it), or -1 if no quote ends at `ks`.
 */
function quoteBefore(s: string, ks: number): number {
  let q = -1;
  if (isQuote(s.charCodeAt(ks - 1))) q = ks - 1;
  else {
    for (const w of QUOTE_WORDS)
      if (s.charCodeAt(ks - w.length - 1) === /* backslash */ 92 && wordAt(s, ks - w.length, w))
        q = ks - w.length;
    if (q < 0)
      for (const w of ENCODED_QUOTES) if (ks >= w.length && wordAt(s, ks - w.length, w)) return ks - w.length;
  }
  return q < 0 ? -1 : backslashesBefore(s, q, Math.max(0, q - 16));
}

/**
 * Whether the quoted key at `ks` is the first argument of a call (`config.set('password', …)`,
 * `os.Setenv("DB_PASSWORD", …)`) or the first item of a pair (C's `{"DB_PASSWORD", "v"}`): its
 * opening quote, in any form, follows a `(` or a `{`.
 */
function isFirstArgument(s: string, ks: number): boolean {
  const q = quoteBefore(s, ks);
  return q >= 0 && isPairOpening(s.charCodeAt(blankBefore(s, q) - 1));
}

/** What opens a call's arguments or a pair (`("password", "v")`, `{"DB_PASSWORD", "v"}`). */
const isPairOpening = (c: number): boolean => c === /* ( */ 40 || c === /* { */ 123;

/** The longest YAML tag or anchor read before a value. */
const NODE_PROPERTY_MAX = 64;

/**
 * Past YAML's node properties at `j`, a tag (`!`, `!!str`, `!<tag:yaml.org,2002:str>`) and an anchor
 * (`&name`), in either order, each followed by blanks and then more: `j` itself when there are none.
 */
function nodePropertiesEnd(s: string, j: number): number {
  for (let n = 0; n < 2; n++) {
    const c = s.charCodeAt(j);
    if (c !== /* ! */ 33 && c !== /* & */ 38) return j;
    let e = j + 1;
    const limit = Math.min(s.length, j + NODE_PROPERTY_MAX);
    // A property is its whole word, escapes included (`&a\\t!!str`, escaped once). An anchor holds
    // no `;` (`&quot;`, `&#34;` are quotes) and is not `&&`; the property must end in a blank.
    while (e < limit && !isSpace(s.charCodeAt(e)) && (c === /* ! */ 33 || isAnchorChar(s.charCodeAt(e)))) e++;
    if (
      (c === /* & */ 38 && e === j + 1) ||
      (s.charCodeAt(e) !== /* space */ 32 && s.charCodeAt(e) !== /* tab */ 9)
    )
      return j;
    const next = skipBlanks(s, e);
    // Not before `=`: Rust's `password: &str = "v"` declares a type.
    if (next >= s.length || isSpace(s.charCodeAt(next)) || s.charCodeAt(next) === /* = */ 61) return j;
    j = next;
  }
  return j;
}

const isAnchorChar = (c: number) => c !== /* ; */ 59 && c !== /* & */ 38;

/**
 * Index past the visibility PHP's dumps write inside a property's brackets, after its name and
 * quote at the `:` at `i` (`["password":protected]`, `["password":"App\\User":private]` from `var_dump`,
 * `[password:App\\User:private]` from `print_r`); `i` itself when there is none.
 */
function visibilityEnd(s: string, ks: number, i: number): number {
  // The bracket before the key, or before its opening quote in any form (`"`, `\\u0022`, `%22`, `&quot;`).
  const quote = quoteBefore(s, ks);
  if (s.charCodeAt((quote < 0 ? ks : quote) - 1) !== /* [ */ 91) return i;
  let e = i + 1;
  const limit = Math.min(s.length, e + TYPE_NOTE_MAX);
  while (e < limit && s.charCodeAt(e) !== /* ] */ 93 && !isSpace(s.charCodeAt(e))) e++;
  if (s.charCodeAt(e) !== /* ] */ 93) return i;
  const visible = (word: string): boolean =>
    e - word.length > i &&
    s.charCodeAt(e - word.length - 1) === /* : */ 58 &&
    wordAt(s, e - word.length, word);
  return visible("protected") || visible("private") ? e + 1 : i;
}

/**
 * The value of a declaration whose type annotation was read as the value after `:` (`password: str
 * = "v"`, Kotlin's `val password: String = "v"`, Rust's `let password: &str = "v"`): the value after
 * `=`, with the annotation as its properties (masked too: it may be the secret itself); the
 * annotation itself when no `=` (not `==` or `=>`) and value follow.
 */
function declaredValue(s: string, annotation: ValueSpan): ValueSpan {
  const eq = skipBlanks(s, annotation.end);
  if (eq === annotation.end || s.charCodeAt(eq) !== /* = */ 61) return annotation;
  const d = s.charCodeAt(eq + 1);
  if (d === /* = */ 61 || d === /* > */ 62) return annotation;
  const v = skipBlanks(s, eq + 1);
  const value = v > eq + 1 ? valueAt(s, v) : null;
  if (value === null) return annotation;
  value.properties = { start: annotation.start, end: annotation.end };
  return value;
}

/**
 * Whether a PostgreSQL string constant other than a plain quoted one starts at `i` (`c`: the code
 * there): dollar-quoted (`$$v$$`, `$tag$v$tag$`), with escapes (`E'v'`) or Unicode escapes (`U&'v'`).
 */
function isSqlStringAt(s: string, i: number, c: number): boolean {
  if (c === /* $ */ 36) return dollarQuoteClose(s, i) >= 0;
  const l = c | 0x20;
  if (l === /* e */ 101) return s.charCodeAt(i + 1) === /* ' */ 39;
  return l === /* u */ 117 && s.charCodeAt(i + 1) === /* & */ 38 && s.charCodeAt(i + 2) === /* ' */ 39;
}

/**
 * Whether a PHP property's brackets may open before the key at `ks`: right before it, before its
 * quote (`["password"`), or before a quote escaped or encoded (`[\\"password`, `[\\u0022password`,
 * `[&quot;password`), which `visibilityEnd` reads closer. A JSON key's quote after `{` or `,` is none.
 */
function mayOpenProperty(s: string, ks: number): boolean {
  const b = s.charCodeAt(ks - 1);
  if (b === /* [ */ 91) return true;
  if (isQuote(b)) {
    const p = s.charCodeAt(ks - 2);
    return p === /* [ */ 91 || p === /* backslash */ 92;
  }
  return b === /* 2 */ 50 || b === /* 7 */ 55 || b === /* ; */ 59;
}

/** The end of the non-blank text before the blanks that end at `i`. */
function blankBefore(s: string, i: number): number {
  while (i > 0 && (s.charCodeAt(i - 1) === /* space */ 32 || s.charCodeAt(i - 1) === /* tab */ 9)) i--;
  return i;
}

/**
 * The text of an element whose start tag goes on at `i` (`<password type="x">v<`): up to the next
 * `<`, if the tag closes within 256 characters and is not empty (`/>`).
 */
function elementText(
  s: string,
  i: number,
  secret: KeyJudge | undefined,
  ks: number,
  ke: number,
): ValueSpan | null {
  let gt = i;
  const limit = Math.min(s.length, i + 256);
  while (gt < limit && s.charCodeAt(gt) !== /* > */ 62 && s.charCodeAt(gt) !== /* < */ 60) gt++;
  if (s.charCodeAt(gt) !== /* > */ 62 || s.charCodeAt(gt - 1) === /* slash */ 47) return null;
  if (secret !== undefined && !secret(s, ks, ke)) return null;
  // `<password><![CDATA[v]]></password>`: the section whole, markup included.
  const text = skipBlanks(s, gt + 1);
  if (wordAt(s, text, "<![cdata[")) {
    const close = s.indexOf("]]>", text + 9);
    return { start: gt + 1, end: close < 0 ? s.length : close + 3, quoted: true };
  }
  const lt = s.indexOf("<", gt + 1);
  const end = lt < 0 ? s.length : lt;
  return end > gt + 1 ? { start: gt + 1, end, quoted: true } : null;
}

/**
 * Where an element's name holding the key at `ks` starts: at its namespace prefix when one is
 * there (`wsse:` in `<wsse:Password>`: a name of up to 32 characters and a colon), else at `ks`.
 */
function namespaceStart(s: string, ks: number): number {
  if (s.charCodeAt(ks - 1) !== /* : */ 58) return ks;
  let p = ks - 1;
  const stop = Math.max(0, p - 32);
  // The prefix's characters, back to the tag's `<` (JSON's `\u003c` holds key characters).
  while (p > stop && isKeyChar(s.charCodeAt(p - 1)) && !(p >= 6 && isEscapedLtAt(s, p - 5))) p--;
  return p < ks - 1 ? p : ks;
}

/** `<` and `>` escaped, as JSON and as HTML write them: their letters, any case, searched natively. */
const ESCAPED_ANGLES = {
  json: { nextOpen: firstMatch(/u003c/gi), nextClose: firstMatch(/u003e/gi), close: 5 },
  html: { nextOpen: firstMatch(/&lt;/gi), nextClose: firstMatch(/&gt;/gi), close: 4 },
};

/**
 * The text of an element whose `<` and `>` are escaped, as JSON writes them (`\u003cpassword\u003e`:
 * Go's and Gson's encoders always do) or HTML does (`&lt;password&gt;`): from its start tag's end
 * (within 256 characters, attributes allowed) up to the next `<` escaped the same way. `undefined`
 * when the key is no such element's name.
 */
function escapedElementText(
  s: string,
  tag: number,
  ks: number,
  ke: number,
  secret: KeyJudge | undefined,
): ValueSpan | null | undefined {
  const json = tag >= 6 && isEscapedLtAt(s, tag - 5);
  if (!json && !(tag >= 4 && wordAt(s, tag - 4, "&lt;"))) return undefined;
  const angles = json ? ESCAPED_ANGLES.json : ESCAPED_ANGLES.html;
  // The searches remember their last answer: the keys of a line of unclosed tags scan it once.
  const gt = angles.nextClose(s, ke);
  if (gt < 0 || gt >= ke + 256) return undefined;
  const tagEnd = json ? backslashesBefore(s, gt, ke) : gt;
  if (s.charCodeAt(tagEnd - 1) === /* slash */ 47) return null;
  if (secret !== undefined && !secret(s, ks, ke)) return null;
  const start = gt + angles.close;
  const next = angles.nextOpen(s, start);
  const end = next < 0 ? s.length : json ? backslashesBefore(s, next, start) : next;
  return end > start ? { start, end, quoted: true } : null;
}

/** The quote words (escaped and encoded), by the code of their last character. */
const QUOTE_WORDS_ENDING: string[][] = [];
for (const q of [...QUOTE_WORDS, ...ENCODED_QUOTES]) {
  const last = q.charCodeAt(q.length - 1);
  QUOTE_WORDS_ENDING[last] = [...(QUOTE_WORDS_ENDING[last] ?? []), q];
}

/** Whether the quoted key at `ks` is an attribute's value (`key="…"`, `name=\\"…`, `key=\\u0022…`). */
function isAttributeValue(s: string, ks: number): boolean {
  let b = ks;
  while (b > ks - 32) {
    const c = s.charCodeAt(b - 1);
    if (isQuote(c) || c === /* backslash */ 92) {
      b--;
      continue;
    }
    const w = QUOTE_WORDS_ENDING[c]?.find((q) => b >= q.length && wordAt(s, b - q.length, q));
    if (w === undefined) break;
    b -= w.length;
  }
  return b < ks && s.charCodeAt(b - 1) === /* = */ 61;
}

/**
 * Where the value of an assignment `KEY=v` (or `--flag=v`) starting at `ks` ends when a quoted string
 * opens right before it (`-e "PGPASSWORD=a b"`, `["--password=a b"]`, `\\"token=a b\\"`,
 * `\\u0022token=a b\\u0022`): at that string's close, spaces included, and on if the word goes on
 * past it (`"KEY=a"b`, then never before `end`, the end of its shell word); at the end of its line
 * if it is not closed there (as an unclosed quote in a word).
 */
export function assignmentEnd(s: string, ks: number, v: number, end: number): number {
  const q = s.charCodeAt(ks - 1);
  let close: number;
  if (isQuote(q)) {
    close = closingQuote(s, v, q, ks - 1 - backslashesBefore(s, ks - 1, Math.max(0, ks - 17)));
  } else {
    const word = QUOTE_WORDS_ENDING[q]?.find((w) => ks >= w.length && wordAt(s, ks - w.length, w));
    if (word === undefined) return end;
    const at = ks - word.length;
    const depth = at - backslashesBefore(s, at, Math.max(0, at - 16));
    // `\u0022` and `\x22` are escapes only after a backslash; `%22` and `&quot;` are quotes as written.
    const escaped = QUOTE_WORDS.includes(word);
    if (escaped && depth === 0) return end;
    close = escaped ? closingQuoteWord(s, v, word, depth) : indexOfWord(s, word, v);
  }
  const open = openQuoteEnd(s, v, close);
  if (open >= 0) return open;
  const after = pastQuote(s, close);
  if (!wordGoesOn(s, after)) return close;
  // A word going on past the close: which reading of the quotes is right cannot be told here, so
  // never shorter than the shell word.
  return Math.max(end, wordEnd(s, after));
}

/** Whether the key from `ks` to `ke` of `s` names what the caller masks. */
export type KeyJudge = (s: string, ks: number, ke: number) => boolean;

/**
 * `valueAt`, once the key is judged: where a value ends may be far (a shell word to the end of the
 * line), and the keys inside the long value of a key that names no secret (`author='a'author='a'…`)
 * would each find that end again.
 */
function judgedValueAt(
  s: string,
  at: number,
  ending: Ending,
  secret: KeyJudge | undefined,
  ks: number,
  ke: number,
): ValueSpan | null {
  if (at >= s.length || isSpace(s.charCodeAt(at))) return null;
  return secret === undefined || secret(s, ks, ke) ? valueAt(s, at, ending) : null;
}
