/**
 * `userinfo`: the userinfo of any `scheme://` authority, masked whole → `scheme://[redacted:userinfo]@`.
 * URLs are parsed, not pattern-matched: the authority ends at the last `@` before the host, so an
 * empty user (`redis://:pw@`), a bare token as user (`https://TOKEN@host`) and `@`, `/`, `?`, `#` or
 * `:` inside the password are all masked whole. A URL in JSON whose encoder escapes `/` (PHP's
 * `json_encode`: `https:\/\/u:p@host\/x`, at any depth) is the same URL. So is a URL percent-encoded
 * whole or in part, once or twice, as a parameter's value carries it (`next=https%3A%2F%2Fu%3Ap%40h`,
 * `https%3A//u:p@h`, `%253A%252F%252F`): each of `: / ? # @` may be written `%XX` or `%25XX`, in
 * either case of hex digit. A URL inside another whose own authority holds no userinfo (in its path
 * or query: `https://archive/web/https://u:p@h`) is read as well.
 */
import { hexValue } from "../escapes.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { isAlnum, isOneMark, isSpace, splice, textCodes } from "../scan.ts";

/**
 * Where a URL ends: whitespace, double quotes, backticks and angle brackets (none may sit in a URL
 * unescaped; a single quote may, as a sub-delimiter inside a password).
 */
const isUrlEnd = (c: number): boolean =>
  isSpace(c) || c === /* " */ 34 || c === /* backtick */ 96 || c === /* < */ 60 || c === /* > */ 62;

const END = 1;
const AT = 2;
/** A `%`: maybe an encoded `@`, delimiter or colon. */
const PERCENT = 3;
/**
 * Per code (`textCodes`): what the scan to a URL's end stops at: END its end, AT an `@`, PERCENT.
 * Past the text: code 0, a URL end.
 */
const TO_END = new Uint8Array(256);
/**
 * The same for a percent-encoded URL, which `&` also ends: it is the value of a parameter, and its
 * own `&` would be encoded (`%26`).
 */
const TO_ENCODED_END = new Uint8Array(256);
/** Per code: what the scan of an authority stops at: a URL end, an `@`, a `/`, `?` or `#`, or a `%`. */
const IN_AUTHORITY = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if (isUrlEnd(c)) TO_END[c] = END;
  else if (c === /* @ */ 64) TO_END[c] = AT;
  else if (c === /* % */ 37) TO_END[c] = PERCENT;
  TO_ENCODED_END[c] = c === /* & */ 38 ? END : TO_END[c]!;
  IN_AUTHORITY[c] = Number(TO_END[c] !== 0 || c === /* slash */ 47 || c === /* ? */ 63 || c === /* # */ 35);
}

/** A scheme's `://`, its slashes escaped or not (`:\/\/`, `:\\\/\\\/`). */
const SCHEME_END = /:\\*\/\\*\//g;
/**
 * A scheme's `://` in any form: each character as written or percent-encoded once or twice, in
 * either case of hex digit, a slash escaped or not. Searched only in text that holds a `%`: the
 * alternation at its start makes every search slower.
 */
const ANY_SCHEME_END = /(?::|%(?:25)?3[Aa])(?:\\*\/|%(?:25)?2[Ff])(?:\\*\/|%(?:25)?2[Ff])/g;

/**
 * The character percent-encoded at `k` (`%XX`, or `%25XX`: encoded twice) as `code | depth << 8`,
 * or -1. `codes` ends in two zero codes, which are no hex digit: nothing is read past them.
 */
function percentAt(codes: Uint8Array, k: number): number {
  if (codes[k + 1] === /* 2 */ 50 && codes[k + 2] === /* 5 */ 53) {
    const hi = hexValue(codes[k + 3]!);
    const lo = hi < 0 ? -1 : hexValue(codes[k + 4]!);
    if (lo >= 0) return (hi << 4) | lo | (2 << 8);
  }
  const hi = hexValue(codes[k + 1]!);
  const lo = hi < 0 ? -1 : hexValue(codes[k + 2]!);
  return lo >= 0 ? (hi << 4) | lo | (1 << 8) : -1;
}

/** Whether an `@` is at `k`, as written or percent-encoded (`%40`, `%2540`). */
const isAtSign = (codes: Uint8Array, k: number): boolean =>
  codes[k] === /* @ */ 64 || (codes[k] === /* % */ 37 && (percentAt(codes, k) & 0xff) === /* @ */ 64);

/** Index past a colon at `k`, as written or percent-encoded (`%3A`, `%253A`), or -1. */
function colonEnd(codes: Uint8Array, k: number): number {
  if (codes[k] === /* : */ 58) return k + 1;
  const p = codes[k] === /* % */ 37 ? percentAt(codes, k) : -1;
  return (p & 0xff) === /* : */ 58 ? k + (p >> 8 === 2 ? 5 : 3) : -1;
}

/**
 * The scans of one text's URLs, each remembering its last answer: a URL inside another ends where
 * the outer one does and sees the same last `@`, so reading both costs one scan, not two. Kept per
 * kind of URL: plain or percent-encoded (its end), and the depth of its encoding (its delimiters).
 */
class Scans {
  /** By kind (0 plain, 1 encoded): the end first at or after `endFrom`, the last `@` before it (-1: none). */
  private readonly endFrom = Int32Array.of(-1, -1);
  private readonly end = Int32Array.of(-1, -1);
  private readonly lastAt = Int32Array.of(-1, -1);
  /**
   * By depth: the `@` or delimiter first at or after `stopFrom` (or a URL end, or the text's end).
   * A delimiter counts if it is encoded no deeper than the URL's `://`: deeper, it is data (a bare
   * token's `/` in `https%3A%2F%2Ftok%252Fen%40h`).
   */
  private readonly stopFrom = Int32Array.of(-1, -1, -1);
  private readonly stop = Int32Array.of(-1, -1, -1);

  constructor(
    private readonly codes: Uint8Array,
    private readonly n: number,
  ) {}

  /** Where the URL whose authority starts at `start` ends. */
  endOf(start: number, encoded: number): number {
    if (start < this.endFrom[encoded]! || start > this.end[encoded]!) {
      const codes = this.codes;
      const n = this.n;
      const table = encoded === 1 ? TO_ENCODED_END : TO_END;
      let i = start;
      let lastAt = -1;
      for (; i < n; i++) {
        while (table[codes[i]!] === 0) i++;
        const kind = table[codes[i]!];
        if (kind === END) break;
        if (kind === AT || isAtSign(codes, i)) lastAt = i;
      }
      this.endFrom[encoded] = start;
      this.end[encoded] = i;
      this.lastAt[encoded] = lastAt;
    }
    return this.end[encoded]!;
  }

  /** The last `@` of the URL whose authority starts at `start` (after `endOf(start)`), or -1. */
  lastAtOf(start: number, encoded: number): number {
    const lastAt = this.lastAt[encoded]!;
    return lastAt >= start ? lastAt : -1;
  }

  /** The first `@` or delimiter at or after `start` (a URL end or the text's end if neither comes first). */
  stopOf(start: number, depth: number): number {
    if (start < this.stopFrom[depth]! || start > this.stop[depth]!) {
      const codes = this.codes;
      let i = start;
      for (; ; i++) {
        while (IN_AUTHORITY[codes[i]!] === 0) i++;
        if (codes[i] !== /* % */ 37) break;
        const p = percentAt(codes, i);
        if (p < 0) continue;
        const c = p & 0xff;
        if (c === /* @ */ 64) break;
        if ((c === /* slash */ 47 || c === /* ? */ 63 || c === /* # */ 35) && p >> 8 <= depth) break;
      }
      this.stopFrom[depth] = start;
      this.stop[depth] = i;
    }
    return this.stop[depth]!;
  }
}

function userinfoRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  const schemeEnd = s.includes("%") ? ANY_SCHEME_END : SCHEME_END;
  schemeEnd.lastIndex = 0;
  let found = schemeEnd.exec(s);
  if (found === null) return s;
  const codes = textCodes(s);
  const scans = new Scans(codes, s.length);
  while (found !== null) {
    const i = found.index;
    const start = i + found[0].length;
    // How deep the `://` is percent-encoded: the deepest of its three characters.
    let depth = 0;
    if (schemeEnd === ANY_SCHEME_END)
      for (let k = i; k < start; k++)
        if (codes[k] === /* % */ 37) depth = Math.max(depth, percentAt(codes, k) >> 8);
    const encoded = depth > 0 ? 1 : 0;
    // The URL: up to whitespace or a quote (or `&`, encoded). With a userinfo, the host follows the
    // last `@`: the password may hold `@`, `/`, `?`, `#` (`u:p@s/s?x@db`); a later `@` that was
    // really in the path only masks more.
    const end = scans.endOf(start, encoded);
    const lastAt = scans.lastAtOf(start, encoded);
    let at = -1;
    if (lastAt >= 0) {
      // `@` before the first `/`, `?` or `#` is the userinfo separator. Without one, a colon
      // followed by something that is not a port still means the delimiter sits inside a password
      // (`user:pa/ss@host`).
      const stop = scans.stopOf(start, depth);
      if (isAtSign(codes, stop) || passwordLike(codes, start, stop)) at = lastAt;
    }
    const schemeOk = i > 0 && isAlnum(codes[i - 1]!);
    const masked = schemeOk && at > start && !isOneMark(s, start, at);
    if (masked) {
      spans.push(start, at);
      reps.push(M.userinfo);
    }
    // Read on past what is masked; through an authority without userinfo, whose path or query may
    // hold another URL's, if an `@` follows; past the URL when none does.
    schemeEnd.lastIndex = masked ? at : lastAt >= 0 ? start : Math.max(end, start);
    found = schemeEnd.exec(s);
  }
  return splice(s, spans, reps);
}

/**
 * Whether `[start, delim)` reads as `user:password…` rather than `host:port`: its first colon
 * (`:`, `%3A`, `%253A`) is followed by something that is not a port.
 */
function passwordLike(codes: Uint8Array, start: number, delim: number): boolean {
  let colon = start;
  let after = -1;
  for (; colon < delim; colon++) {
    after = colonEnd(codes, colon);
    if (after >= 0) break;
  }
  if (after < 0) return false;
  for (let k = after; k < delim; k++) {
    const c = codes[k]!;
    if (c < /* 0 */ 48 || c > /* 9 */ 57) return true;
  }
  // `host:` followed by digits only is a port; an empty user (`redis://:p/w@`) is not a host.
  return colon === start || delim === after;
}

/**
 * Every way a `://` may start: as written, its slashes escaped or encoded, and its colon encoded
 * once (before a slash in any form) or twice (ASCII case-insensitively, as triggers are matched).
 */
const WORDS = ["://", ":\\/", ":\\\\", ":/\\", ":/%", ":%2", "%3a/", "%3a\\", "%3a%2", "%253a"];

export const userinfo: Rule = { name: "userinfo", words: WORDS, apply: userinfoRule };
