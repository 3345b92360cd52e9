/**
 * PH (docs/quality.md): 32 KiB lines of one repeated unit that the P2 corpus does not hold but an
 * attacker can write as easily: invisible and compatibility characters (the shadow's per-character
 * path), escaped key characters (the escape decoder), and flags repeated thousands of times. Timed
 * as P2 times the chain: per shape the median of 21 repetitions taken in rounds over all shapes.
 * Then floods of generated units (seeded: pieces of the grammars glued at random), each line timed
 * at 32 KiB, and the slowest at 12 and 48 KiB: a cost that grows faster than the line is a rescan
 * (larger lines would measure the heap instead: past 128 KiB a string is a large object).
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

/**
 * What generated units are glued from: trigger words, keys that name no secret, separators, quotes,
 * escapes, substitutions, flags and commands.
 */
const PIECES = [
  ...["password", "pass", "token", "secret", "key", "cookie", "authorization", "sender_id", "session"],
  ...["keyboard", "monkey", "author", "tokens_count", "value", "name", "identified", "by"],
  ...["=", ":", ": ", "=>", "->", ":=", "%3D", "\\u003d", "&#61;", " ", "\t"],
  ...['"', "'", "`", "\\", '\\"', "%22", "&quot;", "u0022", "<", ">", "/", "[", "]", "{", "}", "(", ")"],
  ...["://", "@", "?", "&", "#", ";", ",", ".", "_", "-", "--", "0", "a", "x"],
  ...["-u ", "-p", "mysql", "redis-cli", "login", "vault", "openssl", "pass:", "Bearer ", "Basic "],
  ...["-----", "BEGIN ", "eyJ", "https://", "AKIA", "ghp_", "sk-", "\u200b", "ｔ", "é"],
  ...[
    "proxy=",
    "sqlplus ",
    "conn ",
    "userid=",
    "jdbc:oracle:thin:",
    "\\ ",
    "''",
    '<entry key="',
    "&#0061",
    "→",
  ],
  ...["$(", "${", ")", "<-", "htpasswd -b ", "ldapsearch -w", "smbclient -U ", "| chpasswd", "Password="],
  ...["\\u003c", "\\u003e", "&lt;", "&gt;", "<![CDATA[", "]]>", "!!str ", "&a ", "[0]", "ENV ", "setenv "],
  // Values on later lines, encoded URLs, data source names, stdin readers (session 15's grammars).
  ...["\\n", "\n", "|", ">-", "<<", "EOF", '"""', "%3A%2F%2F", "%40", "@tcp(", "sudo -S ", "<(echo "],
  ...["--password-file ", "http -va ", "&db", "lsv2_pt_", "=\\n  ", ":\\n- "],
];
const GENERATED = 400;
const LINE = 32_768;

/** Seeded units of one to five pieces (a linear congruential generator: the same units every run). */
function generatedUnits(seed: number): string[] {
  let x = seed;
  const next = (n: number): number => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x % n;
  };
  return Array.from({ length: GENERATED }, () =>
    Array.from({ length: 1 + next(5) }, () => PIECES[next(PIECES.length)]!).join(""),
  );
}

const flood = (unit: string, size: number): string =>
  unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

export async function run(): Promise<Record<string, unknown>> {
  const shapes = Object.entries(UNITS).map(([name, unit]) => ({
    name,
    line: unit.repeat(Math.ceil(32_768 / unit.length)).slice(0, 32_768),
  }));
  for (let i = 0; i < 3; i++) for (const s of shapes) redactText(s.line);
  const timed = timeInRounds(shapes, (line) => redactText(line), REPEATS);
  const generated = generatedUnits(20_261_202).map((unit) => ({ name: unit, line: flood(unit, LINE) }));
  const wide = timeInRounds(generated, (line) => redactText(line), 5);
  // The ten slowest again, at 12 and 48 KiB: linear work grows about 4×.
  const slowest = wide.perShape
    .map((ms, i) => ({ ms, i }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10)
    .map(({ i }) => generated[i]!.name);
  const at = (size: number) =>
    timeInRounds(
      slowest.map((u) => ({ name: u, line: flood(u, size) })),
      (line) => redactText(line),
      9,
    ).perShape;
  const short = at(12_288);
  const growth = at(49_152).map((ms, i) => ms / short[i]!);
  const steepest = growth.indexOf(Math.max(...growth));
  return {
    bench: "PH hostile floods 32KiB",
    worst_ms: round(timed.worst, 3),
    worst_case: timed.worstCase,
    median_ms: round(timed.median, 3),
    cases: Object.fromEntries(shapes.map((s, i) => [s.name, round(timed.perShape[i]!, 3)])),
    generated_units: GENERATED,
    generated_worst_ms: round(wide.worst, 3),
    generated_worst_unit: wide.worstCase,
    generated_median_ms: round(wide.median, 3),
    generated_growth_4x: round(growth[steepest]!, 2),
    generated_growth_unit: slowest[steepest],
  };
}
