/** `key-value`: values of secret-named keys in JSON, flags, `key=value`/`key: value` and env style. */
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import {
  closingQuote,
  isKeyChar,
  isPlaceholder,
  isSpace,
  onlyPlaceholders,
  optionalQuote,
  skipBlanks,
  splice,
} from "../scan.ts";

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

export const keyValue: Rule = {
  name: "key-value",
  words: [
    "authorization",
    "cookie",
    "x-api-key",
    "token",
    "secret",
    "passw",
    "pwd",
    "apikey",
    "api.key",
    "credential",
    "private",
    "access",
    "signature",
    "_key",
    "-key",
  ],
  apply: keyValueRule,
};
