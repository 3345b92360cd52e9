/**
 * Provider tokens whose shape is more than a prefix and a body (facts from the public scanner
 * catalogs): Telegram bot tokens, whose bot id stands before the prefix; Azure AD client secrets,
 * whose first four characters do, with `~` and `.` in them; Atlassian tokens, which end in `=` and
 * a checksum. Generated tokens, at the
 * ends of their allowed lengths and in random surroundings (URL paths, quotes, JSON, assignments,
 * start and end of line), are masked whole and alone: the line reads exactly as before with one
 * `[redacted:token]` where the token was. Generated near misses of each shape stay byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactText } from "../../../lib/redact/index.ts";

const DIGITS = "0123456789";
const ALNUM = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${DIGITS}`;
const URL_SAFE = `${ALNUM}_-`;
/** What a URL leaves unescaped: Azure AD client secrets are made of it. */
const UNRESERVED = `${URL_SAFE}.~`;

const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });
/** A length at either end of `[min, max]`, or anywhere between. */
const lengthIn = (min: number, max: number): fc.Arbitrary<number> =>
  fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
const charsIn = (alphabet: string, min: number, max: number): fc.Arbitrary<string> =>
  lengthIn(min, max).chain((n) => chars(alphabet, n));

/** Blanks a log line may put around a value. */
const blank = fc.constantFrom(" ", "  ", "\t", " \t");

/**
 * Surroundings `[before, after]` that no other rule reads as a key or a run: a token in each must
 * come out as exactly one marker. None puts a token character right before or after it.
 */
function surroundings(extra: Array<[string, string]>): fc.Arbitrary<[string, string]> {
  return fc.oneof(
    fc.constantFrom<[string, string]>(
      ["", ""],
      ["", " accepted"],
      ["got ", ""],
      ["'", "'"],
      ['"', '"'],
      ["(", ")"],
      ["<", ">"],
      ["[", "], retrying"],
      ['{"value":"', '","ok":true}'],
      ["{'value': '", "'}"],
      ["BOT=", ""],
      ["config value=", " applied"],
      ["--from ", " --verbose"],
      ...extra,
    ),
    fc.tuple(blank, blank).map(([a, b]): [string, string] => [`level=info${a}`, `${b}done`]),
  );
}

/** Each generated token, in each surrounding, becomes one marker and nothing else changes. */
function masksExactly(token: fc.Arbitrary<string>, around: fc.Arbitrary<[string, string]>, numRuns: number) {
  fc.assert(
    fc.property(token, around, (t, [before, after]) => {
      const line = `${before}${t}${after}`;
      expect(redactText(line), JSON.stringify(line)).toBe(`${before}[redacted:token]${after}`);
    }),
    { numRuns },
  );
}

/** Each generated near miss, in each surrounding, stays byte for byte. */
function survives(nearMiss: fc.Arbitrary<string>, around: fc.Arbitrary<[string, string]>, numRuns: number) {
  fc.assert(
    fc.property(nearMiss, around, (t, [before, after]) => {
      const line = `${before}${t}${after}`;
      expect(redactText(line), JSON.stringify(line)).toBe(line);
    }),
    { numRuns },
  );
}

describe("Telegram bot tokens: a bot id of 5–16 digits, `:A` and 34 more of `[A-Za-z0-9_-]`", () => {
  const botId = charsIn(DIGITS, 5, 16);
  const secret = chars(URL_SAFE, 34);
  const token = fc.tuple(botId, secret).map(([id, s]) => `${id}:A${s}`);
  const inText: Array<[string, string]> = [
    ["Max retries exceeded with url: /bot", " (Caused by NewConnectionError)"],
    ["tgram://", ""],
    ["TELEGRAM=", ""],
  ];
  const around = surroundings([
    ...inText,
    ["Max retries exceeded with url: /bot", "/sendMessage (Caused by NewConnectionError)"],
    ["POST https://api.telegram.org/bot", "/getUpdates 200 (12ms)"],
    ["https://api.telegram.org/file/bot", "/photos/file_7.jpg"],
    ["tgram://", "/"],
  ]);

  it("masks documented examples whole, bot id included", () => {
    const s = "AH4xQ9kZ7mN2pR5tW8yL4aB3xQ9kZ7mN2pR";
    expect(redactText(`Max retries exceeded with url: /bot1234567890:A${s}/sendMessage`)).toBe(
      "Max retries exceeded with url: /bot[redacted:token]/sendMessage",
    );
    expect(redactText(`TELEGRAM=1234567890:A${s}`)).toBe("TELEGRAM=[redacted:token]");
    expect(redactText(`12345:A${s}`)).toBe("[redacted:token]");
  });

  it("masks generated tokens whole in any surroundings, glued after `/bot` too", () => {
    masksExactly(token, around, 600);
  });

  it("masks a longer run after `:A` with it (the whole run is the token's)", () => {
    const longer = fc.tuple(botId, charsIn(URL_SAFE, 35, 60)).map(([id, s]) => `${id}:A${s}`);
    masksExactly(longer, around, 200);
  });

  it("leaves near misses: too few digits, a body of 33, a body not opening with `A`, times and ports", () => {
    const notA = [...URL_SAFE].filter((c) => c !== "A").join("");
    // Bodies without `-` or `_`, opening with no capital: else a random body may hold another
    // provider's token (`sk-…`, `r8_…`, `ghu_…`, `:ATBB…`), rightly masked (about one run in 70
    // failed so).
    const body = (n: number) =>
      fc
        .tuple(chars("abcdefghijklmnopqrstuvwxyz0123456789", 1), chars(ALNUM, n - 1))
        .map(([first, rest]) => first + rest);
    const nearMiss = fc.oneof(
      fc.tuple(charsIn(DIGITS, 1, 4), body(34)).map(([id, s]) => `${id}:A${s}`),
      fc.tuple(botId, body(33)).map(([id, s]) => `${id}:A${s}`),
      fc.tuple(botId, chars(notA, 1), body(34)).map(([id, c, s]) => `${id}:${c}${s}`),
      // An id longer than the catalogs' 16 digits is some other number.
      fc.tuple(charsIn(DIGITS, 17, 24), body(34)).map(([id, s]) => `${id}:A${s}`),
      fc.tuple(charsIn(DIGITS, 2, 2), charsIn(DIGITS, 2, 2)).map(([h, m]) => `${h}:${m}:07.123`),
      fc
        .tuple(charsIn(DIGITS, 1, 5), fc.constantFrom("db", "10.0.0.7", "[::1]"))
        .map(([p, h]) => `${h}:${p}`),
      botId.map((id) => `pid ${id}:Accepted connection from 10.0.0.7:5432`),
    );
    // Not before a path: a long enough run of the base64 alphabet is the long-token rule's.
    survives(nearMiss, surroundings(inText), 600);
  });
});

describe("Azure AD client secrets: 3 of `[A-Za-z0-9_.~]`, a digit, `Q~` and 31–34 of `[A-Za-z0-9_.~-]`", () => {
  const head = fc.tuple(chars(`${ALNUM}_.~`, 3), chars(DIGITS, 1)).map(([a, d]) => `${a}${d}`);
  const secret = fc.tuple(head, charsIn(UNRESERVED, 31, 34)).map(([h, b]) => `${h}Q~${b}`);
  const inText: Array<[string, string]> = [
    ['<value xsi:type="xsd:string">', "</value>"],
    ["AZURE_APP=", ""],
    ["${AZURE_APP:-", "}"],
    ["Set-Config -Tenant t1 -Value '", "'"],
    ["(use ", ")"],
  ];
  const around = surroundings(inText);

  it("masks examples whole, the four characters before `Q~` included", () => {
    const body = "Sup3rS3cret.Abc~def-ghijklmnopqrs";
    expect(redactText(`tenant=y abc8Q~${body}`)).toBe("tenant=y [redacted:token]");
    expect(redactText(`AZURE_APP=.x_7Q~${body}`)).toBe("AZURE_APP=[redacted:token]");
    expect(redactText(`"~Gg0Q~${body}",`)).toBe('"[redacted:token]",');
  });

  it("masks generated secrets whole in any surroundings", () => {
    masksExactly(secret, around, 600);
  });

  it("masks a longer run with it, a full stop that ends a sentence too", () => {
    const longer = fc.tuple(head, charsIn(UNRESERVED, 35, 60)).map(([h, b]) => `${h}Q~${b}`);
    masksExactly(longer, around, 200);
    fc.assert(
      fc.property(secret, (t) => {
        expect(redactText(`client rotated, now ${t}.`)).toBe("client rotated, now [redacted:token]");
      }),
      { numRuns: 100 },
    );
  });

  it("leaves near misses: a head of 2 or glued to a word, no digit or `q` before `~`, a body of 30, tildes in paths", () => {
    // Bodies without `-`, `_` or `.`: with them a random body may hold another provider's token
    // (`sk-…`, `SG.…`, `ghs_…`) or a flag naming a secret (`-…PwD…`), rightly masked (about one
    // run in 60 failed so).
    const body = (n: number) => chars(`${ALNUM}~`, n);
    const nearMiss = fc.oneof(
      fc.tuple(chars(ALNUM, 2), chars(DIGITS, 1), body(31)).map(([a, d, b]) => `${a}${d}Q~${b}`),
      fc.tuple(chars(ALNUM, 1), head, body(31)).map(([glued, h, b]) => `${glued}${h}Q~${b}`),
      fc
        .tuple(chars(ALNUM, 3), chars(`${ALNUM}_.~`.replace(/[0-9]/g, ""), 1), body(31))
        .map(([a, x, b]) => `${a}${x}Q~${b}`),
      fc.tuple(head, body(31)).map(([h, b]) => `${h}q~${b}`),
      fc.tuple(head, body(30)).map(([h, b]) => `${h}Q~${b}`),
      fc.constantFrom("~/.config/app.yaml", "C:\\PROGRA~1\\app", "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"),
    );
    survives(nearMiss, around, 600);
  });
});

describe("Atlassian API tokens and admin keys: `ATATT3`/`ATCTT3`, base64url, `=` and a checksum", () => {
  const HEX = "0123456789ABCDEF";
  const token = fc
    .tuple(fc.constantFrom("ATATT3", "ATCTT3"), charsIn(URL_SAFE, 40, 200), chars(HEX, 8))
    .map(([prefix, body, sum]) => `${prefix}${body}=${sum}`);
  // What follows the checksum is no part of it: a query's next parameter, a cookie's attribute.
  const around = surroundings([
    ["JIRA_API=", "&x=1"],
    ["?a=", "&x=1"],
    ["ATLASSIAN ", ";path=/"],
    ["", ",next=2"],
    ["", " x=1"],
  ]);

  it("masks examples whole, the checksum included, and nothing after it", () => {
    const body = `xFfGF0K3irG5tKKi-6u-ww${"aB3xQ9kZ7mN2pR5tW8yL4".repeat(7)}_UjnDt`;
    expect(redactText(`JIRA=ATATT3${body}=BF545C4A`)).toBe("JIRA=[redacted:token]");
    expect(redactText(`?a=ATATT3${body}=BF545C4A&x=1`)).toBe("?a=[redacted:token]&x=1");
    expect(redactText(`"ATCTT3${body}=366bfe3a",`)).toBe('"[redacted:token]",');
    // A lone `=` after a token is not a checksum.
    expect(redactText(`ATATT3${body}= next`)).toBe("[redacted:token]= next");
  });

  it("masks generated tokens whole in any surroundings, and keeps what follows", () => {
    masksExactly(token, around, 400);
  });

  it("masks a checksum of any length or case whole (the whole run of letters and digits)", () => {
    const anySum = fc
      .tuple(charsIn(URL_SAFE, 40, 80), charsIn(ALNUM, 1, 16))
      .map(([body, sum]) => `ATATT3${body}=${sum}`);
    masksExactly(anySum, around, 300);
  });
});
