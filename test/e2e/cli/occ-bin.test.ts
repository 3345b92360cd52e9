/**
 * `occ` ships as a built file: package.json's `bin.occ` names an executable esbuild bundle that
 * starts with `#!/usr/bin/env node` and needs nothing from node_modules at run time (so it keeps
 * working after `npm prune --omit=dev`), only its lazy chunks beside it; `prepare` builds it and
 * survives a tree without esbuild.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { occSuite } from "../../support/occ-suite.ts";
import { OCC, runOcc } from "./spawn.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

const suite = occSuite();

describe("the built occ", { timeout: 60_000 }, () => {
  it("is the bin: executable, a node #! line, no TypeScript loader", () => {
    expect(pkg.bin.occ).toBe("dist/occ.mjs");
    expect(pkg.scripts.prepare).toBe("node cli/build.mjs");
    const text = readFileSync(OCC, "utf8");
    expect(text.split("\n")[0]).toBe("#!/usr/bin/env node");
    expect(statSync(OCC).mode & 0o111).toBe(0o111);
    expect(text).not.toContain("tsx/esm");
    // Every import left in the bundle and its chunks is a Node built-in or a chunk that exists beside
    // it, but for the AWS SDK's optional CRT signer (SigV4a only), which it requires inside a try and
    // never needs for execute-api.
    const foreign = new Set<string>();
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, "utf8");
      for (const m of code.matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)"([^"]+)"/g)) {
        const s = m[1]!;
        if (s.startsWith("node:") || builtinModules.includes(s)) continue;
        if (s.startsWith("./") || s.startsWith("../")) {
          const target = join(dirname(file), s);
          expect(existsSync(target), `${s} imported by ${file}`).toBe(true);
          visit(target);
        } else foreign.add(s);
      }
    };
    visit(OCC);
    expect(seen.size).toBeGreaterThan(1);
    expect([...foreign]).toEqual(["@aws-sdk/signature-v4-crt"]);
  });

  it("runs from a directory with no node_modules at all, against the local stack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "occ-bare-"));
    cpSync(dirname(OCC), dir, { recursive: true });
    const copy = join(dir, "occ.mjs");
    const help = await runOcc(["--help"], {}, dir, copy);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: occ");
    // Asynchronous on purpose: the local stack answers from this very process.
    const read = await runOcc(
      ["agent", "logs", "shop", "--source", "gateway", "--tail", "2", "--timestamps=false"],
      { NODE_PATH: "", ...suite.env },
      dir,
      copy,
    );
    expect(read.stderr).toBe("");
    expect(read.stdout).toMatch(/^INFO {2}hostile /m);
    expect(read.code).toBe(0);
  });

  it("prepare keeps going where esbuild is not installed (npm ci --omit=dev)", () => {
    const dir = mkdtempSync(join(tmpdir(), "occ-omit-dev-"));
    const script = join(dir, "cli", "build.mjs");
    execFileSync("mkdir", ["-p", join(dir, "cli")]);
    copyFileSync(join(ROOT, "cli", "build.mjs"), script);
    const missing = spawnSync(process.execPath, [script], { encoding: "utf8", cwd: dir });
    expect(missing.status).toBe(0);
    expect(missing.stderr).toContain("occ was not built");
    execFileSync("mkdir", ["-p", join(dir, "dist")]);
    writeFileSync(join(dir, "dist", "occ.mjs"), "// an earlier build\n");
    const kept = spawnSync(process.execPath, [script], { encoding: "utf8", cwd: dir });
    expect(kept.status).toBe(0);
    expect(kept.stderr).toContain("keeping the existing");
    expect(readFileSync(join(dir, "dist", "occ.mjs"), "utf8")).toBe("// an earlier build\n");
  });
});
