/**
 * `userinfo`: the userinfo of any `scheme://` authority, masked whole → `scheme://[redacted:userinfo]@`.
 * URLs are parsed, not pattern-matched: the authority ends at the last `@` before the host, so an
 * empty user (`redis://:pw@`), a bare token as user (`https://TOKEN@host`) and `@`, `/`, `?`, `#` or
 * `:` inside the password are all masked whole. A URL in JSON whose encoder escapes `/` (PHP's
 * `json_encode`: `https:\/\/u:p@host\/x`, at any depth) is the same URL. A URL inside another
 * whose own authority holds no userinfo (in its path or query: `https://archive/web/https://u:p@h`)
 * is read as well.
 */
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
/**
 * Per code (`textCodes`): what the scan to a URL's end stops at: END its end, AT an `@`. Past the
 * text: code 0, a URL end.
 */
const TO_END = new Uint8Array(256);
/** Per code: what the scan of an authority stops at: a URL end, an `@`, or a `/`, `?` or `#`. */
const IN_AUTHORITY = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if (isUrlEnd(c)) TO_END[c] = END;
  else if (c === /* @ */ 64) TO_END[c] = AT;
  IN_AUTHORITY[c] = Number(TO_END[c] !== 0 || c === /* slash */ 47 || c === /* ? */ 63 || c === /* # */ 35);
}

/** A scheme's `://`, its slashes escaped or not (`:\/\/`, `:\\\/\\\/`). */
const SCHEME_END = /:\\*\/\\*\//g;

/**
 * The scans of one text's URLs, each remembering its last answer: a URL inside another ends where
 * the outer one does and sees the same last `@`, so reading both costs one scan, not two.
 */
class Scans {
  /** The URL end first at or after `endFrom`, and the last `@` before it (-1: none). */
  private endFrom = -1;
  private end = -1;
  private lastAt = -1;
  /** The `@` or delimiter first at or after `stopFrom` (or a URL end, or the text's end). */
  private stopFrom = -1;
  private stop = -1;

  constructor(
    private readonly codes: Uint8Array,
    private readonly n: number,
  ) {}

  /** Where the URL whose authority starts at `start` ends. */
  endOf(start: number): number {
    if (start < this.endFrom || start > this.end) {
      const codes = this.codes;
      const n = this.n;
      let i = start;
      let lastAt = -1;
      // The authority's first stop on the way.
      while (IN_AUTHORITY[codes[i]!] === 0) i++;
      this.stopFrom = start;
      this.stop = i;
      for (; i < n; i++) {
        while (TO_END[codes[i]!] === 0) i++;
        if (TO_END[codes[i]!] === END) break;
        lastAt = i;
      }
      this.endFrom = start;
      this.end = Math.min(i, n);
      this.lastAt = lastAt;
    }
    return this.end;
  }

  /** The last `@` of the URL whose authority starts at `start` (after `endOf(start)`), or -1. */
  lastAtOf(start: number): number {
    return this.lastAt >= start ? this.lastAt : -1;
  }

  /** The first `@` or delimiter at or after `start` (a URL end or the text's end if neither comes first). */
  stopOf(start: number): number {
    if (start < this.stopFrom || start > this.stop) {
      const codes = this.codes;
      let i = start;
      while (IN_AUTHORITY[codes[i]!] === 0) i++;
      this.stopFrom = start;
      this.stop = i;
    }
    return this.stop;
  }
}

function userinfoRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  SCHEME_END.lastIndex = 0;
  let found = SCHEME_END.exec(s);
  if (found === null) return s;
  const codes = textCodes(s);
  const scans = new Scans(codes, s.length);
  while (found !== null) {
    const i = found.index;
    const start = i + found[0].length;
    // The URL: up to whitespace or a quote. With a userinfo, the host follows the last `@`: the
    // password may hold `@`, `/`, `?`, `#` (`u:p@s/s?x@db`); a later `@` that was really in the
    // path only masks more.
    const end = scans.endOf(start);
    const lastAt = scans.lastAtOf(start);
    let at = -1;
    if (lastAt >= 0) {
      // `@` before the first `/`, `?` or `#` is the userinfo separator. Without one, a colon
      // followed by something that is not a port still means the delimiter sits inside a password
      // (`user:pa/ss@host`).
      const stop = scans.stopOf(start);
      if (codes[stop] === /* @ */ 64 || passwordLike(s, start, stop)) at = lastAt;
    }
    const schemeOk = i > 0 && isAlnum(codes[i - 1]!);
    const masked = schemeOk && at > start && !isOneMark(s, start, at);
    if (masked) {
      spans.push(start, at);
      reps.push(M.userinfo);
    }
    // Read on past what is masked; through an authority without userinfo, whose path or query may
    // hold another URL's, if an `@` follows; past the URL when none does.
    SCHEME_END.lastIndex = masked ? at : lastAt >= 0 ? start : Math.max(end, start);
    found = SCHEME_END.exec(s);
  }
  return splice(s, spans, reps);
}

/** Whether `[start, delim)` reads as `user:password…` rather than `host:port`. */
function passwordLike(s: string, start: number, delim: number): boolean {
  const colon = s.indexOf(":", start);
  if (colon < 0 || colon >= delim) return false;
  for (let k = colon + 1; k < delim; k++) {
    const c = s.charCodeAt(k);
    if (c < /* 0 */ 48 || c > /* 9 */ 57) return true;
  }
  // `host:` followed by digits only is a port; an empty user (`redis://:p/w@`) is not a host.
  return colon === start || delim === colon + 1;
}

export const userinfo: Rule = { name: "userinfo", words: ["://", ":\\/", ":\\\\"], apply: userinfoRule };
