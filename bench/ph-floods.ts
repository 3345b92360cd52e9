/**
 * PH (docs/quality.md): 32 KiB lines of one repeated unit that the P2 corpus does not hold but an
 * attacker can write as easily: invisible and compatibility characters (the shadow's per-character
 * path), escaped key characters (the escape decoder), and flags repeated thousands of times. Timed
 * as P2 times the chain: per shape the median of 21 repetitions taken in rounds over all shapes.
 */
import { redactText } from "../lib/redact/index.ts";
import { timeInRounds } from "./support/rounds.ts";
import { round } from "./support/stats.ts";

export const id = "PH";

const UNITS: Record<string, string> = {
  "zero-width spaces": "\u200b",
  "no-break spaces": "\u00a0",
  "fullwidth pass=": "ｐａｓｓ＝",
  "fullwidth token: ": "ｔｏｋｅｎ: ",
  "mathematical bold password=": "𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝=",
  "percent-encoded letters": "%41",
  "JSON-escaped key": "p\\u0061ssword: ",
  "HTML references": "&#97;=",
  "mysql -p": "mysql -p",
  "-u a:b": "-u a:b ",
};

const REPEATS = 21;

export async function run(): Promise<Record<string, unknown>> {
  const shapes = Object.entries(UNITS).map(([name, unit]) => ({
    name,
    line: unit.repeat(Math.ceil(32_768 / unit.length)).slice(0, 32_768),
  }));
  for (let i = 0; i < 3; i++) for (const s of shapes) redactText(s.line);
  const timed = timeInRounds(shapes, (line) => redactText(line), REPEATS);
  return {
    bench: "PH hostile floods 32KiB",
    worst_ms: round(timed.worst, 3),
    worst_case: timed.worstCase,
    median_ms: round(timed.median, 3),
    cases: Object.fromEntries(shapes.map((s, i) => [s.name, round(timed.perShape[i]!, 3)])),
  };
}
