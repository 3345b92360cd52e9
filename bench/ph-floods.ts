/**
 * PH (docs/quality.md): 32 KiB lines of one repeated unit that the P2 corpus does not hold but an
 * attacker can write as easily: invisible and compatibility characters (the shadow's per-character
 * path), escaped key characters (the escape decoder), and flags repeated thousands of times. Timed
 * as P2 times the chain: per shape the median of 21 repetitions taken in rounds over all shapes.
 */
import { performance } from "node:perf_hooks";
import { redactText } from "../lib/redact/index.ts";
import { median, round } from "./support/stats.ts";

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
  const samples: number[][] = shapes.map(() => []);
  for (let r = 0; r < REPEATS; r++) {
    shapes.forEach((s, i) => {
      const t = performance.now();
      redactText(s.line);
      samples[i]!.push(performance.now() - t);
    });
  }
  const perShape = samples.map((times) => median(times));
  let worst = 0;
  perShape.forEach((m, i) => {
    if (m > perShape[worst]!) worst = i;
  });
  return {
    bench: "PH hostile floods 32KiB",
    worst_ms: round(perShape[worst]!, 3),
    worst_case: shapes[worst]!.name,
    median_ms: round(median(perShape), 3),
    cases: Object.fromEntries(shapes.map((s, i) => [s.name, round(perShape[i]!, 3)])),
  };
}
