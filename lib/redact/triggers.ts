/**
 * Which rules can match a string: one linear scan over the text, no lower-cased copy, words only
 * compared where their first two characters are. Redacting only ever replaces a span by one
 * private-use marker, which cannot complete an ASCII word or join two runs, so the words found in
 * the input are a superset of those any later rule sees.
 */
import type { Rule } from "./rule.ts";
import { ALPHABET } from "./scan.ts";

interface TriggerWord {
  text: string;
  flag: number;
}

export interface Triggers {
  /** Bit `1 << k` set when rule `k` may match. */
  of(s: string): number;
}

const asciiLower = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);

/** Whether the lower-case `word` (`.` = any character) occurs at `i`, ASCII case-insensitively. */
function wordAt(s: string, i: number, word: string): boolean {
  if (i + word.length > s.length) return false;
  for (let k = 1; k < word.length; k++) {
    const w = word.charCodeAt(k);
    if (w !== 46 && asciiLower(s.charCodeAt(i + k)) !== w) return false;
  }
  return true;
}

const bothCases = (c: number): number[] => (c >= 97 && c <= 122 ? [c, c - 32] : [c]);

/** Build the trigger scan for `rules` (rule `k` gets flag `1 << k`). */
export function compileTriggers(rules: readonly Rule[]): Triggers {
  /** Per ASCII character: bit 1 base64, bit 2 base64url, bit 4 may start a word, bit 8 a one-character word. */
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = ALPHABET[c]!;
  const singleFlags = new Uint32Array(128);
  /** Words by the pair of their first two characters (either case), at `first * 128 + second`. */
  const byPair = new Int16Array(128 * 128);
  const lists: TriggerWord[][] = [[]];
  let runFlags = 0;
  let all = 0;
  rules.forEach((rule, k) => {
    const flag = 1 << k;
    all |= flag;
    if (rule.longRun === true) runFlags |= flag;
    for (const text of rule.words) {
      for (const first of bothCases(text.charCodeAt(0))) {
        if (text.length === 1) {
          table[first]! |= 8;
          singleFlags[first]! |= flag;
          continue;
        }
        table[first]! |= 4;
        for (const second of bothCases(text.charCodeAt(1))) {
          const at = first * 128 + second;
          if (byPair[at] === 0) {
            byPair[at] = lists.length;
            lists.push([]);
          }
          const list = lists[byPair[at]!]!;
          const same = list.find((w) => w.text === text);
          if (same !== undefined) same.flag |= flag;
          else list.push({ text, flag });
        }
      }
    }
  });
  return {
    of(s: string): number {
      let flags = 0;
      let b64 = 0;
      let url = 0;
      const n = s.length;
      let next = s.charCodeAt(0);
      for (let i = 0; i < n; i++) {
        const c = next;
        next = s.charCodeAt(i + 1);
        const t = c < 128 ? table[c]! : 0;
        // Runs of either alphabet (a long one triggers the long-token rule), without branches.
        b64 = (b64 + 1) & -(t & 1);
        url = (url + 1) & -((t >> 1) & 1);
        if (b64 >= 40 || url >= 40) flags |= runFlags;
        if (t < 4) continue;
        if (t & 8) flags |= singleFlags[c]!;
        if ((t & 4) === 0 || !(next < 128)) continue;
        const id = byPair[c * 128 + next]!;
        if (id === 0) continue;
        const words = lists[id]!;
        for (let k = 0; k < words.length; k++) {
          const w = words[k]!;
          if ((flags & w.flag) !== w.flag && wordAt(s, i, w.text)) flags |= w.flag;
        }
        if (flags === all) break;
      }
      return flags;
    },
  };
}
