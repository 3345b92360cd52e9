/**
 * Builds the console for static hosting (the CDK construct uploads the result): `main.js` bundled
 * and minified by esbuild, `index.html`, `style.css` and the favicon. Synchronous, so CDK synth can
 * call it; `npx tsx console/build.ts [outdir]` writes `console/dist/` by default.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { FAVICON_ICO } from "./favicon.ts";

export const CONSOLE_DIR = fileURLToPath(new URL(".", import.meta.url));
const STATIC_FILES = ["index.html", "style.css"];

/** Writes the site into `outdir` (emptied first); returns file names and sizes in bytes. */
export function buildConsole(outdir: string): Record<string, number> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  buildSync({
    entryPoints: [join(CONSOLE_DIR, "main.ts")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outfile: join(outdir, "main.js"),
    legalComments: "none",
    logLevel: "silent",
  });
  for (const file of STATIC_FILES) copyFileSync(join(CONSOLE_DIR, file), join(outdir, file));
  writeFileSync(join(outdir, "favicon.ico"), FAVICON_ICO);
  return Object.fromEntries(readdirSync(outdir).map((f) => [f, statSync(join(outdir, f)).size]));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = resolve(process.argv[2] ?? join(CONSOLE_DIR, "dist"));
  console.log(JSON.stringify({ outdir, files: buildConsole(outdir) }));
}
