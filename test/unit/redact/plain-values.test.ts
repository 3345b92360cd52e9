/**
 * `plainValueAfterKey` reads the forms most keys are written in by a short path; where it answers,
 * its answer must be `valueAfterKey`'s. Compared over a grammar of what surrounds a key (what is
 * before it, its quotes, separators, blanks, values of every kind, what follows them) and at every
 * run of key characters of the attacker shapes; both must answer often enough to mean something.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type KeyJudge, plainValueAfterKey, valueAfterKey } from "../../../lib/redact/grammar.ts";
import { anyShape } from "./shapes.ts";

/** A judge of keys independent of the rule's: some keys name secrets, some do not. */
const judge: KeyJudge = (s, ks, ke) => /pass|token|secret|_key|sig$/i.test(s.slice(ks, ke));

/** Whether the short path answered, and agreed; counted so a test can tell it ran. */
function compare(s: string, ks: number, ke: number, counts: { answered: number; all: number }): void {
  const plain = plainValueAfterKey(s, ks, ke, judge);
  counts.all++;
  if (plain === undefined) return;
  counts.answered++;
  expect(plain, JSON.stringify({ s, ks, ke })).toEqual(
    valueAfterKey(s, ks, ke, s.charCodeAt(ks) === /* - */ 45, judge),
  );
}

const before = fc.constantFrom(
  ...["", " ", "a ", "\t", "{", ",", "[", "(", "\\", ";", "?", "&", "#", "x", "2", "7", "<", ":"],
  ...["set ", "ENV ", "%22", "\\u0022", "&quot;", "-", "\u00a0", "\ue000"],
);
const opening = fc.constantFrom("", "", '"', '"', "'", '\\"', "[", "`");
const key = fc.constantFrom(
  ...["password", "token", "api_key", "DB_PASS", "sig", "secret", "tokenizer", "keyboard", "auth"],
  ...["--password", "x.token", "a-token"],
);
const closing = fc.constantFrom("", "", '"', '"', "'", '\\"', "]", "[0]", '""', "`");
const separator = fc.constantFrom(
  ...[":", ":", "=", "=", ":=", "=>", "==", "->", "<-", " :", " =", "", " ", "\\u003d", "%3D", "&colon;"],
);
const blanks = fc.constantFrom("", "", " ", "  ", "\t", " \t", "\n", "\\n");
/** A value's characters: word characters, quotes, escapes, breaks, blanks, structure. */
const valueText = fc
  .array(
    fc.constantFrom(
      ...["a", "Z", "0", "_", "-", ".", "/", "+", "=", ":", ",", "}", "]", ")", ";", "&", "|", "<", ">"],
      ...['"', "'", "`", "\\", "\\\\", "\\n", "\n", "\r", " ", "\t", "$", "$(", "!", "#", "\ue000", "\u00e9"],
    ),
    { maxLength: 12 },
  )
  .map((cs) => cs.join(""));
const value = fc.oneof(
  valueText,
  fc.tuple(fc.constantFrom("a", "s", "e", "E", "0", "x", "q"), valueText).map(([a, b]) => a + b),
  valueText.map((t) => `"${t}"`),
  fc.constantFrom('""', '"""v"""', '""v', "'v'", "|", "- v", "!!str v", "&a v", "<<EOF", "$(a b)", "{v}"),
  fc.constantFrom('protected]=> "v"', "private] v", "s:3:", "e'v'", "E'v'", "$$v$$", 'str = "v"', "a b"),
  fc.string({ unit: "binary-ascii", maxLength: 8 }),
);
const after = fc.oneof(
  fc.constantFrom(
    ...["", " ", ",", "}", "]", ")", "x", "/>", ">", ";", "\n", " = 1", " == 1", " => 2", ' -> "b"'],
    ...[' "', "\"'", " password=v2", '","token":"w"', " \\", "\t=", "   "],
  ),
  valueText,
);

/** Mostly the forms the short path reads, with one part or another drawn from the whole grammar. */
const nearPlain = fc
  .tuple(
    fc.oneof({ arbitrary: fc.constant(""), weight: 4 }, { arbitrary: before, weight: 1 }),
    fc.constantFrom("", "{", ",", "["),
    key,
    fc.oneof(
      { arbitrary: fc.constantFrom(":", "=", ": ", ":\t"), weight: 4 },
      { arbitrary: separator, weight: 1 },
    ),
    fc.oneof({ arbitrary: fc.constantFrom("", " "), weight: 4 }, { arbitrary: blanks, weight: 1 }),
    fc.oneof(
      {
        arbitrary: fc.tuple(fc.stringMatching(/^[A-Za-z0-9]$/), valueText).map(([c, t]) => c + t),
        weight: 2,
      },
      { arbitrary: fc.stringMatching(/^[A-Za-z0-9_ -]{0,8}$/).map((t) => `"${t}"`), weight: 1 },
      { arbitrary: value, weight: 2 },
      // A PHP dump's property, `["token":protected]=> "v"`.
      { arbitrary: fc.constantFrom('protected]=> "v"', "private] v"), weight: 1 },
    ),
    fc.oneof(
      { arbitrary: fc.constantFrom("", " ", ",", "}", " x"), weight: 2 },
      { arbitrary: after, weight: 1 },
    ),
  )
  .map(
    ([b, jsonOpening, k, sep, bl, v, a]): [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ] => [b || jsonOpening || " ", jsonOpening ? '"' : "", k, jsonOpening ? '"' : "", sep, bl, v, a],
  );

describe("plain values after a key", () => {
  it("are valueAfterKey's values, over the grammar around a key", () => {
    const counts = { answered: 0, all: 0 };
    fc.assert(
      fc.property(
        fc.oneof(fc.tuple(before, opening, key, closing, separator, blanks, value, after), nearPlain),
        ([b, o, k, c, sep, bl, v, a]) => {
          const s = b + o + k + c + sep + bl + v + a;
          const ks = b.length + o.length;
          compare(s, ks, ks + k.length, counts);
        },
      ),
      { numRuns: 6000 },
    );
    expect(counts.answered).toBeGreaterThan(counts.all / 8);
  });

  it("are valueAfterKey's values for every combination of a small grammar's parts", () => {
    const counts = { answered: 0, all: 0 };
    const parts = [
      [" ", "[", "{", "\\", "[\\", "x", ""],
      ["", '"', '\\"'],
      ["token", "api_key"],
      ["", '"', '\\"', "]"],
      [":", "=", ":=", "=>", " :"],
      ["", " ", "\t"],
      [
        "v",
        '"v"',
        '""',
        '""v',
        '"""v"""',
        'protected]=> "v"',
        "private] v",
        "str = 1",
        "s",
        '\\"v\\"',
        '"a\\"b"',
        '"a\nb"',
      ],
      ["", " ", ",", "x", "/>"],
    ];
    const combine = (at: number, prefix: string[]): void => {
      if (at === parts.length) {
        const s = prefix.join("");
        const ks = prefix[0]!.length + prefix[1]!.length;
        compare(s, ks, ks + prefix[2]!.length, counts);
        return;
      }
      for (const part of parts[at]!) combine(at + 1, [...prefix, part]);
    };
    combine(0, []);
    expect(counts.answered).toBeGreaterThan(500);
  });

  it("are valueAfterKey's values at every run of key characters of the attacker shapes", () => {
    const counts = { answered: 0, all: 0 };
    fc.assert(
      fc.property(anyShape, (shape) => {
        for (const m of shape.text.matchAll(/[A-Za-z0-9_.-]+/g))
          compare(shape.text, m.index, m.index + m[0].length, counts);
      }),
      { numRuns: 600 },
    );
    expect(counts.answered).toBeGreaterThan(50);
  });
});
