/**
 * ANSI/VT escape sequences (CSI, OSC, DCS, APC, PM, two-byte ESC): what a terminal reads as
 * formatting, not text. The log path strips them all (`stripControls`); the redaction shadow reads
 * through colour and line erasure (`formatEnd`), so a coloured key or value
 * (`\x1b[36mpassword\x1b[0m=v`, `password=\x1b[35mv\x1b[0m`) is still one.
 */

/** Whether `s` holds a colour or line-erasing sequence (`formatEnd`). */
export function holdsFormat(s: string): boolean {
  for (const lead of ["\x1b", "\x9b"])
    for (let i = s.indexOf(lead); i >= 0; i = s.indexOf(lead, i + 1)) if (formatEnd(s, i) > 0) return true;
  return false;
}

/**
 * Index just past the colour (SGR, `ESC [ … m`) or line-erasing (`ESC [ … K`) sequence starting at
 * `i`, as `ESC [` or C1's CSI; -1 if none starts there. Only these two are read through: they are
 * what loggers write, and their final letter is formatting to a reader too; any other sequence's
 * characters stay in the shadow, so no reading of it can hide a key the text spells.
 */
export function formatEnd(s: string, i: number): number {
  let j: number;
  if (s.charCodeAt(i) === 0x9b) j = i + 1;
  else if (s.charCodeAt(i) === 0x1b && s.charCodeAt(i + 1) === /* [ */ 0x5b) j = i + 2;
  else return -1;
  // Parameters: digits, `;` and `:` (`38;5;208`, `38:2::255:0:0`), a bounded run.
  const stop = Math.min(s.length, j + 32);
  while (j < stop) {
    const c = s.charCodeAt(j);
    if ((c >= /* 0 */ 0x30 && c <= /* 9 */ 0x39) || c === /* ; */ 0x3b || c === /* : */ 0x3a) j++;
    else break;
  }
  const final = s.charCodeAt(j);
  return final === /* m */ 0x6d || final === /* K */ 0x4b ? j + 1 : -1;
}

/** Index just past the escape sequence starting at `i` (ESC or C1 CSI). */
export function escapeSequenceEnd(s: string, i: number): number {
  const n = s.length;
  let j: number;
  let kind: number;
  if (s.charCodeAt(i) === 0x9b) {
    j = i + 1;
    kind = 0x5b;
  } else {
    if (i + 1 >= n) return i + 1;
    kind = s.charCodeAt(i + 1);
    j = i + 2;
  }
  if (kind === 0x5b) {
    // CSI: parameter bytes 0x30–0x3f, intermediates 0x20–0x2f, one final byte 0x40–0x7e.
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c >= 0x30 && c <= 0x3f) j++;
      else break;
    }
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c >= 0x20 && c <= 0x2f) j++;
      else break;
    }
    if (j < n) {
      const c = s.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) return j + 1;
    }
    return j;
  }
  if (kind === 0x5d || kind === 0x50 || kind === 0x5f || kind === 0x5e) {
    // OSC / DCS / APC / PM: up to BEL or ST (ESC \); unterminated runs to the end.
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c === 0x07) return j + 1;
      if (c === 0x1b) return s.charCodeAt(j + 1) === 0x5c ? j + 2 : j;
      if (c === 0x9c) return j + 1;
      j++;
    }
    return n;
  }
  if (kind >= 0x20 && kind <= 0x7e) return j; // two-byte escape (ESC c, ESC 7, ESC ( B starts …)
  return i + 1;
}
