/**
 * Terminal safety for everything the CLI prints. Cluster text is hostile: a log line could move
 * the cursor, rewrite earlier output, reorder text with bidi overrides or hide characters.
 *
 * Escaped: C0 controls, DEL and C1 controls (`\xNN` below U+0080, `\u{…}` above), every format
 * character (`\p{Cf}`: bidi embeddings/overrides/isolates, LRM/RLM/ALM, zero-width space/joiners,
 * word joiner, BOM, tag characters…), line/paragraph separators and lone surrogates (`\u{D800}`).
 * Invalid UTF-8 bytes never reach these functions as such: `decodeUtf8Lenient` turns them into
 * `\xNN` text first. Backslashes are left alone, so Windows paths stay readable.
 */

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function escapeCodePoint(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return `\\x${cp.toString(16).toUpperCase().padStart(2, "0")}`;
  return `\\u{${cp.toString(16).toUpperCase()}}`;
}

/** Text safe to write to a terminal: one visual line, no invisible or reordering characters. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, escapeCodePoint);
}

/** True when `text` holds nothing that `escapeText` would change. */
export function isSafeText(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return !found;
}

/**
 * Makes serialized JSON terminal-safe without changing what it means: unsafe characters can only
 * sit inside string literals (JSON text outside strings is ASCII), so each becomes a `\uXXXX`
 * escape per UTF-16 code unit. JSON.stringify already escapes C0 and lone surrogates; this adds
 * DEL, C1, format and separator characters.
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE, (ch) => {
    let out = "";
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  });
}

/**
 * Decodes UTF-8 like TextDecoder, except that each byte of an invalid sequence becomes the text
 * `\xNN` (or `\\xNN` with `jsonString`, for bytes that sit inside a JSON string literal) instead
 * of U+FFFD, so the user sees what the server actually sent.
 */
export function decodeUtf8Lenient(bytes: Uint8Array, options: { jsonString?: boolean } = {}): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    // fall through to the byte-by-byte decoder
  }
  const marker = options.jsonString === true ? "\\\\x" : "\\x";
  const parts: string[] = [];
  let run = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > run) parts.push(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(run, end)));
  };
  while (i < bytes.length) {
    const len = validSequenceLength(bytes, i);
    if (len > 0) {
      i += len;
      continue;
    }
    flush(i);
    parts.push(`${marker}${bytes[i]!.toString(16).toUpperCase().padStart(2, "0")}`);
    i += 1;
    run = i;
  }
  flush(i);
  return parts.join("");
}

/** Length of the well-formed UTF-8 sequence at `i` (RFC 3629 table), or 0 when it is invalid. */
function validSequenceLength(b: Uint8Array, i: number): number {
  const b0 = b[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const v = b[i + k];
    return v !== undefined && v >= lo && v <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
