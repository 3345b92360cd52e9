/**
 * The Lambda functions and how they are bundled: one place for the stack, the bundle-size test
 * and the cold-start bench, so what is measured is what is deployed.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { BuildOptions } from "esbuild";

export type FunctionName = "status" | "logs" | "download" | "health" | "health-probe" | "audit-archive";

export interface FunctionSpec {
  name: FunctionName;
  description: string;
  memoryMiB: number;
  timeoutSeconds: number;
  /**
   * Reserved concurrency (context `reservedConcurrency` overrides it per function): `logs` cannot
   * starve `status`, the probe or the account, and it caps the load on clusters
   * (docs/capacity.md sizes it: ~1 000 followers at 2 s polls need ~50 concurrent logs executions).
   */
  reservedConcurrency: number;
}

/**
 * HTTP functions get 12 s (the 10 s request deadline plus slack, under the HTTP API's 30 s); logs and
 * download process a 1 MiB page, so they get more memory (and with it more CPU).
 */
export const FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: "status",
    description: "Runtime description and deployment list",
    memoryMiB: 512,
    timeoutSeconds: 12,
    reservedConcurrency: 20,
  },
  {
    name: "logs",
    description: "Redacted, resumable log pages",
    memoryMiB: 1024,
    timeoutSeconds: 12,
    reservedConcurrency: 100,
  },
  {
    name: "download",
    description: "Redacted log downloads",
    memoryMiB: 1024,
    timeoutSeconds: 12,
    reservedConcurrency: 10,
  },
  // Public `/health`: configuration sanity only, so it holds no secret or table grant and its bundle
  // carries neither the Kubernetes client nor gRPC (test/infra/bundles.test.ts).
  {
    name: "health",
    description: "Public /health (no secrets, no tables)",
    memoryMiB: 256,
    timeoutSeconds: 12,
    reservedConcurrency: 5,
  },
  {
    name: "health-probe",
    description: "Scheduled health probe and restart recorder",
    memoryMiB: 512,
    timeoutSeconds: 60,
    reservedConcurrency: 1,
  },
  // Consumes the Audit table's change stream into the Object-Locked archive (docs/audit-archive.md);
  // a batch of 100 small records is 100 PutObject calls.
  {
    name: "audit-archive",
    description: "Audit change stream to the Object-Locked archive",
    memoryMiB: 256,
    timeoutSeconds: 60,
    reservedConcurrency: 5,
  },
];

/** The repository root (this file lives in `infra/`). */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

export const defaultEntry = (name: FunctionName): string => path.join(REPO_ROOT, "functions", `${name}.ts`);

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
