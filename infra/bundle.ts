/**
 * Bundles one function with esbuild exactly as the stack does (the options of infra/functions.ts),
 * for the bundle-size test and the P3 cold-start bench.
 */
import { mkdirSync, statSync } from "node:fs";
import * as path from "node:path";
import { build } from "esbuild";
import { defaultEntry, esbuildOptions, type FunctionName } from "./functions.ts";

export interface Bundle {
  name: FunctionName;
  /** The bundle (`index.mjs`, as the Lambda handler `index.handler` expects). */
  file: string;
  bytes: number;
  sourceMapBytes: number;
  /** The source files esbuild put into the bundle (repository-relative, `node_modules/...` included). */
  inputs: string[];
}

export async function bundleFunction(name: FunctionName, outdir: string): Promise<Bundle> {
  const dir = path.join(outdir, name);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "index.mjs");
  const result = await build({ ...esbuildOptions(defaultEntry(name), file), metafile: true });
  return {
    name,
    file,
    bytes: statSync(file).size,
    sourceMapBytes: statSync(`${file}.map`).size,
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** P3's limit on a minified bundle. */
export const MAX_BUNDLE_BYTES = 3 * 1024 * 1024;
