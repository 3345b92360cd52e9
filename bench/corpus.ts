/**
 * Loads the shared benchmark corpus (`shared/bench/corpus.mjs`), which lives beside the repository:
 * `/work/shared` next to `/work/main` here, `<clone>/../shared` in CI.
 */
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface Corpus {
  realistic(seed?: number): string;
  realisticWithSecrets(seed?: number): { chunk: string; secrets: string[] };
  hostile(seed?: number): Array<{ name: string; line: string }>;
  baseline(chunk: string): number;
}

export async function loadCorpus(): Promise<Corpus> {
  const repoRoot = new URL("../", import.meta.url);
  const candidates = [
    process.env.RUNTIME_LOGS_CORPUS,
    fileURLToPath(new URL("../shared/bench/corpus.mjs", repoRoot)),
    fileURLToPath(new URL("shared/bench/corpus.mjs", repoRoot)),
  ].filter((p): p is string => p !== undefined && p !== "");
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined) throw new Error(`benchmark corpus not found; looked in ${candidates.join(", ")}`);
  return (await import(pathToFileURL(found).href)) as Corpus;
}

/** Median of a list of numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const round = (x: number, digits = 3): number => Number(x.toFixed(digits));
