import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default"],
    // The deployable bundles are loaded by Node itself, as Lambda loads them: through Vite's module
    // runner a cold 2.5 MiB bundle took 4-5 s to transform instead of 0.4 s to import.
    server: { deps: { external: [/\/bundles\/[a-z-]+\/(index|chunks\/[^/]+)\.mjs$/] } },
  },
});
