/** `bearer`, `basic`, `netrc`: credentials after an authentication scheme or a netrc `login`. */

import { wordAt, wordEnd } from "../grammar.ts";
import { M } from "../marks.ts";
import type { Rule } from "../rule.ts";
import { ALPHABET, type Found, isAlnum, MARK_CODE, skipBlanks, spliceFound, textCodes } from "../scan.ts";

const BEARER = /\bbearer\s+/gi;
const BASIC = /\bbasic\s+/gi;
const NETRC = /\blogin\s+/gi;

const isB64Token = (c: number): boolean =>
  isAlnum(c) ||
  c === /* - */ 45 ||
  c === /* . */ 46 ||
  c === /* _ */ 95 ||
  c === /* ~ */ 126 ||
  c === /* + */ 43 ||
  c === /* slash */ 47 ||
  c === /* = */ 61;

/**
 * Per code (`textCodes`): bit 1 a bearer token character (`isB64Token`, or a placeholder), bit 2 a
 * digit, bit 4 a basic credential character (standard base64, no padding).
 */
const CLASS = new Uint8Array(256);
for (let c = 0; c < 128; c++)
  CLASS[c] =
    (isB64Token(c) ? 1 : 0) | (c >= /* 0 */ 48 && c <= /* 9 */ 57 ? 2 : 0) | (ALPHABET[c]! & 1 ? 4 : 0);
CLASS[MARK_CODE] = 1;

/**
 * Where a match of `\b<word>\s+` that ends at `end` starts: back over its blanks to the word's last
 * letter. Found with `test`, not `exec`: a match object per scheme word costs as much as reading
 * what follows it on a line of them.
 */
function schemeStart(s: string, end: number, word: string): number {
  const last = word.charCodeAt(word.length - 1);
  // White space ORed with 0x20 is never a lower-case letter; the letter either case is.
  while ((s.charCodeAt(end - 1) | 0x20) !== last) end--;
  return end - word.length;
}

function authSchemesRule(s: string): string {
  const found: Found[] = [];
  // Past the end: code 0, in no class.
  const codes = textCodes(s);
  BEARER.lastIndex = 0;
  while (BEARER.test(s)) {
    let j = BEARER.lastIndex;
    let kinds = 0;
    for (let t = CLASS[codes[j]!]!; t & 1; t = CLASS[codes[++j]!]!) kinds |= t;
    if (kinds & 2) {
      found.push([schemeStart(s, BEARER.lastIndex, "bearer"), j, M.bearer]);
      BEARER.lastIndex = j;
    }
  }
  BASIC.lastIndex = 0;
  while (BASIC.test(s)) {
    const v = BASIC.lastIndex;
    let j = v;
    while (CLASS[codes[j]!]! & 4) j++;
    while (codes[j] === /* = */ 61 && j - v < 1100) j++;
    if (j - v >= 8 && j - v <= 1024 && (j - v) % 4 === 0 && decodesToUserPass(s.slice(v, j))) {
      found.push([schemeStart(s, v, "basic"), j, M.basic]);
      BASIC.lastIndex = j;
    }
  }
  NETRC.lastIndex = 0;
  while (NETRC.test(s)) {
    const userEnd = wordEnd(s, NETRC.lastIndex);
    if (userEnd === NETRC.lastIndex) continue;
    const p = skipBlanks(s, userEnd);
    if (p === userEnd || !wordAt(s, p, "password")) continue;
    const v = skipBlanks(s, p + 8);
    if (v === p + 8) continue;
    const end = wordEnd(s, v);
    if (end === v) continue;
    found.push([schemeStart(s, NETRC.lastIndex, "login"), end, M.netrc]);
    NETRC.lastIndex = end;
  }
  return spliceFound(s, found);
}

function decodesToUserPass(b64: string): boolean {
  const bytes = Buffer.from(b64, "base64");
  const colon = bytes.indexOf(/* : */ 58);
  if (colon < 1 || colon === bytes.length - 1) return false;
  for (const b of bytes) if (b < /* space */ 0x20 || b === /* DEL */ 0x7f) return false;
  return Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
}

export const authSchemes: Rule = {
  name: "auth-schemes",
  words: ["bearer", "basic", "login"],
  apply: authSchemesRule,
};
