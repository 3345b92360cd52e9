/**
 * A key's value on the lines after it: YAML's (`password:` and then lines indented deeper than the
 * key's, or a compact list at its own indentation, `- v`; after a block scalar's header,
 * `password: |`, or a comment), a here-document (`password = <<EOT`) or a string in triple quotes
 * (`password = """`). Line breaks are real (`\n`, `\r\n`) or escaped at any depth, as a JSON
 * log field holding YAML writes them (`"msg":"password:\n  v"`); in escaped text a line also ends
 * where its string closes. Callers read a key's lines once it is judged a secret, and skip what
 * they mask: every scan here is bounded or moves forward.
 */
import type { ValueSpan } from "./grammar.ts";
import { isPlaceholder } from "./scan.ts";

/** How far back the start of the key's line is looked for; further, the key reads as unindented (the reading that masks more). */
const LINE_BACK = 512;
/** The longest comment read after a key or a block header. */
const COMMENT_MAX = 256;

/** The first characters `valueOnNextLines` reads a value from (a break, an escape, `|`, `>`, `#`, `-`, a tag's `!`, an anchor's `&`). */
const NEXT_LINE_OPENINGS = new Uint8Array(128);
for (const c of "\n\r\\|>#-!&") NEXT_LINE_OPENINGS[c.charCodeAt(0)] = 1;

/** Whether `valueOnNextLines` may read a value that starts with the code `c` (an earlier marker too). */
const opensNextLines = (c: number): boolean => (c < 128 ? NEXT_LINE_OPENINGS[c] === 1 : isPlaceholder(c));

const opensHereDocument = (s: string, v: number): boolean =>
  s.charCodeAt(v) === /* < */ 60 && s.charCodeAt(v + 1) === /* < */ 60;

/**
 * Whether a value on later lines may start at `v` (after a `:` when `colon`): a test of a character
 * or three before `laterLinesValue`, made for every value (a quoted one is no triple quote unless
 * its next two characters are the same quote).
 */
export function mayOpenLaterLines(s: string, v: number, colon: boolean): boolean {
  const c = s.charCodeAt(v);
  if (c === /* < */ 60) return opensHereDocument(s, v);
  if (c === /* " */ 34 || c === /* ' */ 39) return s.charCodeAt(v + 1) === c && s.charCodeAt(v + 2) === c;
  // An escaped triple quote (`\"\"\"`) or break; a real break after any separator (an INI file's
  // continued value, `password =\n    v`); after a `:`, YAML's headers and comments too.
  return c === BACKSLASH || c === /* \n */ 10 || c === /* \r */ 13 || (colon && opensNextLines(c));
}

/**
 * The value of the key at `ks` on the lines after it, its separator's blanks ending at `v`: a
 * here-document or a string in triple quotes after any separator, YAML's lines after a `:`
 * (`colon`); null when there is none.
 */
export function laterLinesValue(s: string, ks: number, v: number, colon: boolean): ValueSpan | null {
  if (opensHereDocument(s, v)) return hereDocumentValue(s, v);
  const opened = tripleQuoteEnd(s, v);
  if (opened >= 0) return tripleQuotedValue(s, opened);
  const c = s.charCodeAt(v);
  return (colon ? opensNextLines(c) : lineBreakAt(s, v, -1) >= 0) ? valueOnNextLines(s, ks, v) : null;
}

/**
 * Where three quotes that open a string at `v` end (TOML's and Python's `"""` and `'''`,
 * escaped alike at any depth, `\"\"\"`), or -1.
 */
function tripleQuoteEnd(s: string, v: number): number {
  let i = v;
  while (s.charCodeAt(i) === BACKSLASH && i - v < 16) i++;
  const q = s.charCodeAt(i);
  if (q !== /* " */ 34 && q !== /* ' */ 39) return -1;
  // One quote as written (its backslashes and itself), twice more.
  const unit = i + 1 - v;
  for (let j = unit; j < 3 * unit; j++) if (s.charCodeAt(v + j) !== s.charCodeAt(v + (j % unit))) return -1;
  return v + 3 * unit;
}

/**
 * The text of a string whose triple quotes end at `opened`: up to the same three
 * quotes, across lines; to its line's end when they never come. Null when it is empty.
 */
function tripleQuotedValue(s: string, opened: number): ValueSpan | null {
  // The close is the opener's three quotes, escaped as deep (its prefix aside).
  let unit = 1;
  while (s.charCodeAt(opened - 1 - unit) === BACKSLASH) unit++;
  const quotes = s.slice(opened - 3 * unit, opened);
  const close = s.indexOf(quotes, opened);
  const end = close >= 0 ? close : lineStop(s, opened, 0);
  return end > opened ? { start: opened, end, quoted: true } : null;
}

const BACKSLASH = 92;
const isBlank = (c: number): boolean => c === /* space */ 32 || c === /* tab */ 9;
const isBlockIndicator = (c: number): boolean =>
  c === /* - */ 45 || c === /* + */ 43 || (c >= /* 1 */ 49 && c <= /* 9 */ 57);

/**
 * The line break at `i` and its escaping depth, packed as `end * 32 + depth`: real (`\n`, `\r`,
 * `\r\n`) at depth 0, or escaped (`depth` backslashes, then `n`; or `r`, and `n` after as many
 * backslashes again); -1 when none is there. `want`: only at that depth (-1: any).
 */
function lineBreakAt(s: string, i: number, want: number): number {
  const c = s.charCodeAt(i);
  if (c === /* \n */ 10 || c === /* \r */ 13) {
    if (want > 0) return -1;
    return (c === 13 && s.charCodeAt(i + 1) === 10 ? i + 2 : i + 1) * 32;
  }
  if (c !== BACKSLASH || want === 0) return -1;
  let j = i;
  while (s.charCodeAt(j) === BACKSLASH && j - i < 16) j++;
  const depth = j - i;
  if (want > 0 && depth !== want) return -1;
  const l = s.charCodeAt(j);
  if (l === /* n */ 110) return (j + 1) * 32 + depth;
  if (l !== /* r */ 114) return -1;
  // `\r\n` escaped: the `\n` escaped as deep.
  let k = j + 1;
  while (s.charCodeAt(k) === BACKSLASH && k - j - 1 < depth) k++;
  return (k - j - 1 === depth && s.charCodeAt(k) === /* n */ 110 ? k + 1 : j + 1) * 32 + depth;
}

/**
 * Where the line that goes on at `i` ends, in text whose breaks have escaping depth `depth`: at the
 * next break of that depth, at a quote escaped less deeply (the string holding the text closes
 * there), at a real break, or at the end.
 */
function lineStop(s: string, i: number, depth: number): number {
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === /* \n */ 10 || c === /* \r */ 13) return i;
    if (depth === 0) {
      i++;
      continue;
    }
    if (c === /* " */ 34) return i;
    if (c !== BACKSLASH) {
      i++;
      continue;
    }
    let j = i;
    while (s.charCodeAt(j) === BACKSLASH) j++;
    const run = j - i;
    const l = s.charCodeAt(j);
    if (run === depth && (l === /* n */ 110 || l === /* r */ 114)) return i;
    if (run < depth && l === /* " */ 34) return i;
    i = j + 1;
  }
  return n;
}

const isListItem = (s: string, i: number): boolean =>
  s.charCodeAt(i) === /* - */ 45 && s.charCodeAt(i + 1) === /* space */ 32;

/** The indentation (spaces and tabs, escaped or not) of the line whose text starts at `i`, in characters. */
function indentAt(s: string, i: number): number {
  let k = i;
  for (;;) {
    // Tabs indent too (YAML refuses them, an INI file's continued value does not), escaped as
    // well (`\t` at any depth, measured by its characters: lines of one text escape alike).
    if (isBlank(s.charCodeAt(k))) k++;
    else {
      let j = k;
      while (s.charCodeAt(j) === BACKSLASH && j - k < 16) j++;
      if (j === k || s.charCodeAt(j) !== /* t */ 116) break;
      k = j + 1;
    }
  }
  return k - i;
}

/**
 * The indentation of the line holding the key at `ks`: the spaces after the last line break (real
 * or escaped) or marker before it, or after a string's opening quote.
 */
function keyIndent(s: string, ks: number): number {
  let p = ks;
  const stop = Math.max(0, ks - LINE_BACK);
  while (p > stop) {
    const c = s.charCodeAt(p - 1);
    if (c === /* \n */ 10 || c === /* \r */ 13) break;
    if ((c === /* n */ 110 || c === /* r */ 114) && s.charCodeAt(p - 2) === BACKSLASH) break;
    // A marker may have taken the break with the value before it (`v\nINFO` masked whole): where
    // the line starts is lost, and the key reads as unindented.
    if (isPlaceholder(c)) return 0;
    p--;
  }
  if (p > stop) return indentAt(s, p);
  // No break before it: the line starts where a string opens before the key's blanks (`{"msg":"
  // password:`), else where the text does (far from any, the key reads as unindented).
  let q = ks;
  while (q > p && (s.charCodeAt(q - 1) === /* " */ 34 || s.charCodeAt(q - 1) === BACKSLASH)) q--;
  let b = q;
  while (b > p && s.charCodeAt(b - 1) === /* space */ 32) b--;
  if (b < q && s.charCodeAt(b - 1) === /* " */ 34) return q - b;
  return p === 0 ? indentAt(s, 0) : 0;
}

/** Index past a comment (`#` to its line's end) at `i`, at the line break; or `i` when there is none. */
function pastComment(s: string, i: number): number {
  if (s.charCodeAt(i) !== /* # */ 35) return i;
  const limit = Math.min(s.length, i + COMMENT_MAX);
  for (let k = i + 1; k < limit; k++) if (lineBreakAt(s, k, -1) >= 0) return k;
  return i;
}

/** The longest YAML tag or anchor read before a value on the next lines. */
const PROPERTY_MAX = 64;

/**
 * The lines after a YAML node's tag or anchor at `v` (`password: !!str\n  v`), the property masked
 * with them; null when no line break follows it (on its own line, the key-value grammar reads it).
 */
function propertiesThenLines(s: string, ks: number, v: number): ValueSpan | null {
  let e = v + 1;
  const limit = Math.min(s.length, v + PROPERTY_MAX);
  while (e < limit && !isBlank(s.charCodeAt(e)) && lineBreakAt(s, e, -1) < 0) e++;
  let at = e;
  while (isBlank(s.charCodeAt(at))) at++;
  // (`!` alone is YAML's non-specific tag; an anchor has a name.)
  if ((e === v + 1 && s.charCodeAt(v) === /* & */ 38) || lineBreakAt(s, at, -1) < 0) return null;
  const lines = valueOnNextLines(s, ks, at);
  if (lines === null || lines.properties !== undefined) return lines;
  lines.properties = { start: v, end: e };
  return lines;
}

/**
 * The value on the lines after the key at `ks` whose separator's blanks end at `v`, or null. What
 * may stand before the line break: a block scalar's header (it stays), a comment (masked too, as
 * the value's properties: `password: #v` may be the secret), or an earlier marker. The value is
 * the lines indented deeper than the key's and those at its indentation that continue a compact
 * list (`- `), blank lines between them included. A header, a comment or a list's dash with more
 * text after it on its line is what stripping a message's line breaks leaves
 * (`password: |  v`, `password:- v`): the value is the rest of that line.
 */
function valueOnNextLines(s: string, ks: number, v: number): ValueSpan | null {
  let at = v;
  const c = s.charCodeAt(v);
  if (c === /* | */ 124 || c === /* > */ 62) {
    at++;
    if (isBlockIndicator(s.charCodeAt(at))) at++;
    if (isBlockIndicator(s.charCodeAt(at))) at++;
  } else if (c === /* - */ 45) {
    if (!isBlank(s.charCodeAt(v + 1))) return null;
    at++;
  } else if (isPlaceholder(c)) {
    while (s.charCodeAt(at) === c) at++;
  } else if (c === /* ! */ 33 || c === /* & */ 38) {
    // A node's tag or anchor (`password: &db\n  v`), masked with the lines when a break follows it.
    return propertiesThenLines(s, ks, v);
  }
  const lead = at > v;
  while (isBlank(s.charCodeAt(at))) at++;
  let comment = -1;
  let commentEnd = -1;
  if (s.charCodeAt(at) === /* # */ 35 && (at === v || isBlank(s.charCodeAt(at - 1)))) {
    comment = at;
    commentEnd = pastComment(s, at);
    at = commentEnd;
  } else if ((c === /* | */ 124 || c === /* > */ 62) && isPlaceholder(s.charCodeAt(at))) {
    // A header's comment masked before (`password: | [redacted:key-value]`).
    comment = at;
    while (s.charCodeAt(at) === s.charCodeAt(comment)) at++;
    commentEnd = at;
  }
  const first = lineBreakAt(s, at, -1);
  if (first < 0 || c === /* - */ 45) {
    // Text after a header, a comment or a dash on its line: the breaks were stripped.
    if (!(lead && !isPlaceholder(c)) && comment < 0) return null;
    const end = lineStop(s, v, 0);
    return end > at ? { start: v, end, quoted: true } : null;
  }
  const depth = first % 32;
  let line = (first - depth) / 32;
  /**
   * The first line must be deeper than the key's line, or a list item at its indentation; the rest
   * at least as deep as the first (a list's: deeper, or its next item). Measured from the first
   * line, the value reads the same when a marker took the key's own indentation.
   */
  const own = keyIndent(s, ks);
  let least = -1;
  let list = false;
  let start = -1;
  let end = -1;
  for (;;) {
    const text = line + indentAt(s, line);
    const stop = lineStop(s, text, depth);
    if (stop > text) {
      const at = text - line;
      if (least < 0) {
        list = isListItem(s, text);
        if (at < own + (list ? 0 : 1)) break;
        least = at;
        // A list's dash stays: the masked text reads as the same list again.
        start = list ? text + 2 : text;
      } else if (at < least || (at === least && list && !isListItem(s, text))) break;
      end = stop;
    }
    const next = lineBreakAt(s, stop, depth);
    if (next < 0) break;
    line = (next - depth) / 32;
  }
  if (start < 0) return null;
  const value: ValueSpan = { start, end, quoted: true };
  if (comment >= 0) {
    let e = commentEnd;
    while (e > comment && isBlank(s.charCodeAt(e - 1))) e--;
    value.properties = { start: comment, end: e };
  }
  return value;
}

/** The longest delimiter word of a here-document read. */
const DELIMITER_MAX = 64;

const isDelimiterChar = (c: number): boolean =>
  (c >= /* 0 */ 48 && c <= /* 9 */ 57) ||
  (c >= /* A */ 65 && c <= /* Z */ 90) ||
  (c >= /* a */ 97 && c <= /* z */ 122) ||
  c === /* _ */ 95;

/**
 * A key's value given as a here-document at `v`, as Terraform/HCL (`password = <<EOT`, `<<-EOT`),
 * Ruby (`password: <<~EOS`) and PHP (`'password' => <<<'EOT'`) write one: the lines after it, up to
 * the line that holds its delimiter word alone (blanks around it, and `;`, `,` or `)` after it in
 * PHP and Ruby), or to the end of the text or its string. Null when no here-document opens at `v`,
 * or nothing follows it.
 */
function hereDocumentValue(s: string, v: number): ValueSpan | null {
  let i = v + 2;
  if (s.charCodeAt(i) === /* < */ 60) i++;
  const sign = s.charCodeAt(i);
  if (sign === /* - */ 45 || sign === /* ~ */ 126) i++;
  while (isBlank(s.charCodeAt(i))) i++;
  // The delimiter may be quoted, its quote escaped in JSON (`<<\"EOT\"`).
  while (s.charCodeAt(i) === BACKSLASH) i++;
  const quote = s.charCodeAt(i);
  if (quote === /* " */ 34 || quote === /* ' */ 39) i++;
  const word = i;
  while (i < word + DELIMITER_MAX && isDelimiterChar(s.charCodeAt(i))) i++;
  if (i === word || (s.charCodeAt(word) >= /* 0 */ 48 && s.charCodeAt(word) <= /* 9 */ 57)) return null;
  const delimiter = s.slice(word, i);
  if (quote === /* " */ 34 || quote === /* ' */ 39) {
    let q = i;
    while (s.charCodeAt(q) === BACKSLASH) q++;
    if (s.charCodeAt(q) === quote) i = q + 1;
  }
  while (isBlank(s.charCodeAt(i))) i++;
  const first = lineBreakAt(s, i, -1);
  if (first < 0) {
    // More on the opener's line is what stripping a message's breaks leaves (`<<EOTvEOT`): the
    // value is the rest of that line.
    const rest = lineStop(s, v, 0);
    return rest > i ? { start: v, end: rest, quoted: true } : null;
  }
  const depth = first % 32;
  let line = (first - depth) / 32;
  let end = -1;
  for (;;) {
    const text = line + indentAt(s, line);
    const stop = lineStop(s, text, depth);
    if (isDelimiterLine(s, text, stop, delimiter)) break;
    if (stop > line) end = stop;
    const next = lineBreakAt(s, stop, depth);
    if (next < 0) break;
    line = (next - depth) / 32;
  }
  const start = (first - depth) / 32;
  return end > start ? { start, end, quoted: true } : null;
}

/** Whether the line text from `i` to `stop` is the delimiter alone (then blanks, or PHP's and Ruby's `;`, `,`, `)`). */
function isDelimiterLine(s: string, i: number, stop: number, delimiter: string): boolean {
  if (!s.startsWith(delimiter, i)) return false;
  let k = i + delimiter.length;
  const c = s.charCodeAt(k);
  if (c === /* ; */ 59 || c === /* , */ 44 || c === /* ) */ 41) k++;
  while (isBlank(s.charCodeAt(k))) k++;
  return k >= stop;
}
