/**
 * The matching shadow: invisible characters removed and compatibility forms folded, with a map back
 * to the original, so rules see through disguises while the output keeps the original text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neutralizeInvisible, redactText, shadowOf } from "../../../lib/redact/index.ts";
import { holdsInvisible } from "../../../lib/redact/shadow.ts";
import { INVISIBLES } from "./shapes.ts";

/** Colour (SGR) and line erasure as a terminal reads them, written independently of the scanner. */
const SGR = /(?:\x1b\[|\x9b)[0-9;:]{0,32}[mK]/;
const SGR_G = new RegExp(SGR.source, "g");
const FORMATS = [
  "",
  "\x1b[0m",
  "\x1b[1;31m",
  "\x1b[m",
  "\x1b[2K",
  "\x9b32m",
  "\x1b[38:2::1:2:3m",
  "\x1b[",
  "\x1b",
  "\x1b[9x",
];

/** The invisible characters as docs/redaction.md states them, in one class. */
const INVISIBLE_SOURCE = "[\\p{Cf}\\u034f\\u115f\\u1160\\u3164\\uffa0\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}]";
const INVISIBLE = new RegExp(INVISIBLE_SOURCE, "u");

describe("shadowOf", () => {
  it("is the string itself for ASCII without colour (no copy, no map), as the full fold finds too", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary-ascii" }).filter((s) => !SGR.test(s)),
        (s) => {
          for (const sh of [shadowOf(s), shadowOf(s, false)]) {
            expect(sh.text).toBe(s);
            expect(sh.start).toBeNull();
            expect(sh.invisible).toBe(false);
          }
        },
      ),
    );
  });

  it("reads through colour and line erasure, mapping back to the original", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: "binary-ascii", maxLength: 6 }), fc.constantFrom(...FORMATS)), {
          maxLength: 6,
        }),
        fc.string({ unit: "binary-ascii", maxLength: 6 }),
        (pieces, last) => {
          const s = pieces.map(([text, format]) => text + format).join("") + last;
          // What a terminal shows, by an independent pattern; the scanner must agree with it.
          const shown = s.replace(SGR_G, "");
          const sh = shadowOf(s);
          expect(sh.text).toBe(shown);
          for (let i = 0; i < sh.text.length; i++)
            expect(s[sh.start === null ? i : sh.start[i]!]).toBe(sh.text[i]);
        },
      ),
    );
  });

  it("drops invisible characters and folds compatibility forms, mapping back to the original", () => {
    const original = "ｐａｓｓ\u200bword\u00a0=\u00ad x";
    const sh = shadowOf(original);
    expect(sh.text).toBe("password = x");
    expect(sh.invisible).toBe(true);
    // Every shadow character leads back to the original character it came from.
    for (let i = 0; i < sh.text.length; i++) {
      const from = original.slice(sh.start![i]!, sh.end![i]!);
      expect(from.normalize("NFKC").replace(/\s/u, " ")).toContain(sh.text[i]);
    }
  });

  it("maps each character of long ASCII runs between colour, invisible and folded ones to itself", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: "binary-ascii", maxLength: 120, size: "max" }),
            fc.constantFrom(...FORMATS, ...INVISIBLES, "ｐ", "ﬁ", "é", "🚀"),
          ),
          { maxLength: 12 },
        ),
        (parts) => {
          const s = parts.join("");
          const sh = shadowOf(s);
          if (sh.start === null) return;
          let last = -1;
          for (let i = 0; i < sh.text.length; i++) {
            const from = sh.start[i]!;
            // A character from a fold shares its span with the others of the fold; else spans follow.
            if (from !== last) expect(from).toBeGreaterThanOrEqual(i === 0 ? 0 : sh.end![i - 1]!);
            if (s.charCodeAt(from) < 0x80) {
              expect(s[from]).toBe(sh.text[i]);
              expect(sh.end![i]).toBe(from + 1);
            }
            last = from;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("maps every character of any text back inside the original, in order", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...INVISIBLES, "ｐ", "\u00a0", "ﬁ", "㎏", "é", "🚀", "Ⅸ"),
            fc.string({ maxLength: 4 }),
          ),
        ),
        (parts) => {
          const s = parts.join("");
          const sh = shadowOf(s);
          if (sh.start === null) return;
          let last = 0;
          for (let i = 0; i < sh.text.length; i++) {
            expect(sh.start[i]!).toBeGreaterThanOrEqual(last);
            expect(sh.end![i]!).toBeLessThanOrEqual(s.length);
            last = sh.start[i]!;
          }
        },
      ),
    );
  });
});

describe("holdsInvisible", () => {
  it("finds exactly the invisible characters, for every code point and lone surrogate", () => {
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const ch = String.fromCodePoint(cp);
      if (holdsInvisible(`a${ch}b`) !== INVISIBLE.test(ch)) expect(cp.toString(16)).toBe("not a mismatch");
    }
    expect(holdsInvisible("\udb40")).toBe(false);
    expect(holdsInvisible("\udb40\udd00")).toBe(true);
  });
});

describe("redaction through the shadow", () => {
  it("a disguised key still masks, and the original text around it is kept", () => {
    expect(redactText("ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２ ok")).toBe(
      "ｐａｓｓｗｏｒｄ＝[redacted:key-value] ok",
    );
    expect(redactText("pass\u200bword=hunter2 ok")).toBe("pass\\u{200B}word=[redacted:key-value] ok");
  });

  it("invisible characters at any position never hide a secret, and never leave raw", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(30), fc.constantFrom(...INVISIBLES)), { maxLength: 6 }),
        (inserts) => {
          let line = "password=Sup3rS3cretValue";
          for (const [at, ch] of inserts) {
            const i = Math.min(at, line.length);
            line = line.slice(0, i) + ch + line.slice(i);
          }
          const out = redactText(line);
          expect(out).not.toMatch(/Sup3r|S3cret|Value/);
          expect(out).toBe(neutralizeInvisible(out));
          for (const ch of INVISIBLES) expect(out).not.toContain(ch);
        },
      ),
    );
  });
});
