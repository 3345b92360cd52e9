import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8Lenient, escapeJsonText, escapeText, isSafeText } from "../../../cli/escape.ts";

/** Characters that must never reach a terminal raw (the brief's list, checked independently of the code). */
function hasRawHazard(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) return true;
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return true;
    if (c === 0x200e || c === 0x200f || c === 0x061c) return true;
    if ((c >= 0x200b && c <= 0x200d) || c === 0x2060 || c === 0xfeff) return true;
    if (c === 0x2028 || c === 0x2029) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

const HAZARDS = [
  0x00, 0x07, 0x08, 0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9b, 0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f,
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff, 0x2028, 0x2029,
];

const hostile = fc.array(
  fc.oneof(
    fc.string({ unit: "binary" }),
    fc.constantFrom(...HAZARDS.map((c) => String.fromCharCode(c))),
    fc.constantFrom("\ud800", "\udfff", "\ud83d", "\u{1F600}", "\u{E0041}", "\\", "é"),
  ),
  { maxLength: 20 },
);
const hostileText = hostile.map((parts) => parts.join(""));

describe("escapeText", () => {
  it("never lets a control, bidi, zero-width, separator character or lone surrogate through", () => {
    fc.assert(
      fc.property(hostileText, (s) => {
        const out = escapeText(s);
        expect(hasRawHazard(out)).toBe(false);
        expect(isSafeText(out)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent and leaves safe text alone", () => {
    fc.assert(
      fc.property(hostileText, (s) => {
        const once = escapeText(s);
        expect(escapeText(once)).toBe(once);
      }),
    );
    expect(escapeText("plain text é 日本 😀 C:\\path")).toBe("plain text é 日本 😀 C:\\path");
  });

  it("escapes each hazard visibly", () => {
    expect(escapeText("a\x1b[31mred")).toBe("a\\x1B[31mred");
    expect(escapeText("x\ny\tz\x7f")).toBe("x\\x0Ay\\x09z\\x7F");
    expect(escapeText("\u202Eevil\u2066")).toBe("\\u{202E}evil\\u{2066}");
    expect(escapeText("zero\u200Bwidth\uFEFF")).toBe("zero\\u{200B}width\\u{FEFF}");
    expect(escapeText("c1\u0085\u009b")).toBe("c1\\u{85}\\u{9B}");
    expect(escapeText("lone\ud800!")).toBe("lone\\u{D800}!");
    expect(escapeText("tag\u{E0041}")).toBe("tag\\u{E0041}");
  });
});

describe("escapeJsonText", () => {
  it("keeps the JSON meaning while removing every raw hazard", () => {
    fc.assert(
      fc.property(hostileText, (s) => {
        const json = escapeJsonText(JSON.stringify({ s }));
        expect(hasRawHazard(json)).toBe(false);
        expect((JSON.parse(json) as { s: string }).s).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("decodeUtf8Lenient", () => {
  it("decodes well-formed UTF-8 exactly", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        expect(decodeUtf8Lenient(new TextEncoder().encode(s))).toBe(s);
      }),
    );
  });

  it("shows each invalid byte as \\xNN, and the bytes can be recovered", () => {
    const noBackslash = fc.uint8Array({ maxLength: 64 }).map((b) => b.map((x) => (x === 0x5c ? 0x41 : x)));
    fc.assert(
      fc.property(noBackslash, (bytes) => {
        const text = decodeUtf8Lenient(bytes);
        const back: number[] = [];
        for (const part of text.split(/(\\x[0-9A-F]{2})/)) {
          if (/^\\x[0-9A-F]{2}$/.test(part)) back.push(Number.parseInt(part.slice(2), 16));
          else back.push(...new TextEncoder().encode(part));
        }
        expect(Uint8Array.from(back)).toEqual(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it("marks bytes inside JSON strings so JSON.parse keeps them visible", () => {
    const bytes = Uint8Array.from([
      ...new TextEncoder().encode('{"m":"a'),
      0xff,
      0xc3,
      ...new TextEncoder().encode('b"}'),
    ]);
    const parsed = JSON.parse(decodeUtf8Lenient(bytes, { jsonString: true })) as { m: string };
    expect(parsed.m).toBe("a\\xFF\\xC3b");
  });

  it("rejects overlong forms and encoded surrogates", () => {
    expect(decodeUtf8Lenient(Uint8Array.from([0xc0, 0xaf]))).toBe("\\xC0\\xAF");
    expect(decodeUtf8Lenient(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe("\\xED\\xA0\\x80");
    expect(decodeUtf8Lenient(Uint8Array.from([0xf4, 0x90, 0x80, 0x80]))).toBe("\\xF4\\x90\\x80\\x80");
  });
});
