/** The production console stands alone: its build reads nothing of the local stack. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildConsole, CONSOLE_DIR } from "../../../console/build.ts";
import { FAVICON_ICO } from "../../../console/favicon.ts";

const out = mkdtempSync(join(tmpdir(), "console-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

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
});
