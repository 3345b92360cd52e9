/**
 * P3 cold start (quality.md): bundles each function as the stack does, reports its size and the
 * median time of `import()` of the bundle in a fresh Node process (the module-load part of a Lambda
 * cold start), with `--enable-source-maps` as deployed. Targets: ≤ 3 MiB, ≤ 300 ms median.
 *
 * `runP3ColdStart()` returns the one JSON row; bench/run.ts prints it. Run alone:
 * `npx tsx bench/p3-cold-start.ts`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { bundleFunction, MAX_BUNDLE_BYTES } from "../infra/bundle.ts";
import { FUNCTIONS, type FunctionName, REPO_ROOT } from "../infra/functions.ts";
import { ENV } from "../lib/config.ts";

export const P3_TARGET = { maxMiB: 3, maxImportMedianMs: 300 } as const;

export interface P3FunctionFigures {
  bytes: number;
  mib: number;
  import_median_ms: number;
  import_runs_ms: number[];
}

export interface P3Row {
  bench: "P3 cold start";
  max_mib: number;
  max_import_median_ms: number;
  /** `import("zod")` (a fixed, pinned package) in the same run: the machine's noise reference. */
  baseline_import_median_ms: number;
  ratio_to_baseline: number;
  target_mib: number;
  target_import_ms: number;
  runs: number;
  pass: boolean;
  functions: Record<FunctionName, P3FunctionFigures>;
}

/** A configuration the functions accept at import (nothing is called: no AWS access happens). */
const IMPORT_ENV: Record<string, string> = {
  [ENV.enabled]: "true",
  [ENV.registryTable]: "bench-registry",
  [ENV.stateTable]: "bench-state",
  [ENV.auditTable]: "bench-audit",
  [ENV.cursorKeySecret]: "arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-cursor",
  [ENV.identityKeySecret]: "arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-identity",
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "bench",
  AWS_SECRET_ACCESS_KEY: "bench",
  NODE_OPTIONS: "--enable-source-maps",
};

/** Time one `import()` of `specifier` in a fresh process; returns milliseconds. */
function timeImport(specifier: string): number {
  const script = [
    "const t = performance.now();",
    `await import(${JSON.stringify(specifier)});`,
    "process.stdout.write(String(performance.now() - t));",
  ].join("");
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", ...IMPORT_ENV },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  return Number(out);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

export async function runP3ColdStart(options: { runs?: number } = {}): Promise<P3Row> {
  const runs = options.runs ?? 7;
  const outdir = mkdtempSync(path.join(tmpdir(), "runtime-logs-p3-"));
  try {
    const baseline = median(Array.from({ length: runs }, () => timeImport("zod")));
    const functions = {} as Record<FunctionName, P3FunctionFigures>;
    for (const { name } of FUNCTIONS) {
      const bundle = await bundleFunction(name, outdir);
      const url = pathToFileURL(bundle.file).href;
      timeImport(url); // warm the OS file cache; V8 keeps nothing between processes
      const times = Array.from({ length: runs }, () => timeImport(url));
      functions[name] = {
        bytes: bundle.bytes,
        mib: round(bundle.bytes / 1024 / 1024, 3),
        import_median_ms: round(median(times)),
        import_runs_ms: times.map((t) => round(t, 1)),
      };
    }
    const figures = Object.values(functions);
    const maxMiB = Math.max(...figures.map((f) => f.mib));
    const maxImport = Math.max(...figures.map((f) => f.import_median_ms));
    return {
      bench: "P3 cold start",
      max_mib: maxMiB,
      max_import_median_ms: maxImport,
      baseline_import_median_ms: round(baseline),
      ratio_to_baseline: round(maxImport / baseline),
      target_mib: P3_TARGET.maxMiB,
      target_import_ms: P3_TARGET.maxImportMedianMs,
      runs,
      pass: figures.every((f) => f.bytes <= MAX_BUNDLE_BYTES) && maxImport <= P3_TARGET.maxImportMedianMs,
      functions,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.stdout.write(`${JSON.stringify(await runP3ColdStart())}\n`);
}
