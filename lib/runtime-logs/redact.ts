/**
 * Redaction (pipeline.md §3). Every rule is a linear scan: regexes here are literal alternations or
 * single bounded character runs with nothing after them, so no input can make them backtrack; the
 * rest is hand-written scanning. While the chain runs, a redacted span is one private-use character
 * (a marker) that no later rule matches; markers become `[redacted:<kind>]` at the end.
 * Pseudonyms the pipeline inserted are protected the same way by the caller (see `redactProtected`).
 */

export const REDACTION_KINDS = [
  "pem",
  "argv",
  "header",
  "bearer",
  "basic",
  "netrc",
  "jwt",
  "userinfo",
  "token",
  "aws-key",
  "google-key",
  "query",
  "key-value",
  "long-token",
  "node",
  "image",
  "secret",
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

const MARK_BASE = 0xe100;
const mark = (kind: RedactionKind): string => String.fromCharCode(MARK_BASE + REDACTION_KINDS.indexOf(kind));
const M = Object.fromEntries(REDACTION_KINDS.map((k) => [k, mark(k)])) as Record<RedactionKind, string>;

/** First code point of the caller-protected range (pseudonyms); `redactProtected` leaves these. */
export const PROTECTED_BASE = 0xf000;
export const PROTECTED_MAX = 0xf7ff;

const ANY_PRIVATE_USE = /[\ue000-\uf8ff]/;
const ANY_PRIVATE_USE_G = /[\ue000-\uf8ff]/g;
/** Markers in use: one per redaction kind. */
const MARKERS = new RegExp(`[\\ue100-\\u${(MARK_BASE + REDACTION_KINDS.length - 1).toString(16)}]`);

// ------------------------------------------------------------------ character classes

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isTokenChar = (c: number): boolean => isAlnum(c) || c === 95 || c === 45;
const isKeyChar = (c: number): boolean => isTokenChar(c) || c === 46;
const isSpace = (c: number): boolean => c <= 0x20;
const isPlaceholder = (c: number): boolean => c >= 0xe000 && c <= 0xf8ff;

/** Replace sorted, non-overlapping [start, end) spans of `s` with their replacement. */
function splice(s: string, spans: number[], reps: string[]): string {
  if (reps.length === 0) return s;
  let out = "";
  let from = 0;
  for (let k = 0; k < reps.length; k++) {
    const start = spans[2 * k]!;
    out += s.slice(from, start) + reps[k]!;
    from = spans[2 * k + 1]!;
  }
  return out + s.slice(from);
}

/** End of a word: first whitespace or marker at/after `i`; a quoted word runs to its closing quote. */
function wordEnd(s: string, i: number): number {
  const n = s.length;
  const q = s.charCodeAt(i);
  if (q === 34 || q === 39) {
    const close = s.indexOf(s[i]!, i + 1);
    return close < 0 ? n : close + 1;
  }
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c) || isPlaceholder(c)) break;
    i++;
  }
  return i;
}

function skipBlanks(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9) break;
    i++;
  }
  return i;
}

// ------------------------------------------------------------------ pem

function pemRule(s: string): string {
  let i = s.indexOf("-----BEGIN ");
  if (i < 0) return s;
  const spans: number[] = [];
  const reps: string[] = [];
  while (i >= 0) {
    const end = s.indexOf("-----END ", i + 11);
    let stop = s.length;
    if (end >= 0) {
      const close = s.indexOf("-----", end + 9);
      stop = close < 0 ? s.length : close + 5;
    }
    spans.push(i, stop);
    reps.push(M.pem);
    i = s.indexOf("-----BEGIN ", stop);
  }
  return splice(s, spans, reps);
}

// ------------------------------------------------------------------ argv

const LONG_FLAGS = /--(?:password|passwd|token|api-key|apikey|with-token)(?=[= ]|$)/g;
const USER_FLAGS = /(?:^|\s)(?:-u|--user)(?=[= ])/g;
const MYSQL = /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b/;
const MYSQL_P = /(?:^|\s)-p/g;
const REDIS = /\bredis-cli\b/;
const REDIS_A = /\s(?:-a|--pass)(?= )/g;
const SSHPASS = /\bsshpass\b/;
const SSHPASS_P = /\s-p(?= )/g;
const VAULT = /\bvault\s+login\s+/g;

function argvRule(s: string, lower: string): string {
  const found: Array<[number, number]> = [];
  const add = (start: number, end: number): number => {
    found.push([start, end]);
    return end;
  };
  /** `--flag=value` or `--flag value`; a following flag or a redirect is not a value. Returns the end. */
  const valueAfter = (j: number): number => {
    let v = j;
    if (s.charCodeAt(v) === 61) v++;
    else v = skipBlanks(s, v);
    if (v >= s.length) return j;
    const c = s.charCodeAt(v);
    if (c === 45 || c === 60 || c === 124 || isPlaceholder(c)) return j;
    const end = wordEnd(s, v);
    const q = s.charCodeAt(v);
    if ((q === 34 || q === 39) && end - 1 > v + 1) return add(v + 1, end - 1);
    return end > v ? add(v, end) : j;
  };
  if (s.includes("--")) {
    LONG_FLAGS.lastIndex = 0;
    for (let m = LONG_FLAGS.exec(s); m !== null; m = LONG_FLAGS.exec(s)) {
      LONG_FLAGS.lastIndex = valueAfter(LONG_FLAGS.lastIndex);
    }
  }
  if (s.includes("-u")) {
    USER_FLAGS.lastIndex = 0;
    for (let m = USER_FLAGS.exec(s); m !== null; m = USER_FLAGS.exec(s)) {
      let v = USER_FLAGS.lastIndex;
      v = s.charCodeAt(v) === 61 ? v + 1 : skipBlanks(s, v);
      const end = wordEnd(s, v);
      const colon = s.indexOf(":", v);
      if (colon > v && colon < end - 1) USER_FLAGS.lastIndex = add(v, end);
    }
  }
  const mysql = lower.includes("mysql") || lower.includes("mariadb") ? MYSQL.exec(s) : null;
  if (mysql !== null) {
    MYSQL_P.lastIndex = mysql.index;
    for (let m = MYSQL_P.exec(s); m !== null; m = MYSQL_P.exec(s)) {
      const j = MYSQL_P.lastIndex;
      const c = s.charCodeAt(j);
      if (c === 32) {
        // `-p value`: mysql would prompt and take a database name, but a secret may sit there.
        const v = skipBlanks(s, j);
        const end = wordEnd(s, v);
        if (end > v && s.charCodeAt(v) !== 45 && !/^\d+$/.test(s.slice(v, end)))
          MYSQL_P.lastIndex = add(v, end);
      } else if (j < s.length && !isSpace(c) && !isPlaceholder(c)) {
        MYSQL_P.lastIndex = add(j, wordEnd(s, j));
      }
    }
  }
  /** After `command` appears, the value of each `flag` is a secret (`redis-cli -a`, `sshpass -p`). */
  const flagValuesAfter = (word: string, command: RegExp, flag: RegExp): void => {
    const at = lower.includes(word) ? command.exec(s) : null;
    if (at === null) return;
    flag.lastIndex = at.index;
    for (let m = flag.exec(s); m !== null; m = flag.exec(s)) flag.lastIndex = valueAfter(flag.lastIndex);
  };
  flagValuesAfter("redis-cli", REDIS, REDIS_A);
  flagValuesAfter("sshpass", SSHPASS, SSHPASS_P);
  if (lower.includes("vault")) {
    VAULT.lastIndex = 0;
    for (let m = VAULT.exec(s); m !== null; m = VAULT.exec(s)) {
      const v = VAULT.lastIndex;
      const end = wordEnd(s, v);
      const word = s.slice(v, end);
      if (end > v && !word.startsWith("-") && !word.includes("=")) VAULT.lastIndex = add(v, end);
    }
  }
  if (found.length === 0) return s;
  // Several scans may find the same value: sort, keep the first of overlapping spans.
  found.sort((a, b) => a[0] - b[0]);
  const spans: number[] = [];
  const reps: string[] = [];
  let last = -1;
  for (const [a, b] of found) {
    if (a < last) continue;
    spans.push(a, b);
    reps.push(M.argv);
    last = b;
  }
  return splice(s, spans, reps);
}

// ------------------------------------------------------------------ header

const HEADER_NAMES = /(?:proxy-)?authorization|(?:set-)?cookie|x-api-key/gi;

/** Index past an optional quote (`"`, `'` or `\"`) at `i`, with the quote found (or ""). */
function optionalQuote(s: string, i: number): [number, string] {
  const c = s.charCodeAt(i);
  if (c === 34 || c === 39) return [i + 1, s[i]!];
  if (c === 92 && s.charCodeAt(i + 1) === 34) return [i + 2, '\\"'];
  return [i, ""];
}

/** Index of the closing quote of a value opened by `quote` at `v` (or -1). */
function closingQuote(s: string, v: number, quote: string): number {
  if (quote === '\\"') return s.indexOf('\\"', v);
  if (quote === "'") return s.indexOf("'", v);
  for (let i = v; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

function headerRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  HEADER_NAMES.lastIndex = 0;
  for (let m = HEADER_NAMES.exec(s); m !== null; m = HEADER_NAMES.exec(s)) {
    const a = m.index;
    if (a > 0) {
      const p = s.charCodeAt(a - 1);
      if (isAlnum(p) || p === 95) continue;
    }
    let j = HEADER_NAMES.lastIndex;
    const [afterKeyQuote] = optionalQuote(s, j);
    j = skipBlanks(s, afterKeyQuote);
    const sep = s.charCodeAt(j);
    if (sep !== 58 && sep !== 61) continue;
    j = skipBlanks(s, j + 1);
    const [v, quote] = optionalQuote(s, j);
    let end: number;
    if (quote !== "") {
      const close = closingQuote(s, v, quote);
      end = close < 0 ? s.length : close;
    } else {
      const nl = s.indexOf("\n", v);
      end = nl < 0 ? s.length : nl;
    }
    while (end > v && isSpace(s.charCodeAt(end - 1))) end--;
    if (end <= v || onlyPlaceholders(s, v, end)) continue;
    spans.push(v, end);
    reps.push(M.header);
    HEADER_NAMES.lastIndex = end;
  }
  return splice(s, spans, reps);
}

function onlyPlaceholders(s: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if (!isPlaceholder(c) && !isSpace(c)) return false;
  }
  return true;
}

// ------------------------------------------------------------------ bearer, basic, netrc

const BEARER = /\bbearer\s+/gi;
const BASIC = /\bbasic\s+/gi;
const NETRC = /\blogin\s+/gi;

const isB64Token = (c: number): boolean =>
  isAlnum(c) || c === 45 || c === 46 || c === 95 || c === 126 || c === 43 || c === 47 || c === 61;

function authSchemes(s: string, lower: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  const found: Array<[number, number, string]> = [];
  if (lower.includes("bearer")) {
    BEARER.lastIndex = 0;
    for (let m = BEARER.exec(s); m !== null; m = BEARER.exec(s)) {
      let j = BEARER.lastIndex;
      let digit = false;
      while (j < s.length && isB64Token(s.charCodeAt(j))) {
        const c = s.charCodeAt(j);
        if (c >= 48 && c <= 57) digit = true;
        j++;
      }
      if (digit) {
        found.push([m.index, j, M.bearer]);
        BEARER.lastIndex = j;
      }
    }
  }
  if (lower.includes("basic")) {
    BASIC.lastIndex = 0;
    for (let m = BASIC.exec(s); m !== null; m = BASIC.exec(s)) {
      const v = BASIC.lastIndex;
      let j = v;
      while (j < s.length) {
        const c = s.charCodeAt(j);
        if (isAlnum(c) || c === 43 || c === 47) j++;
        else break;
      }
      while (j < s.length && s.charCodeAt(j) === 61 && j - v < 1100) j++;
      if (j - v >= 8 && j - v <= 1024 && (j - v) % 4 === 0 && decodesToUserPass(s.slice(v, j))) {
        found.push([m.index, j, M.basic]);
        BASIC.lastIndex = j;
      }
    }
  }
  if (lower.includes("login")) {
    NETRC.lastIndex = 0;
    for (let m = NETRC.exec(s); m !== null; m = NETRC.exec(s)) {
      const userEnd = wordEnd(s, NETRC.lastIndex);
      if (userEnd === NETRC.lastIndex) continue;
      const p = skipBlanks(s, userEnd);
      if (p === userEnd || s.slice(p, p + 8).toLowerCase() !== "password") continue;
      const v = skipBlanks(s, p + 8);
      if (v === p + 8) continue;
      const end = wordEnd(s, v);
      if (end === v) continue;
      found.push([m.index, end, M.netrc]);
      NETRC.lastIndex = end;
    }
  }
  if (found.length === 0) return s;
  found.sort((a, b) => a[0] - b[0]);
  let last = -1;
  for (const [a, b, r] of found) {
    if (a < last) continue;
    spans.push(a, b);
    reps.push(r);
    last = b;
  }
  return splice(s, spans, reps);
}

function decodesToUserPass(b64: string): boolean {
  const bytes = Buffer.from(b64, "base64");
  const colon = bytes.indexOf(58);
  if (colon < 1 || colon === bytes.length - 1) return false;
  for (const b of bytes) if (b < 0x20 || b === 0x7f) return false;
  return Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
}

// ------------------------------------------------------------------ jwt

const isB64Url = (c: number): boolean => isTokenChar(c);

/**
 * Linear equivalent of `/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g`: every segment is a
 * maximal run, so a failed attempt at one start also fails for every start inside the same runs.
 */
export function findJwts(s: string): number[] {
  const out: number[] = [];
  const n = s.length;
  let i = s.indexOf("eyJ");
  while (i >= 0) {
    let j = i + 3;
    while (j < n && isB64Url(s.charCodeAt(j))) j++;
    let resume: number;
    if (j === i + 3 || s.charCodeAt(j) !== 46) {
      resume = j;
    } else {
      let k = j + 1;
      while (k < n && isB64Url(s.charCodeAt(k))) k++;
      if (k === j + 1 || s.charCodeAt(k) !== 46) {
        resume = k === j + 1 ? j + 1 : k;
      } else {
        let e = k + 1;
        while (e < n && isB64Url(s.charCodeAt(e))) e++;
        if (e === k + 1) {
          resume = k + 1;
        } else {
          out.push(i, e);
          resume = e;
        }
      }
    }
    i = s.indexOf("eyJ", Math.max(resume, i + 1));
  }
  return out;
}

function jwtRule(s: string): string {
  if (!s.includes("eyJ")) return s;
  const spans = findJwts(s);
  return splice(
    s,
    spans,
    spans.filter((_, k) => k % 2 === 0).map(() => M.jwt),
  );
}

// ------------------------------------------------------------------ userinfo

function userinfoRule(s: string): string {
  let i = s.indexOf("://");
  if (i < 0 || !s.includes("@")) return s;
  const spans: number[] = [];
  const reps: string[] = [];
  while (i >= 0) {
    const start = i + 3;
    let j = start;
    let colon = -1;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (c === 47 || c === 63 || c === 35 || c === 64 || isSpace(c) || c === 34 || c === 39) break;
      if (c === 60 || c === 62 || isPlaceholder(c)) break;
      if (c === 58 && colon < 0) colon = j;
      j++;
    }
    if (s.charCodeAt(j) === 64 && colon > start && i > 0 && isAlnum(s.charCodeAt(i - 1))) {
      spans.push(start, j);
      reps.push(M.userinfo);
    }
    i = s.indexOf("://", j);
  }
  return splice(s, spans, reps);
}

// ------------------------------------------------------------------ token, aws-key, google-key

const PREFIXES =
  /sk-|sk_live_|sk_test_|rk_live_|rk_test_|gh[pousr]_|github_pat_|xox[abpr]-|xapp-|glpat-|npm_|hf_|AKIA|ASIA|AIza/g;

function prefixRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  PREFIXES.lastIndex = 0;
  for (let m = PREFIXES.exec(s); m !== null; m = PREFIXES.exec(s)) {
    const a = m.index;
    const prefix = m[0];
    let r = a + prefix.length;
    while (r < s.length && isTokenChar(s.charCodeAt(r))) r++;
    PREFIXES.lastIndex = r;
    if (a > 0 && isAlnum(s.charCodeAt(a - 1))) continue;
    const after = r - a - prefix.length;
    let kind: RedactionKind | null = null;
    if (prefix === "AKIA" || prefix === "ASIA") {
      let u = a + 4;
      while (u < r) {
        const c = s.charCodeAt(u);
        if ((c >= 65 && c <= 90) || (c >= 48 && c <= 57)) u++;
        else break;
      }
      if (u - a - 4 >= 16) kind = "aws-key";
    } else if (prefix === "AIza") {
      if (after >= 30) kind = "google-key";
    } else if (prefix === "hf_") {
      if (after >= 30) kind = "token";
    } else if (after >= 8) {
      kind = "token";
    }
    if (kind !== null) {
      spans.push(a, r);
      reps.push(M[kind]);
    }
  }
  return splice(s, spans, reps);
}

// ------------------------------------------------------------------ query

function isUrlEnd(c: number): boolean {
  return isSpace(c) || c === 34 || c === 39 || c === 60 || c === 62 || c === 96;
}

function queryRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  const n = s.length;
  let lastDelim = -1;
  let lastSlash = -1;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isUrlEnd(c) || c === 40 || c === 41 || c === 91 || c === 93 || c === 123 || c === 125) {
      lastDelim = i;
    } else if (c === 47) {
      lastSlash = i;
    } else if ((c === 63 || c === 35) && lastSlash > lastDelim) {
      i = maskQuery(s, i, spans, reps);
      lastDelim = i;
      continue;
    }
    i++;
  }
  return splice(s, spans, reps);
}

/** Mask every value of the query/fragment starting at `q` (`?` or `#`); returns its end. */
function maskQuery(s: string, q: number, spans: number[], reps: string[]): number {
  const n = s.length;
  let fragment = s.charCodeAt(q) === 35;
  let i = q + 1;
  while (i < n) {
    const start = i;
    let eq = -1;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (isUrlEnd(c) || c === 38 || c === 59 || (c === 35 && !fragment)) break;
      if (c === 61 && eq < 0) eq = i;
      i++;
    }
    const valueStart = eq >= 0 ? eq + 1 : fragment ? start : -1;
    if (valueStart >= 0 && i > valueStart && !onlyPlaceholders(s, valueStart, i)) {
      spans.push(valueStart, i);
      reps.push(M.query);
    }
    if (i >= n) break;
    const c = s.charCodeAt(i);
    if (c === 35) fragment = true;
    else if (c !== 38 && c !== 59) break;
    i++;
  }
  return i;
}

// ------------------------------------------------------------------ key-value

const SECRET_KEYS =
  /token|secret|passw(?:or)?d|passphrase|pwd|api[_-]?key|authorization|cookie|credential|private[_-]?key|access[_-]?key|signature|[_-]key/gi;

function isValueEnd(c: number): boolean {
  return (
    isSpace(c) ||
    c === 34 ||
    c === 39 ||
    c === 44 ||
    c === 59 ||
    c === 38 ||
    c === 125 ||
    c === 93 ||
    c === 41 ||
    c === 62 ||
    c === 96 ||
    c === 92 ||
    isPlaceholder(c)
  );
}

function keyValueRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  let floor = 0;
  SECRET_KEYS.lastIndex = 0;
  for (let m = SECRET_KEYS.exec(s); m !== null; m = SECRET_KEYS.exec(s)) {
    let ks = m.index;
    while (ks > floor && isKeyChar(s.charCodeAt(ks - 1))) ks--;
    let ke = SECRET_KEYS.lastIndex;
    while (ke < s.length && isKeyChar(s.charCodeAt(ke))) ke++;
    SECRET_KEYS.lastIndex = ke;
    floor = ke;
    const flag = s.charCodeAt(ks) === 45;
    let j = ke;
    // A quoted key closes with its quote (plain or escaped).
    const before = s.charCodeAt(ks - 1);
    if (before === 34 || before === 39) {
      if (s.charCodeAt(j) === before) j++;
      else if (s.charCodeAt(j) === 92 && s.charCodeAt(j + 1) === 34) j += 2;
    }
    const afterKey = j;
    j = skipBlanks(s, j);
    const sep = s.charCodeAt(j);
    if (sep === 58 || sep === 61) {
      j = skipBlanks(s, j + 1);
    } else if (!(flag && j > afterKey)) {
      continue;
    }
    if (j >= s.length) continue;
    const [v, quote] = optionalQuote(s, j);
    let end: number;
    if (quote !== "") {
      const close = closingQuote(s, v, quote);
      end = close < 0 ? s.length : close;
    } else {
      if (flag && s.charCodeAt(v) === 45) continue;
      end = v;
      while (end < s.length && !isValueEnd(s.charCodeAt(end))) end++;
    }
    if (end <= v || isPlaceholder(s.charCodeAt(v)) || onlyPlaceholders(s, v, end)) continue;
    spans.push(v, end);
    reps.push(M["key-value"]);
    SECRET_KEYS.lastIndex = Math.max(end, ke);
    floor = SECRET_KEYS.lastIndex;
  }
  return splice(s, spans, reps);
}

// ------------------------------------------------------------------ long-token

/** A maximal run of one token alphabet being scanned, and what kinds of characters it holds. */
class Run {
  start = -1;
  upper = false;
  lower = false;
  digit = false;
  hex = true;

  begin(i: number): void {
    this.start = i;
    this.upper = false;
    this.lower = false;
    this.digit = false;
    this.hex = true;
  }

  add(c: number): void {
    if (c >= 48 && c <= 57) this.digit = true;
    else if (c >= 65 && c <= 90) {
      this.upper = true;
      if (c > 70) this.hex = false;
    } else if (c >= 97 && c <= 122) {
      this.lower = true;
      if (c > 102) this.hex = false;
    } else this.hex = false;
  }

  /** ≥ 40 characters that look random: mixed case and digits, or hex with digits. */
  random(end: number): boolean {
    return end - this.start >= 40 && ((this.upper && this.lower && this.digit) || (this.hex && this.digit));
  }
}

/**
 * Spans of ≥ 40-character runs of standard base64 (`[A-Za-z0-9+/]`, then `=` padding) and of
 * base64url (`[A-Za-z0-9_-]`) that look random, both alphabets in one pass; each list in order.
 */
function randomRuns(s: string, b64Out: number[], urlOut: number[]): void {
  const n = s.length;
  const b64 = new Run();
  const url = new Run();
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 0;
    const cls = c < 128 ? CHAR_CLASS[c]! & 3 : 0;
    if (cls & 1) {
      if (b64.start < 0) b64.begin(i);
      b64.add(c);
    } else if (b64.start >= 0) {
      if (b64.random(i)) {
        let end = i;
        while (end < n && s.charCodeAt(end) === 61) end++;
        b64Out.push(b64.start, end);
      }
      b64.start = -1;
    }
    if (cls & 2) {
      if (url.start < 0) url.begin(i);
      url.add(c);
    } else if (url.start >= 0) {
      if (url.random(i)) urlOut.push(url.start, i);
      url.start = -1;
    }
  }
}

/** Called when `triggers` saw a run of ≥ 40 characters of either alphabet. */
function longTokenRule(s: string): string {
  const a: number[] = [];
  const b: number[] = [];
  randomRuns(s, a, b);
  if (a.length === 0 && b.length === 0) return s;
  // Union of both sorted span lists, touching or overlapping spans merged.
  const spans: number[] = [];
  const reps: string[] = [];
  let ia = 0;
  let ib = 0;
  while (ia < a.length || ib < b.length) {
    let start: number;
    let end: number;
    if (ib >= b.length || (ia < a.length && a[ia]! <= b[ib]!)) {
      start = a[ia]!;
      end = a[ia + 1]!;
      ia += 2;
    } else {
      start = b[ib]!;
      end = b[ib + 1]!;
      ib += 2;
    }
    const last = spans.length - 1;
    if (last > 0 && start <= spans[last]!) {
      spans[last] = Math.max(spans[last]!, end);
    } else {
      spans.push(start, end);
      reps.push(M["long-token"]);
    }
  }
  return splice(s, spans, reps);
}

// ------------------------------------------------------------------ chain

/**
 * Run the chain over a string that may hold caller-protected placeholders (U+F000–U+F7FF) but no
 * other private-use character; returns the text with markers already expanded.
 */
export function redactProtected(s: string): string {
  return expandMarkers(redactChain(s));
}

const F_PEM = 1;
const F_ARGV = 2;
const F_HEADER = 4;
const F_AUTH = 8;
const F_JWT = 16;
const F_USERINFO = 32;
const F_PREFIX = 64;
const F_QUERY = 128;
const F_KV = 256;
/** A run of ≥ 40 characters of the standard base64 alphabet `[A-Za-z0-9+/]`. */
const F_RUN_B64 = 512;
/** A run of ≥ 40 characters of the base64url alphabet `[A-Za-z0-9_-]`. */
const F_RUN_URL = 1024;
const ALL_FLAGS = 2047;

/**
 * The words each rule starts from (lower case; `.` stands for any one character). A rule whose
 * words are all absent cannot match, so it is skipped. Redacting only ever replaces a span by one
 * private-use marker, which cannot complete an ASCII word or join two runs, so the words found in
 * the input are a superset of those any later rule sees.
 */
const TRIGGER_WORDS: ReadonlyArray<readonly [string, number]> = [
  ["-----begin ", F_PEM | F_ARGV],
  ["--", F_ARGV],
  ["-u", F_ARGV],
  ["-p", F_ARGV],
  ["-a", F_ARGV],
  ["vault", F_ARGV],
  ["authorization", F_HEADER | F_KV],
  ["cookie", F_HEADER | F_KV],
  ["x-api-key", F_HEADER | F_KV],
  ["bearer", F_AUTH],
  ["basic", F_AUTH],
  ["login", F_AUTH],
  ["eyj", F_JWT],
  ["://", F_USERINFO],
  ["?", F_QUERY],
  ["#", F_QUERY],
  ["token", F_KV],
  ["secret", F_KV],
  ["passw", F_KV],
  ["pwd", F_KV],
  ["apikey", F_KV],
  ["api.key", F_KV],
  ["credential", F_KV],
  ["private", F_KV],
  ["access", F_KV],
  ["signature", F_KV],
  ["_key", F_KV],
  ["-key", F_KV],
  ["sk-", F_PREFIX],
  ["sk_", F_PREFIX],
  ["rk_", F_PREFIX],
  ["ghp_", F_PREFIX],
  ["gho_", F_PREFIX],
  ["ghu_", F_PREFIX],
  ["ghs_", F_PREFIX],
  ["ghr_", F_PREFIX],
  ["github_pat_", F_PREFIX],
  ["xox", F_PREFIX],
  ["xapp-", F_PREFIX],
  ["glpat-", F_PREFIX],
  ["npm_", F_PREFIX],
  ["hf_", F_PREFIX],
  ["akia", F_PREFIX],
  ["asia", F_PREFIX],
  ["aiza", F_PREFIX],
];

interface TriggerWord {
  text: string;
  flag: number;
}

/**
 * ASCII character table: bit 1 standard base64, bit 2 base64url, bit 4 first character of a word of
 * two or more characters, bit 8 a one-character word.
 */
const CHAR_CLASS = new Uint8Array(128);
/** Flags of the one-character words, by character code. */
const SINGLE_FLAGS = new Uint16Array(128);
/** 1 where some word starts with this pair of characters (any case), at `first * 128 + second`. */
const PAIRS = new Uint8Array(128 * 128);
/** Words of two or more characters by the code of their first character (either case). */
const WORDS_BY_FIRST: TriggerWord[][] = Array.from({ length: 128 }, () => []);
const bothCases = (c: number): number[] => (c >= 97 && c <= 122 ? [c, c - 32] : [c]);
for (let c = 0; c < 128; c++) {
  if (isAlnum(c) || c === 43 || c === 47) CHAR_CLASS[c]! |= 1;
  if (isTokenChar(c)) CHAR_CLASS[c]! |= 2;
}
for (const [text, flag] of TRIGGER_WORDS) {
  for (const first of bothCases(text.charCodeAt(0))) {
    if (text.length === 1) {
      CHAR_CLASS[first]! |= 8;
      SINGLE_FLAGS[first]! |= flag;
      continue;
    }
    CHAR_CLASS[first]! |= 4;
    WORDS_BY_FIRST[first]!.push({ text, flag });
    for (const second of bothCases(text.charCodeAt(1))) PAIRS[first * 128 + second] = 1;
  }
}

const asciiLower = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);

/** Whether the lower-case `word` (`.` = any character) occurs at `i`, ASCII case-insensitively. */
function wordAt(s: string, i: number, word: string): boolean {
  if (i + word.length > s.length) return false;
  for (let k = 1; k < word.length; k++) {
    const w = word.charCodeAt(k);
    if (w !== 46 && asciiLower(s.charCodeAt(i + k)) !== w) return false;
  }
  return true;
}

/**
 * Which rules can match `s` and which alphabets hold a long run: one linear scan over the text, no
 * lower-cased copy, words only compared where their first two characters are.
 */
function triggers(s: string): number {
  let flags = 0;
  let b64 = 0;
  let url = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) {
      b64 = 0;
      url = 0;
      continue;
    }
    const cls = CHAR_CLASS[c]!;
    if (cls & 1) {
      if (++b64 >= 40) flags |= F_RUN_B64;
    } else b64 = 0;
    if (cls & 2) {
      if (++url >= 40) flags |= F_RUN_URL;
    } else url = 0;
    if ((cls & 12) === 0) continue;
    if (cls & 8) flags |= SINGLE_FLAGS[c]!;
    if ((cls & 4) === 0 || i + 1 >= n) continue;
    const next = s.charCodeAt(i + 1);
    if (next >= 128 || PAIRS[c * 128 + next] === 0) continue;
    const words = WORDS_BY_FIRST[c]!;
    for (let k = 0; k < words.length; k++) {
      const w = words[k]!;
      if ((flags & w.flag) !== w.flag && wordAt(s, i, w.text)) flags |= w.flag;
    }
    if (flags === ALL_FLAGS) break;
  }
  return flags;
}

function redactChain(s: string): string {
  const f = triggers(s);
  if (f === 0) return s;
  const lower = f & (F_ARGV | F_AUTH) ? s.toLowerCase() : "";
  if (f & F_PEM) s = pemRule(s);
  if (f & F_ARGV) s = argvRule(s, lower);
  if (f & F_HEADER) s = headerRule(s);
  if (f & F_AUTH) s = authSchemes(s, lower);
  if (f & F_JWT) s = jwtRule(s);
  if (f & F_USERINFO) s = userinfoRule(s);
  if (f & F_PREFIX) s = prefixRule(s);
  if (f & F_QUERY) s = queryRule(s);
  if (f & F_KV) s = keyValueRule(s);
  if (f & (F_RUN_B64 | F_RUN_URL)) s = longTokenRule(s);
  return s;
}

const MARKER_TEXT = REDACTION_KINDS.map((k) => `[redacted:${k}]`);

function expandMarkers(s: string): string {
  // One native replace per kind present (usually one or two): far cheaper than rebuilding in script.
  for (let m = MARKERS.exec(s); m !== null; m = MARKERS.exec(s)) {
    const marker = m[0];
    s = s.replaceAll(marker, MARKER_TEXT[marker.charCodeAt(0) - MARK_BASE] ?? "");
  }
  return s;
}

/** Input private-use characters would collide with markers; they become U+FFFD. */
export function neutralizePrivateUse(s: string): string {
  return ANY_PRIVATE_USE.test(s) ? s.replace(ANY_PRIVATE_USE_G, "\ufffd") : s;
}

const REDACTED_G = new RegExp(`\\[redacted:(${REDACTION_KINDS.join("|")})\\]`, "g");
const PSEUDONYM_G = /hmac-sha256:v1:([A-Za-z0-9._-]{1,32}):[0-9a-f]{64}(?![0-9a-f])/g;
const PROTECTED_G = /[\uf000-\uf7ff]/g;

/**
 * Text that is already redacted, and pseudonym-shaped values, become placeholders no rule matches
 * (a key id that looks like a token prefix is not trusted). Pseudonyms are appended to `values`.
 */
export function protectExisting(s: string, values: string[]): string {
  if (s.includes("[redacted:")) s = s.replace(REDACTED_G, (_m, kind: string) => M[kind as RedactionKind]);
  if (s.includes("hmac-sha256:v1:")) {
    s = s.replace(PSEUDONYM_G, (m, keyId: string) => {
      PREFIXES.lastIndex = 0;
      if (PREFIXES.test(keyId) || values.length > PROTECTED_MAX - PROTECTED_BASE) return m;
      values.push(m);
      return String.fromCharCode(PROTECTED_BASE + values.length - 1);
    });
  }
  return s;
}

/** Put protected values back. */
export function restoreProtected(s: string, values: readonly string[]): string {
  if (values.length === 0) return s;
  return s.replace(PROTECTED_G, (ch) => values[ch.charCodeAt(0) - PROTECTED_BASE] ?? "");
}

/** Redact one string that leaves the service (messages, fields, reasons). */
export function redactText(text: string): string {
  const values: string[] = [];
  const s = protectExisting(neutralizePrivateUse(text), values);
  return restoreProtected(expandMarkers(redactChain(s)), values);
}

// ------------------------------------------------------------------ Event text

export interface EventTextHints {
  nodeNames?: readonly string[];
  imageRefs?: readonly string[];
  secretNames?: readonly string[];
  configMapNames?: readonly string[];
}

const NAME = "([A-Za-z0-9][A-Za-z0-9._-]{0,252})";
const EVENT_PATTERNS: Array<[RegExp, RedactionKind]> = [
  [new RegExp(`\\bnodes?/${NAME}`, "gi"), "node"],
  [/\bnode\s+"([^"\s]{1,253})"/gi, "node"],
  [new RegExp(`\\bon\\s+node\\s+${NAME}`, "gi"), "node"],
  [new RegExp(`^Node\\s+${NAME}(?=\\s+(?:status|event))`, "g"), "node"],
  [new RegExp(`\\bSuccessfully assigned\\s+[^\\s]{1,512}\\s+to\\s+${NAME}`, "g"), "node"],
  [new RegExp(`\\bnode(?:Name|_name)?=${NAME}`, "gi"), "node"],
  [/\bimage\s+"([^"]{1,512})"/gi, "image"],
  [/\bimage\s+'([^']{1,512})'/gi, "image"],
  [/\breference\s+"([^"]{1,512})"/gi, "image"],
  [/\bpull access denied for ([^\s,"]{1,512})/gi, "image"],
  [/\bimage=([^\s,"]{1,512})/gi, "image"],
  [/\b(?:secrets?|configmaps?|config\s?maps?)\s+"([^"]{1,253})"/gi, "secret"],
  [/\b(?:Secret|ConfigMap)\s+[a-z0-9][a-z0-9.-]{0,252}\/([a-z0-9][a-z0-9.-]{0,252})/g, "secret"],
  [/\b(?:secrets?|configmaps?)\/([a-z0-9][a-z0-9.-]{0,252})/gi, "secret"],
];

/**
 * Redact Kubernetes Event text and termination messages: node names, image references, Secret and
 * ConfigMap names (found by the usual phrasings, plus `hints`), then the whole redaction chain.
 */
export function redactEventText(text: string, hints: EventTextHints = {}): string {
  let s = neutralizePrivateUse(text);
  const names = new Map<string, RedactionKind>();
  for (const n of hints.nodeNames ?? []) names.set(n, "node");
  for (const n of hints.imageRefs ?? []) names.set(n, "image");
  for (const n of hints.secretNames ?? []) names.set(n, "secret");
  for (const n of hints.configMapNames ?? []) names.set(n, "secret");
  for (const [re, kind] of EVENT_PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(s); m !== null; m = re.exec(s)) {
      const name = m[1];
      if (name !== undefined && name.length > 0 && !names.has(name)) names.set(name, kind);
    }
  }
  // Longest names first, so a name inside another is not left as a fragment.
  const ordered = [...names.entries()]
    .filter(([n]) => n.length > 0)
    .sort((a, b) => b[0].length - a[0].length);
  for (const [name, kind] of ordered) s = replaceAll(s, name, M[kind]);
  const values: string[] = [];
  s = protectExisting(s, values);
  return restoreProtected(expandMarkers(redactChain(s)), values);
}

function replaceAll(s: string, needle: string, rep: string): string {
  let i = s.indexOf(needle);
  if (i < 0) return s;
  let out = "";
  let from = 0;
  while (i >= 0) {
    out += s.slice(from, i) + rep;
    from = i + needle.length;
    i = s.indexOf(needle, from);
  }
  return out + s.slice(from);
}
