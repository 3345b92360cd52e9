/**
 * The URL rules against their definitions (docs/redaction.md), written here one character at a
 * time: `userinfo` masks what sits between `scheme://` and the last `@` of the authority, `query`
 * every value of a query string or fragment. Generated text packs every character the rules' scans
 * stop at (URL ends, brackets, `/ ? # @ & ; = :` as written and percent-encoded, quotes, placeholders)
 * at random places, so their skipping over the characters in between starts and stops everywhere.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";
import { M } from "../../../lib/redact/marks.ts";
import { query } from "../../../lib/redact/rules/query.ts";
import { userinfo } from "../../../lib/redact/rules/userinfo.ts";
import { isAlnum, isOneMark, startLedger } from "../../../lib/redact/scan.ts";

const isSpace = (c: number): boolean => c <= 0x20;

function masked(s: string, spans: number[], mark: string): string {
  let out = "";
  let from = 0;
  for (let k = 0; k < spans.length; k += 2) {
    out += s.slice(from, spans[k]) + mark;
    from = spans[k + 1]!;
  }
  return out + s.slice(from);
}

/**
 * What the text at `k` reads as in a URL: one of `: / ? # @`, as written or percent-encoded once or
 * twice (any hex case), with its depth and length; null for anything else.
 */
function urlCharAt(s: string, k: number): { ch: string; depth: number; length: number } | null {
  if (k >= s.length) return null;
  const m = /^%(25)?([0-9a-fA-F]{2})/.exec(s.slice(k, k + 5));
  const ch = m === null ? s[k]! : String.fromCharCode(Number.parseInt(m[2]!, 16));
  if (!":/?#@".includes(ch)) return null;
  return m === null ? { ch, depth: 0, length: 1 } : { ch, depth: m[1] ? 2 : 1, length: m[0].length };
}

/** A slash at `k` (escaped by backslashes, or percent-encoded): where it ends and its depth. */
function slashAt(s: string, k: number): { end: number; depth: number } | null {
  let j = k;
  while (s[j] === "\\") j++;
  if (s[j] === "/") return { end: j + 1, depth: 0 };
  const e = urlCharAt(s, k);
  return e?.ch === "/" ? { end: k + e.length, depth: e.depth } : null;
}

/** The first `://` in any form at or after `from`: where it starts and ends, and its deepest encoding. */
function schemeEndFrom(s: string, from: number): { i: number; start: number; depth: number } | null {
  for (let i = from; i < s.length; i++) {
    const colon = urlCharAt(s, i);
    if (colon?.ch !== ":") continue;
    const a = slashAt(s, i + colon.length);
    const b = a === null ? null : slashAt(s, a.end);
    if (a !== null && b !== null) return { i, start: b.end, depth: Math.max(colon.depth, a.depth, b.depth) };
  }
  return null;
}

/** `userinfo` by its definition: the authority is scanned character by character. */
function userinfoByDefinition(s: string): string {
  const spans: number[] = [];
  for (let found = schemeEndFrom(s, 0); found !== null; ) {
    const { i, start, depth } = found;
    // A percent-encoded URL is a parameter's value: `&` ends it.
    const urlEnd = (c: number): boolean =>
      isSpace(c) || c === 34 || c === 96 || c === 60 || c === 62 || (depth > 0 && c === 38);
    let end = start;
    let delim = -1;
    let lastAt = -1;
    let atBeforeDelim = false;
    for (; end < s.length && !urlEnd(s.charCodeAt(end)); end++) {
      const e = urlCharAt(s, end);
      if (e?.ch === "@") {
        lastAt = end;
        if (delim < 0) atBeforeDelim = true;
        // A delimiter encoded deeper than the `://` is data (a bare token's `/`).
      } else if (e !== null && e.ch !== ":" && e.depth <= depth && delim < 0) delim = end;
    }
    let colon = start;
    while (colon < delim && urlCharAt(s, colon)?.ch !== ":") colon++;
    const after = colon < delim ? colon + urlCharAt(s, colon)!.length : -1;
    const passwordLike =
      after >= 0 && (/[^0-9]/.test(s.slice(after, delim)) || colon === start || delim === after);
    const at = atBeforeDelim ? lastAt : lastAt > delim && delim >= 0 && passwordLike ? lastAt : -1;
    const masked = i > 0 && isAlnum(s.charCodeAt(i - 1)) && at > start && !isOneMark(s, start, at);
    if (masked) spans.push(start, at);
    // On past the mask; into an authority without userinfo when an `@` follows (another URL's may be
    // in its path); past the URL otherwise.
    found = schemeEndFrom(s, masked ? at : lastAt >= 0 ? start : Math.max(end, start));
  }
  return masked(s, spans, M.userinfo);
}

/** `query` by its definition: paths and parameters are scanned character by character. */
function queryByDefinition(s: string): string {
  const urlEnd = (c: number): boolean =>
    isSpace(c) || c === 34 || c === 39 || c === 60 || c === 62 || c === 96;
  const spans: number[] = [];
  const n = s.length;
  let lastDelim = -1;
  let lastSlash = -1;
  for (let i = 0; i < n; ) {
    const ch = s[i]!;
    if (urlEnd(s.charCodeAt(i)) || "()[]{}".includes(ch)) lastDelim = i;
    else if (ch === "/") lastSlash = i;
    else if ((ch === "?" || ch === "#") && lastSlash > lastDelim) {
      let fragment = ch === "#";
      i++;
      while (i < n) {
        const start = i;
        let eq = -1;
        for (; i < n; i++) {
          const c = s[i]!;
          if (urlEnd(s.charCodeAt(i)) || c === "&" || c === ";" || (c === "#" && !fragment)) break;
          if (c === "=" && eq < 0) eq = i;
        }
        const valueStart = eq >= 0 ? eq + 1 : fragment ? start : -1;
        if (valueStart >= 0 && i < n && `"'\``.includes(s[i]!)) {
          if (i === valueStart || s[i - 1] === "=" || s[i - 1] === ":") {
            const close = s.indexOf(s[i]!, i + 1);
            i = close < 0 ? n : close + 1;
          }
        }
        if (valueStart >= 0 && i > valueStart && !isOneMark(s, valueStart, i)) spans.push(valueStart, i);
        if (i >= n) break;
        if (s[i] === "#") fragment = true;
        else if (s[i] !== "&" && s[i] !== ";") break;
        i++;
      }
      lastDelim = i;
      continue;
    }
    i++;
  }
  return masked(s, spans, M.query);
}

/** `: / ? # @` percent-encoded (once, twice, either hex case, cut short), and slashes JSON-escaped. */
const ENCODED = [
  ...["%3A", "%3a", "%2F", "%2f", "%40", "%3F", "%23", "%253A", "%252F", "%252f", "%2540", "%253f", "%2523"],
  ...["%", "%2", "%25", "%4", "\\", "\\/", "%3A\\/\\/", "u%3Ap%40", "h%3A5432"],
  ...["https%3A%2F%2F", "a%3a%2f%2f", ":%2F%2F", "%3A//", "%253A%252F%252F"],
];

const piece = fc.oneof(
  fc.constantFrom("://", "https://", "a://", "/", "?", "#", "@", "&", ";", "=", ":", "u:p@", "h:5432"),
  fc.constantFrom(...ENCODED),
  fc.constantFrom(" ", '"', "'", "`", "<", ">", "(", ")", "[", "]", "{", "}", "\t", "\u00e9", "\ue101"),
  fc.string({ unit: fc.constantFrom("a", "B", "7", "-", "."), minLength: 1, maxLength: 20 }),
);
const text = fc.array(piece, { minLength: 1, maxLength: 30 }).map((p) => p.join(""));

describe("URL rules", () => {
  it("userinfo masks as its definition says", () => {
    fc.assert(
      fc.property(text, (s) => {
        startLedger();
        expect(userinfo.apply(s)).toBe(userinfoByDefinition(s));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    [
      "https://web.archive.org/web/2020/https://u1:A1b2c3@db/x",
      "https://web.archive.org/web/2020/https://[redacted:userinfo]@db/x",
    ],
    ["https://app.example/go?https://u1:A1b2c3@db", "https://app.example/go?https://[redacted:userinfo]@db"],
    [
      "https://proxy/fetch/redis://:A1b2c3@cache:6379/0 ok",
      "https://proxy/fetch/redis://[redacted:userinfo]@cache:6379/0 ok",
    ],
    [
      "see https://a.example/@team then git+ssh://TOKEN1a@github.com/o/r",
      "see https://a.example/@team then git+ssh://[redacted:userinfo]@github.com/o/r",
    ],
  ])("a URL inside another's path or query is read too: %s", (line, expected) => {
    expect(redactText(line)).toBe(expected);
  });

  it("query masks as its definition says", () => {
    fc.assert(
      fc.property(text, (s) => {
        startLedger();
        expect(query.apply(s)).toBe(queryByDefinition(s));
      }),
      { numRuns: 3000 },
    );
  });
});
