#!/usr/bin/env node
/**
 * Builds `occ` into `dist/occ.mjs` (package.json `bin.occ`) and its lazily loaded parts in
 * `dist/occ-lazy/`: every module it imports is bundled, so it runs with no node_modules at all and
 * loads no TypeScript compiler. What only `--auth iam` needs (the AWS credential chain and the
 * SigV4 signer, most of the code) sits in the lazy chunks, so a start-up parses only what it runs.
 * Run by `npm ci`/`npm install` through the `prepare` script, and by `npm run build:cli`.
 *
 * Plain JavaScript on purpose: `prepare` also runs under `npm ci --omit=dev`, where neither tsx nor
 * esbuild (dev dependencies) is installed. Then an existing build is kept, or the install goes on
 * with a warning and without `occ` (build it where dev dependencies exist, then prune them).
 */
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const OCC_BUNDLE = join(ROOT, "dist", "occ.mjs");
/** The lazy chunks, beside the bundle (their names carry a content hash). */
export const LAZY_DIR = "occ-lazy";

// ESM output cannot `require`; bundled CommonJS packages (the AWS SDK's credential chain) still do.
const BANNER = [
  "#!/usr/bin/env node",
  'import { createRequire as __occCreateRequire } from "node:module";',
  "const require = __occCreateRequire(import.meta.url);",
].join("\n");

/**
 * Builds the bundle into `outfile` and its chunks into `occ-lazy/` beside it; returns the bundle's
 * size. A reader never sees half a build: new chunks (new names) land first, then the bundle is
 * renamed into place, then chunks no longer referenced are removed.
 */
export async function buildOcc(outfile = OCC_BUNDLE) {
  const { build } = await import("esbuild");
  const dir = dirname(outfile);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.occ-build.${process.pid}.${Date.now()}`);
  const name = basename(outfile).replace(/\.mjs$/, "");
  try {
    const result = await build({
      entryPoints: { [name]: join(ROOT, "cli", "main.ts") },
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      target: "node20",
      minify: true,
      legalComments: "none",
      banner: { js: BANNER },
      outdir: tmp,
      entryNames: "[name]",
      chunkNames: `${LAZY_DIR}/[name]-[hash]`,
      outExtension: { ".js": ".mjs" },
      metafile: true,
      logLevel: "warning",
    });
    const lazy = join(dir, LAZY_DIR);
    mkdirSync(lazy, { recursive: true });
    const chunks = readdirSync(join(tmp, LAZY_DIR));
    for (const chunk of chunks) renameSync(join(tmp, LAZY_DIR, chunk), join(lazy, chunk));
    chmodSync(join(tmp, `${name}.mjs`), 0o755);
    renameSync(join(tmp, `${name}.mjs`), outfile);
    for (const old of readdirSync(lazy)) if (!chunks.includes(old)) rmSync(join(lazy, old), { force: true });
    const output = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith(`/${name}.mjs`));
    return { outfile, bytes: output?.[1].bytes ?? 0 };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function esbuildAvailable() {
  try {
    await import("esbuild");
    return true;
  } catch {
    return false;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outfile = resolve(process.argv[2] ?? OCC_BUNDLE);
  if (await esbuildAvailable()) {
    const { bytes } = await buildOcc(outfile);
    process.stdout.write(`occ: built ${outfile} (${Math.round(bytes / 1024)} KiB)\n`);
  } else {
    const { existsSync } = await import("node:fs");
    process.stderr.write(
      existsSync(outfile)
        ? `occ: esbuild is not installed (dev dependencies omitted); keeping the existing ${outfile}\n`
        : `occ: esbuild is not installed (dev dependencies omitted), so occ was not built; run \`npm ci\` (with dev dependencies) and \`npm run build:cli\`, then \`npm prune --omit=dev\`\n`,
    );
  }
}
