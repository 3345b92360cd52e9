/**
 * `userinfo`: the userinfo of any `scheme://` authority, masked whole → `scheme://[redacted:userinfo]@`.
 * URLs are parsed, not pattern-matched: the authority ends at the last `@` before the host, so an
 * empty user (`redis://:pw@`), a bare token as user (`https://TOKEN@host`) and `@`, `/`, `?`, `#` or
 * `:` inside the password are all masked whole. A URL in JSON whose encoder escapes `/` (PHP's
 * `json_encode`: `https:\/\/u:p@host\/x`, at any depth) is the same URL.
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

/**
 * Per code (`textCodes`): what a URL scan stops at, as a bit: 1 its end or an `@`, anywhere; 2 a
 * `/`, `?` or `#`, until the first of them.
 */
const STOPS = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  if (isUrlEnd(c) || c === /* @ */ 64) STOPS[c] = 1;
  else if (c === /* slash */ 47 || c === /* ? */ 63 || c === /* # */ 35) STOPS[c] = 2;
}

/** A scheme's `://`, its slashes escaped or not (`:\/\/`, `:\\\/\\\/`). */
const SCHEME_END = /:\\*\/\\*\//g;

function userinfoRule(s: string): string {
  const spans: number[] = [];
  const reps: string[] = [];
  const n = s.length;
  SCHEME_END.lastIndex = 0;
  let found = SCHEME_END.exec(s);
  if (found === null) return s;
  const codes = textCodes(s);
  while (found !== null) {
    const i = found.index;
    const start = i + found[0].length;
    // The URL: up to whitespace or a quote. Within it, the first `/`, `?` or `#` ends a plain
    // authority; `@` before it is the userinfo separator (the last one wins).
    let end = start;
    let delim = -1;
    let lastAt = -1;
    let atBeforeDelim = -1;
    /** The stops still looked for: the delimiters until the first. */
    let stops = 3;
    for (; end < n; end++) {
      // Past the end: code 0, a URL end.
      while ((STOPS[codes[end]!]! & stops) === 0) end++;
      const c = codes[end]!;
      if (end >= n || isUrlEnd(c)) break;
      if (c === /* @ */ 64) {
        lastAt = end;
        if (delim < 0) atBeforeDelim = end;
      } else {
        delim = end;
        stops = 1;
      }
    }
    // With a userinfo, the host follows the last `@`: the password may hold `@`, `/`, `?`, `#`
    // (`u:p@s/s?x@db`); a later `@` that was really in the path only masks more. Without an `@`
    // before the first `/`, `?` or `#`, a colon followed by something that is not a port still
    // means the delimiter sits inside a password (`user:pa/ss@host`).
    let at = -1;
    if (atBeforeDelim >= 0) at = lastAt;
    else if (lastAt > delim && delim >= 0 && passwordLike(s, start, delim)) at = lastAt;
    const schemeOk = i > 0 && isAlnum(codes[i - 1]!);
    if (schemeOk && at > start && !isOneMark(s, start, at)) {
      spans.push(start, at);
      reps.push(M.userinfo);
    }
    SCHEME_END.lastIndex = Math.max(end, start);
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
