/**
 * P-occ help: how much `occ --help` costs over a bare Node start (the CLI's own start-up: loading
 * the built bundle and printing help). Runs the built bin (package.json `bin.occ`, built first by
 * the same script `prepare` runs) and `node -e 0` alternately in fresh processes; the row gives
 * both medians and their difference. Target: difference ≤ 150 ms.
 *
 * Run alone: `npx tsx bench/p-occ-help.ts` (or `npm run bench -- P-OCC`).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { median, round } from "./support/stats.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const TARGET_OVER_NODE_MS = 150;
const RUNS = 21;

function timeRun(args: string[]): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "" },
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export async function run(): Promise<Record<string, unknown>> {
  execFileSync(process.execPath, [path.join(ROOT, "cli", "build.mjs")], { stdio: "ignore" });
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: { occ: string } };
  const bin = path.join(ROOT, pkg.bin.occ);
  // One warm-up of each, so the file cache is not what is measured.
  timeRun(["-e", "0"]);
  timeRun([bin, "--help"]);
  const bare: number[] = [];
  const help: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeRun(["-e", "0"]));
    help.push(timeRun([bin, "--help"]));
  }
  const over = median(help) - median(bare);
  // What `--help` does not load: the chunks the split build keeps beside the bundle (cli/build.mjs).
  const lazyDir = path.join(path.dirname(bin), "occ-lazy");
  const lazyBytes = existsSync(lazyDir)
    ? readdirSync(lazyDir).reduce((sum, f) => sum + statSync(path.join(lazyDir, f)).size, 0)
    : 0;
  return {
    bench: "P-occ help",
    bundle_bytes: statSync(bin).size,
    lazy_chunk_bytes: lazyBytes,
    node_e0_median_ms: round(median(bare)),
    occ_help_median_ms: round(median(help)),
    over_node_median_ms: round(over),
    target_over_node_ms: TARGET_OVER_NODE_MS,
    runs: RUNS,
    pass: over <= TARGET_OVER_NODE_MS,
  };
}

export const id = "P-OCC";

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
}
