/**
 * The Lambda functions and how they are bundled: one place for the stack, the bundle-size test
 * and the cold-start bench, so what is measured is what is deployed.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { BuildOptions } from "esbuild";
import { type FunctionName, functionSpec } from "../lib/service/routes.ts";

export type { FunctionName, FunctionSpec } from "../lib/service/routes.ts";
/** The functions and their specs: the one table in lib/service/routes.ts. */
export { FUNCTIONS } from "../lib/service/routes.ts";

/** The repository root (this file lives in `infra/`). */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

export const defaultEntry = (name: FunctionName): string => path.join(REPO_ROOT, functionSpec(name).entry);

/** ESM bundles may contain CommonJS code that calls `require` (the Kubernetes client does). */
export const REQUIRE_SHIM =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/**
 * The bundling choices of every function, for the stack (infra/constructs/service-function.ts) and
 * for a direct `esbuild.build` (infra/bundle.ts) alike. Everything is bundled, the AWS SDK included
 * (`external` stays empty): the versions pinned in package-lock.json are the ones tested, whatever
 * SDK the managed runtime happens to ship. Code splitting puts what a handler imports lazily (the
 * Kubernetes client, gRPC, the stores) into chunks beside `index.mjs`, so a cold start parses only
 * the entry (P3 in docs/quality.md): Lambda's init pays for the entry, the first request for the rest.
 */
export const BUNDLING = {
  target: "node22",
  format: "esm",
  platform: "node",
  mainFields: ["module", "main"],
  banner: REQUIRE_SHIM,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  externalModules: [] as string[],
  /** The handler's module (`index.handler`); chunks go under `chunks/`. */
  entryName: "index",
  chunkNames: "chunks/[name]-[hash]",
  extension: ".mjs",
} as const;

/** `esbuild.build` options that bundle the function at `entry` into the directory `outdir`. */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    entryNames: BUNDLING.entryName,
    chunkNames: BUNDLING.chunkNames,
    outExtension: { ".js": BUNDLING.extension },
    splitting: true,
    bundle: true,
    target: BUNDLING.target,
    format: BUNDLING.format,
    platform: BUNDLING.platform,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    external: [...BUNDLING.externalModules],
    logLevel: "silent",
  };
}
