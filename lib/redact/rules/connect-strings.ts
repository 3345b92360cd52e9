/**
 * `connect-strings`: credentials in connect strings that are not `scheme://` URLs, masked as
 * `userinfo`. Oracle's `user/password@service` after `jdbc:oracle:<driver>:`, after Oracle's tools
 * (`sqlplus`, `sqlldr`, `expdp`, `impdp`, `rman`, `dgmgrl`) up to the end of the command, after
 * `userid=` and after SQL*Plus's `CONNECT`; and a proxy given without a scheme
 * (`HTTPS_PROXY=user:password@proxy:3128`, `--proxy user:password@proxy`), whose userinfo runs to
 * the last `@` of the word, as a URL's does. A slash escaped by a JSON encoder (`scott\/tiger@orcl`)
 * is the same slash. And the userinfo of a Go MySQL driver's data source name
 * (`user:password@tcp(db:3306)/app`, `@unix(…)`), which has no scheme either.
 */
import { commandEnd, wordAt, wordEnd } from "../grammar.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { type Found, isOneMark, isSpace, skipBlanks, spliceFound } from "../scan.ts";

/** Where an Oracle credential may follow: a JDBC URL, `userid=`, `CONNECT`/`CONN`, or a tool. */
const ORACLE =
  /jdbc:oracle:[a-z0-9]+:|\buserid=|\bconn(?:ect)?[ \t]+|\b(sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)\b/gi;
/** The `@` before the address of a Go MySQL driver's data source name (`user:password@tcp(db:3306)/app`). */
const GO_DSN = /@(?:tcp[46]?|unix)\(/gi;
/** How far back the userinfo of a data source name is read. */
const DSN_USERINFO_MAX = 512;

const isWordEdge = (c: number): boolean =>
  isSpace(c) || c === /* " */ 34 || c === /* ' */ 39 || c === /* backtick */ 96;

/**
 * The userinfos of the Go MySQL data source names in `s` (`user:password@tcp(…)`, found by GO_DSN):
 * each back to the start of its word (a blank or a quote not escaped), past a key's `=` before the
 * user (`DSN=user:password@tcp(…)`). The `@` found is the last before the address, so a password may
 * hold `@`, `:`, `/` or `=`. A word holding several is read once (`@tcp(@tcp(…`: no rescan).
 */
function dsnUserinfos(s: string, found: Found[]): void {
  /** The last match's `@`, and where its word's userinfo starts. */
  let last = -1;
  let userinfo = -1;
  GO_DSN.lastIndex = 0;
  for (let m = GO_DSN.exec(s); m !== null; m = GO_DSN.exec(s)) {
    const at = m.index;
    let start = at;
    const stop = Math.max(0, at - DSN_USERINFO_MAX, last);
    // A quote after a backslash may be the password's own (`pw\"x`): read on, the reading that masks more.
    while (
      start > stop &&
      (!isWordEdge(s.charCodeAt(start - 1)) || s.charCodeAt(start - 2) === /* backslash */ 92)
    )
      start--;
    // The scan stopped at the last match's `@` with no word's edge between: the same word.
    const same = start === last;
    if (same) start = userinfo;
    else {
      userinfo = userinfoStart(s, start, at);
      start = userinfo;
    }
    last = at;
    if (at <= start || isOneMark(s, start, at)) continue;
    // A later `@` of the same word ends its userinfo (`u:p@tcp(ss@tcp(db)/x`'s password is `p@tcp(ss`).
    const previous = found[found.length - 1];
    if (same && previous !== undefined && previous[0] === start)
      found[found.length - 1] = [start, at, M.userinfo];
    else found.push([start, at, M.userinfo]);
  }
}

/** Where the userinfo of a word from `start` with its `@` at `at` starts: past the last `=` before its first `:`. */
function userinfoStart(s: string, start: number, at: number): number {
  let colon = start;
  while (colon < at && s.charCodeAt(colon) !== /* : */ 58) colon++;
  let eq = colon;
  while (eq > start && s.charCodeAt(eq - 1) !== /* = */ 61) eq--;
  return eq;
}

/** A key that names a proxy, and its separator: `=`, `:` or, after a flag, whitespace. */
const PROXY = /proxy["']?(?:[ \t]*[=:][ \t]*|(?<=-proxy)[ \t]+)["']?/gi;

const isUserChar = (c: number): boolean =>
  (c >= /* 0 */ 48 && c <= /* 9 */ 57) ||
  (c >= /* A */ 65 && c <= /* Z */ 90) ||
  (c >= /* a */ 97 && c <= /* z */ 122) ||
  c === /* _ */ 95 ||
  c === /* $ */ 36 ||
  c === /* # */ 35 ||
  c === /* . */ 46;

/**
 * The password of `user/password[@service]` starting at `i` (the user bare or double-quoted, its
 * slash escaped or not; the password double-quoted, or up to the last `@` of the word), as
 * `[start, end)`, or null.
 */
function oraclePassword(s: string, i: number): [number, number] | null {
  let j = i;
  if (s.charCodeAt(j) === /* " */ 34) {
    const close = s.indexOf('"', j + 1);
    if (close < 0) return null;
    j = close + 1;
  } else {
    while (j < s.length && isUserChar(s.charCodeAt(j))) j++;
  }
  if (j === i) return null;
  // The slash as written, or escaped by a JSON encoder that escapes `/` (`scott\/tiger@orcl`).
  const user = j;
  while (s.charCodeAt(j) === /* backslash */ 92 && j - user < 16) j++;
  if (s.charCodeAt(j) !== /* slash */ 47) return null;
  const start = j + 1;
  const end = wordEnd(s, start);
  let stop = end;
  if (s.charCodeAt(start) === /* " */ 34) {
    const close = s.indexOf('"', start + 1);
    stop = close < 0 ? end : close + 1;
  } else {
    // Up to the last `@`. An unquoted password holds no `"` (Oracle wants one that would quoted) and
    // no line break: a JSON string's close or the next line ends it, however far an unbalanced
    // quote carried the shell word (`{"cmd":"sqlplus u/p@orcl"} … key=a@b` ends at `orcl`).
    let at = -1;
    let k = start;
    for (; k < end; k++) {
      const c = s.charCodeAt(k);
      if (c === /* " */ 34 || c === /* \n */ 10 || c === /* \r */ 13) break;
      if (c === /* @ */ 64) at = k;
    }
    stop = at >= 0 ? at : k;
  }
  return stop > start && !isOneMark(s, start, stop) ? [start, stop] : null;
}

/** The last `@` in `[from, to)`, or -1 (searched forward: nothing before `from` is read). */
function lastAt(s: string, from: number, to: number): number {
  let at = -1;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === /* @ */ 64) at = i;
  return at;
}

function connectStringsRule(s: string): string {
  const found: Found[] = [];
  ORACLE.lastIndex = 0;
  for (let m = ORACLE.exec(s); m !== null; m = ORACLE.exec(s)) {
    if (m[1] === undefined) {
      const span = oraclePassword(s, ORACLE.lastIndex);
      if (span !== null) {
        found.push([span[0], span[1], M.userinfo]);
        ORACLE.lastIndex = span[1];
      }
      continue;
    }
    // A tool: every `user/password` among its words, up to the end of the command.
    const stop = commandEnd(s, ORACLE.lastIndex);
    let i = skipBlanks(s, ORACLE.lastIndex);
    while (i < stop) {
      const end = Math.min(wordEnd(s, i), stop);
      const span = oraclePassword(s, wordAt(s, i, "userid=") ? i + 7 : i);
      if (span !== null && span[1] <= stop) found.push([span[0], span[1], M.userinfo]);
      i = skipBlanks(s, Math.max(end, i + 1));
    }
    ORACLE.lastIndex = Math.max(ORACLE.lastIndex, stop);
  }
  dsnUserinfos(s, found);
  PROXY.lastIndex = 0;
  /** The next `://` at or after the value looked at (values come in order). */
  let scheme = -1;
  for (let m = PROXY.exec(s); m !== null; m = PROXY.exec(s)) {
    const v = PROXY.lastIndex;
    if (v >= s.length || isSpace(s.charCodeAt(v))) continue;
    const end = wordEnd(s, v);
    // The rest of the word is this value's (a proxy key inside it is not read again).
    PROXY.lastIndex = end;
    if (scheme < v) {
      const next = s.indexOf("://", v);
      scheme = next < 0 ? s.length : next;
    }
    // With a scheme, the userinfo rule reads it.
    if (scheme < end) continue;
    const at = lastAt(s, v, end);
    if (at > v && !isOneMark(s, v, at)) found.push([v, at, M.userinfo]);
  }
  return spliceFound(s, found);
}

export const connectStrings: Rule = {
  name: "connect-strings",
  words: [
    ...["oracle:", "userid=", "conn", "sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "proxy"],
    ...["@tcp", "@unix("],
  ],
  apply: connectStringsRule,
};
