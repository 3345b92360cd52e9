/**
 * Which rules can match a string, in two cheap steps, ASCII case-insensitively and without a copy:
 * 1. one branch-free pass ORs, at every position, the trigger groups that have a word whose first
 *    two characters are the pair there and whose second and third are the next pair (ASCII
 *    letters folded to lower case, other characters to 7 bits, which only ever flags more), and
 *    tracks runs of the base64 and base64url alphabets;
 * 2. each group the pass flagged is confirmed by a native regex test of its words (a literal
 *    alternation, so it cannot backtrack), at most GROUP_WORDS words per group: a short
 *    alternation tests fast, a long one does not.
 * Case-sensitive prefixes (the provider catalog) are found in the same pass by two exact pairs in a
 * row, the first and the second two characters of a prefix of one class; the rule itself compares
 * the rest.
 *
 * Why a superset: rules match their words ASCII case-insensitively at most, and redacting only
 * ever replaces a span by one private-use marker, which cannot complete an ASCII word or join two
 * runs; so the words found in the input are a superset of those any later rule sees.
 */
import type { Rule } from "./rule.ts";
import { ALPHABET } from "./scan.ts";

export interface Triggers {
  /** Bit `1 << k` set when rule `k` may match `s`. */
  of(s: string): number;
}

/** At most this many words per group: a short alternation tests fast natively. */
const GROUP_WORDS = 12;

const escapeWord = (w: string): string =>
  w.replace(/[.*+?^${}()|[\]\\/-]/g, (m) => (m === "." ? "[^]" : `\\${m}`));

interface Group {
  flag: number;
  words: string[];
  test: RegExp;
}

/** Build the trigger scan for `rules` (rule `k` gets flag `1 << k`). */
export function compileTriggers(rules: readonly Rule[]): Triggers {
  const groups: Group[] = [];
  let runFlags = 0;
  /**
   * Per exact pair (7 bits each): the prefix classes with a prefix whose first, or second, two
   * characters it is. A class is the prefixes of one first pair (32 classes, shared round-robin), so
   * the first pair of one prefix and the second pair of another only meet in one class by chance.
   */
  const firstPairs = new Uint32Array(128 * 128);
  const secondPairs = new Uint32Array(128 * 128);
  /** Per prefix class: the rules with a prefix in it. */
  const classFlags = new Uint32Array(32);
  const classOf = new Map<number, number>();
  rules.forEach((rule, k) => {
    const flag = 1 << k;
    if (rule.longRun === true) runFlags |= flag;
    for (const p of rule.prefixes ?? []) {
      const [a, b, c] = [p.charCodeAt(0) & 127, p.charCodeAt(1) & 127, p.charCodeAt(2) & 127];
      const first = (a << 7) | b;
      let cls = classOf.get(first);
      if (cls === undefined) {
        cls = classOf.size % 32;
        classOf.set(first, cls);
      }
      const bit = 1 << cls;
      classFlags[cls]! |= flag;
      firstPairs[first]! |= bit;
      if (p.length === 2) for (let any = 0; any < 128; any++) secondPairs[(b << 7) | any]! |= bit;
      else secondPairs[(b << 7) | c]! |= bit;
    }
    const words = [...new Set(rule.words)].sort();
    for (let i = 0; i < words.length; i += GROUP_WORDS) {
      const some = words.slice(i, i + GROUP_WORDS);
      groups.push({ flag, words: some, test: new RegExp(some.map(escapeWord).join("|"), "i") });
    }
  });
  if (groups.length > 32) throw new Error(`${groups.length} trigger groups: at most 32 fit a mask`);
  /**
   * Per pair of folded characters: the groups with a word whose first two characters it is
   * (`pairs`), and those with a word whose second and third it is (`nextPairs`); a word shorter
   * than that, or with `.` there, matches any character in the missing places.
   */
  const pairs = new Uint32Array(128 * 128);
  const nextPairs = new Uint32Array(128 * 128);
  const codes = (w: string, at: number): number[] => {
    const c = w.charCodeAt(at);
    return at >= w.length || c === /* . */ 46 ? Array.from({ length: 128 }, (_, x) => x) : [c & 127];
  };
  groups.forEach((g, k) => {
    const bit = 1 << k;
    for (const w of g.words) {
      const [first, second, third] = [codes(w, 0), codes(w, 1), codes(w, 2)];
      for (const a of first) for (const b of second) pairs[(a << 7) | b]! |= bit;
      for (const b of second) for (const c of third) nextPairs[(b << 7) | c]! |= bit;
    }
  });
  const tests = groups.map((g) => g.test);
  const flags = Uint32Array.from(groups, (g) => g.flag);
  /** Per UTF-16 code unit: bit 1 base64, bit 2 base64url (non-ASCII is neither). */
  const alphabet = new Uint8Array(65536);
  alphabet.set(ALPHABET);
  /** Per UTF-16 code unit: ASCII letters in lower case, everything else cut to 7 bits. */
  const fold = new Uint8Array(65536);
  for (let c = 0; c < 65536; c++) fold[c] = c >= /* A */ 65 && c <= /* Z */ 90 ? c + 32 : c & 127;
  return {
    of(s: string): number {
      const n = s.length;
      if (n === 0) return 0;
      let maybe = 0;
      let prefixed = 0;
      let b64 = 0;
      let url = 0;
      let long = 0;
      let c = s.charCodeAt(0);
      let d = n > 1 ? s.charCodeAt(1) : 0;
      // Folded forms carried along with the characters: one fold per character.
      let fc = fold[c]!;
      let fd = fold[d]!;
      for (let i = 2; i <= n + 1; i++) {
        const e = i < n ? s.charCodeAt(i) : 0;
        const fe = fold[e]!;
        maybe |= pairs[(fc << 7) | fd]! & nextPairs[(fd << 7) | fe]!;
        prefixed |= firstPairs[((c & 127) << 7) | (d & 127)]! & secondPairs[((d & 127) << 7) | (e & 127)]!;
        const t = alphabet[c]!;
        b64 = (b64 + 1) & -(t & 1);
        url = (url + 1) & -((t >> 1) & 1);
        // Bit 6 of `count + 24` is set for counts 40…103: every run of ≥ 40 passes through them.
        long |= (b64 + 24) | (url + 24);
        c = d;
        d = e;
        fc = fd;
        fd = fe;
      }
      let out = long & 64 ? runFlags : 0;
      for (let cls = 0; prefixed !== 0; cls++, prefixed >>>= 1) if (prefixed & 1) out |= classFlags[cls]!;
      for (let k = 0; maybe !== 0; k++, maybe >>>= 1) {
        if ((maybe & 1) === 0 || (out & flags[k]!) !== 0) continue;
        if (tests[k]!.test(s)) out |= flags[k]!;
      }
      return out;
    },
  };
}
