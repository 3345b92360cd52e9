/**
 * The production console stands alone: its build reads nothing of the local stack, its types come
 * from the service without its code, and no response text can become markup.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildConsole, CONSOLE_DIR } from "../../../console/build.ts";
import { FAVICON_ICO } from "../../../console/favicon.ts";

const out = mkdtempSync(join(tmpdir(), "console-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The console's own TypeScript sources, by name. */
function sourcesOf(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "dist") for (const [k, v] of sourcesOf(path)) found.set(k, v);
    else if (entry.name.endsWith(".ts")) found.set(path, readFileSync(path, "utf8"));
  }
  return found;
}

/** Every relative import specifier of the console's own sources. */
function importsOf(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "dist") found.push(...importsOf(path));
    else if (entry.name.endsWith(".ts")) {
      const text = readFileSync(path, "utf8");
      for (const m of text.matchAll(/\bfrom\s+"([^"]+)"/g)) found.push(`${entry.name}: ${m[1]}`);
    }
  }
  return found;
}

describe("console build", () => {
  it("imports nothing from the local stack (the local stack imports the console's favicon)", () => {
    const imports = importsOf(CONSOLE_DIR);
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.filter((i) => i.includes("/local/"))).toEqual([]);
    expect(readFileSync(join(CONSOLE_DIR, "../local/stack/server.ts"), "utf8")).toContain(
      '"../../console/favicon.ts"',
    );
  });

  it("writes the page, the bundle and the favicon as a 16×16 ICO", () => {
    const files = buildConsole(out);
    expect(Object.keys(files).sort()).toEqual(["favicon.ico", "index.html", "main.js", "style.css"]);
    const ico = readFileSync(join(out, "favicon.ico"));
    expect(ico.equals(FAVICON_ICO)).toBe(true);
    // ICONDIR: reserved 0, type 1 (icon), one image of 16×16.
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4), ico[6], ico[7]]).toEqual([
      0, 1, 1, 16, 16,
    ]);
  });

  it("takes only types and the dependency-free grammars (IDs, contract values, RFC 3339, level words) from the service: no zod in the bundle", () => {
    const fromLib = [...sourcesOf(CONSOLE_DIR)].flatMap(([file, text]) =>
      [...text.matchAll(/^import\s+(type\s+)?[^;]*from\s+"(?:\.\.\/)+(lib\/[^"]+)";/gm)].map((m) => ({
        file,
        module: m[2] as string,
        typeOnly: m[1] !== undefined,
      })),
    );
    expect(fromLib.length).toBeGreaterThan(0);
    const grammars = [
      "lib/api/ids.ts",
      "lib/api/values.ts",
      "lib/rfc3339.ts",
      "lib/runtime-logs/level-words.ts",
    ];
    expect(fromLib.filter((i) => !i.typeOnly && !grammars.includes(i.module))).toEqual([]);
    for (const module of grammars)
      expect(readFileSync(join(CONSOLE_DIR, "..", module), "utf8")).not.toMatch(/^import (?!type )/m);
    buildConsole(out);
    const bundle = readFileSync(join(out, "main.js"), "utf8");
    expect(bundle).not.toMatch(/ZodError|zod/);
    expect(bundle.length).toBeLessThan(64 * 1024);
  });

  it("never writes HTML strings into the page", () => {
    for (const [file, text] of sourcesOf(CONSOLE_DIR)) {
      expect(text, file).not.toMatch(
        /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment/,
      );
    }
  });
});
