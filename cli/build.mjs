#!/usr/bin/env node
/**
 * Builds `occ` into one self-contained file, `dist/occ.mjs` (package.json `bin.occ`): every module
 * it imports is bundled, so it runs with no node_modules at all and loads no TypeScript compiler.
 * Run by `npm ci`/`npm install` through the `prepare` script, and by `npm run build:cli`.
 *
 * Plain JavaScript on purpose: `prepare` also runs under `npm ci --omit=dev`, where neither tsx nor
 * esbuild (dev dependencies) is installed. Then an existing build is kept, or the install goes on
 * with a warning and without `occ` (build it where dev dependencies exist, then prune them).
 */
import { chmodSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const OCC_BUNDLE = join(ROOT, "dist", "occ.mjs");

// ESM output cannot `require`; bundled CommonJS packages (the AWS SDK's credential chain) still do.
const BANNER = [
  "#!/usr/bin/env node",
  'import { createRequire as __occCreateRequire } from "node:module";',
  "const require = __occCreateRequire(import.meta.url);",
].join("\n");

/** Builds the bundle into `outfile` (atomically: a reader never sees half a file); returns its size. */
export async function buildOcc(outfile = OCC_BUNDLE) {
  const { build } = await import("esbuild");
  mkdirSync(dirname(outfile), { recursive: true });
  const tmp = `${outfile}.${process.pid}.${Date.now()}.tmp`;
  const result = await build({
    entryPoints: [join(ROOT, "cli", "main.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    legalComments: "none",
    banner: { js: BANNER },
    outfile: tmp,
    metafile: true,
    logLevel: "warning",
  });
  chmodSync(tmp, 0o755);
  renameSync(tmp, outfile);
  const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
  return { outfile, bytes };
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
