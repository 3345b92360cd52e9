/**
 * Bundles one function with esbuild exactly as the stack does (the options of infra/functions.ts),
 * for the bundle-size test, the local stack's `--bundled` mode and the P3 cold-start bench.
 */
import { mkdirSync, readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import { build } from "esbuild";
import { BUNDLING, defaultEntry, esbuildOptions, type FunctionName } from "./functions.ts";

export interface Bundle {
  name: FunctionName;
  /** The entry module (`index.mjs`, as the Lambda handler `index.handler` expects). */
  file: string;
  /** The entry module alone: what a cold start parses before the first request. */
  entryBytes: number;
  /** The whole function: the entry and every chunk it may load (what P3's size limit bounds). */
  bytes: number;
  sourceMapBytes: number;
  /** The chunks beside the entry, relative to its directory. */
  chunks: string[];
  /** The source files esbuild put into the bundle (repository-relative, `node_modules/...` included). */
  inputs: string[];
  /** Those of them in the entry module itself. */
  entryInputs: string[];
  /**
   * Those in every module that importing the entry loads: the entry and the chunks it imports
   * statically, transitively (a chunk shared with a lazy import is loaded at import all the same).
   */
  importInputs: string[];
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

export async function bundleFunction(name: FunctionName, outdir: string): Promise<Bundle> {
  const dir = path.join(outdir, name);
  mkdirSync(dir, { recursive: true });
  const result = await build({ ...esbuildOptions(defaultEntry(name), dir), metafile: true });
  const entry = `${BUNDLING.entryName}${BUNDLING.extension}`;
  const files = filesUnder(dir);
  const size = (f: string) => statSync(path.join(dir, f)).size;
  const code = files.filter((f) => f.endsWith(BUNDLING.extension));
  const outputs = result.metafile.outputs;
  const entryPath = Object.keys(outputs).find((out) => out.endsWith(`/${name}/${entry}`));
  const entryOutput = entryPath === undefined ? undefined : outputs[entryPath];
  const loaded = new Set<string>();
  const load = (out: string): void => {
    if (loaded.has(out) || outputs[out] === undefined) return;
    loaded.add(out);
    for (const i of outputs[out].imports) if (i.kind === "import-statement" && !i.external) load(i.path);
  };
  if (entryPath !== undefined) load(entryPath);
  return {
    name,
    file: path.join(dir, entry),
    entryBytes: size(entry),
    bytes: code.reduce((sum, f) => sum + size(f), 0),
    sourceMapBytes: files.filter((f) => f.endsWith(".map")).reduce((sum, f) => sum + size(f), 0),
    chunks: code.filter((f) => f !== entry),
    inputs: Object.keys(result.metafile.inputs),
    entryInputs: Object.keys(entryOutput?.inputs ?? {}),
    importInputs: [...new Set([...loaded].flatMap((out) => Object.keys(outputs[out]!.inputs)))],
  };
}

/** P3's limit on a function's minified code. */
export const MAX_BUNDLE_BYTES = 3 * 1024 * 1024;
