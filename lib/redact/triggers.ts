/**
 * Which rules can match a string, in two cheap steps, ASCII case-insensitively:
 * 1. one pass over the text as 7-bit codes (a scratch copy: ASCII text is copied natively; in other
 *    text every non-ASCII character becomes DEL, which no trigger holds) loads, per pair of codes,
 *    one mask of what may start there and one of what may continue there, and ANDs the masks of
 *    consecutive pairs: a trigger group is flagged where a word of it has its first two characters
 *    (ASCII letters folded to lower case) on the first pair and its second and third on the next;
 *    a provider-prefix class where a prefix of it has its first three characters, exact case. The
 *    pass also tracks runs of the base64 and base64url alphabets;
 * 2. each group the pass flagged is confirmed by a native regex test of its words (a literal
 *    alternation, so it cannot backtrack), at most GROUP_WORDS words per group: sticky at the
 *    places the pass flagged it (real trigger words match on the spot; a word can only start where
 *    the pass flagged its group), at every one of them when testing them all costs less than a
 *    native search of the text; else at the first STICKY_TESTS, then natively over the rest of the
 *    text (so also past the places the pass recorded, when the record ran out).
 * Provider prefixes are told apart by the class of their first pair (prefixes sharing a first pair
 * share a class, as do all that open with a digit; classes are dealt round-robin to the bits left
 * over by the groups), and a class
 * the pass flagged is confirmed the same way by its whole prefixes, exact case: their first three
 * characters are common in log text (`api`, `dis`, `git`), the prefixes themselves are not.
 *
 * Why a superset: rules match their words ASCII case-insensitively at most, and redacting only
 * ever replaces a span by one private-use marker, which cannot complete an ASCII word or join two
 * runs; so the words found in the input are a superset of those any later rule sees.
 */
import type { Rule } from "./rule.ts";
import { ALPHABET, codesOf } from "./scan.ts";

export interface Triggers {
  /** Bit `1 << k` set when rule `k` may match `s`; `ascii`: `s` is known to hold only ASCII. */
  of(s: string, ascii?: boolean): number;
}

/** At most this many words per group: a short alternation tests fast natively. */
const GROUP_WORDS = 12;
/**
 * Places the pass records for sticky tests; past them the rest of the text is tested. Room for
 * thousands: a frequent trigger word (every URL's `://`) must not crowd out the few places where
 * another group is flagged by chance.
 */
export const RECORDED = 4096;
/** Sticky tests per group: past them, its flagged places are too many, and the rest is tested natively. */
export const STICKY_TESTS = 16;
/**
 * A sticky test costs about as much as a native search over this many characters (15 ns against
 * 1.3 ns a character, rounded up): a group flagged at fewer places per this many characters of the
 * text is tested at all of them, which spares the search (random text flags a few groups by
 * chance at a few dozen places, and each search of 32 KiB costs 40–80 µs).
 */
const STICKY_COST = 16;
/** The code every non-ASCII character is copied as: DEL is in no trigger word, prefix or alphabet. */
const NOT_ASCII = 127;

const escapeWord = (w: string): string =>
  w.replace(/[.*+?^${}()|[\]\\/-]/g, (m) => (m === "." ? "[^]" : `\\${m}`));
/** A prefix as a regex of itself (`.` is a dot there). */
const escapeLiteral = (p: string): string => p.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

interface Group {
  flag: number;
  words: string[];
}

const foldCase = (c: number): number => (c >= /* A */ 65 && c <= /* Z */ 90 ? c + 32 : c);

/** Build the trigger scan for `rules` (rule `k` gets flag `1 << k`). */
export function compileTriggers(rules: readonly Rule[]): Triggers {
  const groups: Group[] = [];
  let runFlags = 0;
  rules.forEach((rule, k) => {
    const flag = 1 << k;
    if (rule.longRun === true) runFlags |= flag;
    const words = [...new Set(rule.words)].sort();
    for (let i = 0; i < words.length; i += GROUP_WORDS)
      groups.push({ flag, words: words.slice(i, i + GROUP_WORDS) });
  });
  const classBits = 32 - groups.length;
  if (classBits < 16)
    throw new Error(`${groups.length} trigger groups leave too few bits for prefix classes`);
  /**
   * Per pair of codes (7 bits each): the groups with a word whose first two characters it is
   * (`starts`), and those with a word whose second and third it is (`continues`), in the low bits;
   * the prefix classes with a prefix whose first, or second, two characters it is, above them. A
   * word shorter than three characters, or with `.` there, matches any code in the missing places.
   */
  const starts = new Int32Array(128 * 128);
  const continues = new Int32Array(128 * 128);
  const anyCode = Array.from({ length: 128 }, (_, x) => x);
  /** The codes that match the character of `w` at `at`: both cases of a letter, any for `.` or past the end. */
  const codes = (w: string, at: number): number[] => {
    const c = w.charCodeAt(at);
    if (at >= w.length || c === /* . */ 46) return anyCode;
    const low = foldCase(c & 127);
    return low >= /* a */ 97 && low <= /* z */ 122 ? [low, low - 32] : [c & 127];
  };
  groups.forEach((g, k) => {
    const bit = 1 << k;
    for (const w of g.words) {
      const [first, second, third] = [codes(w, 0), codes(w, 1), codes(w, 2)];
      for (const a of first) for (const b of second) starts[(a << 7) | b]! |= bit;
      for (const b of second) for (const c of third) continues[(b << 7) | c]! |= bit;
    }
  });
  /** Per prefix class: the rules with a prefix in it, and those prefixes. */
  const classFlags = new Int32Array(classBits);
  const classPrefixes: string[][] = Array.from({ length: classBits }, () => []);
  const classOf = new Map<number, number>();
  rules.forEach((rule, k) => {
    for (const p of rule.prefixes ?? []) {
      const [a, b, c] = [p.charCodeAt(0) & 127, p.charCodeAt(1) & 127, p.charCodeAt(2) & 127];
      const first = (a << 7) | b;
      // Prefixes that open with a digit (a lead's last: Telegram's `7:A`, Azure AD's `8Q~`) share
      // one class: dealt one per pair, they would put a digit in every class's confirming
      // alternation, and digits are everywhere.
      const key = a >= /* 0 */ 48 && a <= /* 9 */ 57 ? -1 : first;
      let cls = classOf.get(key);
      if (cls === undefined) {
        cls = classOf.size % classBits;
        classOf.set(key, cls);
      }
      const bit = 1 << (groups.length + cls);
      classFlags[cls]! |= 1 << k;
      classPrefixes[cls]!.push(p);
      starts[first]! |= bit;
      if (p.length === 2) for (const any of anyCode) continues[(b << 7) | any]! |= bit;
      else continues[(b << 7) | c]! |= bit;
    }
  });
  /**
   * What confirms each bit of the pass: a group's words (ASCII case-insensitively) in the low bits,
   * a class's prefixes (exact case) above them; an unused class bit never matches.
   */
  const sources = [
    ...groups.map((g) => g.words.map(escapeWord).join("|")),
    ...classPrefixes.map((ps) => (ps.length === 0 ? "(?!)" : ps.map(escapeLiteral).join("|"))),
  ];
  const caseFlag = (k: number): string => (k < groups.length ? "i" : "");
  const sticky = sources.map((src, k) => new RegExp(src, `${caseFlag(k)}y`));
  const anywhere = sources.map((src, k) => new RegExp(src, `${caseFlag(k)}g`));
  /** Per bit: sticky tests made, the most to make, and where to test the rest of the text from. */
  const tests = new Int32Array(sources.length);
  const budget = new Int32Array(sources.length);
  const restFrom = new Int32Array(sources.length);
  const flags = Int32Array.from([...groups.map((g) => g.flag), ...classFlags]);
  /**
   * Per code: run lanes kept alive by it, as an AND mask over two 16-bit run counters (base64 in
   * the low half, base64url in the high half).
   */
  const runMask = new Int32Array(128);
  for (let c = 0; c < 128; c++)
    runMask[c] = (ALPHABET[c]! & 1 ? 0xffff : 0) | (ALPHABET[c]! & 2 ? 0xffff0000 : 0);
  /** Where the pass flagged a group (recorded places, in order), and what it flagged there. */
  const at = new Int32Array(RECORDED);
  const flagged = new Int32Array(RECORDED);
  return {
    of(s: string, ascii = false): number {
      const n = s.length;
      if (n === 0) return 0;
      const b = codesOf(s, ascii, NOT_ASCII, NOT_ASCII);
      let hits = 0;
      let recorded = 0;
      let runs = 0;
      let long = 0;
      let x = b[0]!;
      let y = b[1]!;
      let start = starts[(x << 7) | y]!;
      for (let i = 0; i < n; i++) {
        // The trigram at `i`: codes x y z.
        const z = b[i + 2]!;
        const next = (y << 7) | z;
        const m = start & continues[next]!;
        if (m !== 0) {
          hits |= m;
          if (recorded < RECORDED) {
            at[recorded] = i;
            flagged[recorded++] = m;
          }
        }
        start = starts[next]!;
        // Both run counters count on while `x` is in their alphabet; bit 6 of a counter + 24 is
        // set for counts 40…103, which every run of ≥ 40 passes through.
        runs = (runs + 0x10001) & runMask[x]!;
        long |= runs + 0x180018;
        x = y;
        y = z;
      }
      const out = long & 0x400040 ? runFlags : 0;
      return out | confirmed(s, hits, out, recorded);
    },
  };

  /**
   * The flags of the groups and classes in `groupsFlagged` whose words or prefixes occur in `s`
   * (`out`: rules already flagged, whose groups need no test): sticky at the places the pass
   * recorded for each (one sweep over the record), all of them where that is cheaper than a native
   * search (the record holding every place), else the first STICKY_TESTS and then natively over the
   * rest of the text.
   */
  function confirmed(s: string, groupsFlagged: number, out: number, recorded: number): number {
    let found = 0;
    /** Groups still to confirm by sticky tests. */
    let pending = 0;
    for (let k = 0, w = groupsFlagged; w !== 0; k++, w >>>= 1)
      if ((w & 1) !== 0 && (out & flags[k]!) === 0) pending |= 1 << k;
    /** Groups to test over the rest of the text, from `restFrom`. */
    let rest = 0;
    tests.fill(0);
    budget.fill(STICKY_TESTS);
    if (recorded < RECORDED) {
      // Count each pending group's places: `tests` holds the counts for a moment.
      for (let j = 0; j < recorded; j++)
        for (let w = flagged[j]! & pending; w !== 0; w &= w - 1) tests[31 - Math.clz32(w & -w)]!++;
      for (let k = 0, w = pending; w !== 0; k++, w >>>= 1)
        if ((w & 1) !== 0 && tests[k]! * STICKY_COST <= s.length) budget[k] = RECORDED + 1;
      tests.fill(0);
    }
    for (let j = 0; j < recorded && pending !== 0; j++) {
      for (let w = flagged[j]! & pending; w !== 0; w &= w - 1) {
        const k = 31 - Math.clz32(w & -w);
        const word = sticky[k]!;
        word.lastIndex = at[j]!;
        if (word.test(s)) {
          found |= flags[k]!;
          pending &= ~(1 << k);
        } else if (++tests[k]! === budget[k]!) {
          restFrom[k] = at[j]! + 1;
          rest |= 1 << k;
          pending &= ~(1 << k);
        }
      }
    }
    // The record ran out: the groups still pending may occur past it.
    if (recorded === RECORDED) {
      for (let k = 0, w = pending; w !== 0; k++, w >>>= 1)
        if ((w & 1) !== 0) restFrom[k] = at[RECORDED - 1]! + 1;
      rest |= pending;
    }
    for (let k = 0, w = rest; w !== 0; k++, w >>>= 1) {
      if ((w & 1) === 0 || (found & flags[k]!) !== 0) continue;
      const any = anywhere[k]!;
      any.lastIndex = restFrom[k]!;
      if (any.test(s)) found |= flags[k]!;
    }
    return found;
  }
}
