/**
 * Bundles every function for real with esbuild, with the stack's own options (P3: each bundle
 * ≤ 3 MiB minified), and checks the bundle is the ESM module the Lambda runtime loads.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bundle, bundleFunction, MAX_BUNDLE_BYTES } from "../../infra/bundle.ts";
import { FUNCTIONS, REQUIRE_SHIM } from "../../infra/functions.ts";

const outdir = mkdtempSync(path.join(tmpdir(), "runtime-logs-bundles-"));
let bundles: Bundle[] = [];

beforeAll(async () => {
  bundles = await Promise.all(FUNCTIONS.map(({ name }) => bundleFunction(name, outdir)));
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("function bundles (esbuild, as deployed)", () => {
  it.each(FUNCTIONS.map((f) => [f.name] as const))(
    "%s: ≤ 3 MiB, minified ESM with the require shim",
    (name) => {
      const bundle = bundles.find((b) => b.name === name)!;
      expect(bundle.bytes).toBeGreaterThan(10_000);
      expect(bundle.bytes).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
      const code = readFileSync(bundle.file, "utf8");
      expect(code.startsWith(REQUIRE_SHIM)).toBe(true);
      expect(code).toMatch(/export\s*\{[^}]*\bas handler\b|export\s*\{\s*handler\b/);
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      // Minified: few, long lines.
      expect(code.split("\n").length).toBeLessThan(bundle.entryBytes / 200);
      expect(bundle.sourceMapBytes).toBeGreaterThan(0);
      // Every chunk may hold CommonJS code that calls `require`: each carries the shim too.
      for (const chunk of bundle.chunks) {
        expect(chunk).toMatch(/^chunks\/[\w-]+\.mjs$/);
        const chunkCode = readFileSync(path.join(path.dirname(bundle.file), chunk), "utf8");
        expect(chunkCode.startsWith(REQUIRE_SHIM)).toBe(true);
      }
    },
  );

  it("health: a small bundle without the Kubernetes client, gRPC, the AWS SDK or the config schema", () => {
    const health = bundles.find((b) => b.name === "health")!;
    const heavy = [
      /node_modules\/@kubernetes\//,
      /node_modules\/@grpc\//,
      /node_modules\/@connectrpc\//,
      /node_modules\/@aws-sdk\//,
      /node_modules\/zod\//,
    ];
    for (const pattern of heavy) expect(health.inputs.filter((i) => pattern.test(i))).toEqual([]);
    expect(health.inputs).toContain("functions/health.ts");
    expect(health.bytes).toBeLessThan(200 * 1024);
    // The control: the logs bundle does carry the Kubernetes client, so the check can fail.
    const logs = bundles.find((b) => b.name === "logs")!;
    expect(logs.inputs.some((i) => heavy[0]!.test(i))).toBe(true);
  });

  it.each(["status", "logs", "download", "health-probe"] as const)(
    "%s: importing it loads neither the Kubernetes client, gRPC nor the AWS SDK (entry or chunk); they load with the first request",
    (name) => {
      const bundle = bundles.find((b) => b.name === name)!;
      const lazy = [/node_modules\/@kubernetes\//, /node_modules\/@connectrpc\//, /node_modules\/@aws-sdk\//];
      for (const pattern of lazy) expect(bundle.importInputs.filter((i) => pattern.test(i))).toEqual([]);
      expect(bundle.importInputs).toEqual(expect.arrayContaining(bundle.entryInputs));
      // The control: the function does carry the Kubernetes client and the SDK, in its chunks.
      for (const pattern of [lazy[0]!, lazy[2]!])
        expect(bundle.inputs.some((i) => pattern.test(i))).toBe(true);
      expect(bundle.entryInputs).toContain(`functions/${name}.ts`);
      expect(bundle.entryBytes).toBeLessThan(bundle.bytes / 4);
    },
  );
});
