/**
 * How the local stack serves the console: built on the fly with esbuild from sources, else from a
 * dist folder, else a page saying it is not built; never sources, hidden files or anything outside.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createConsoleAssets } from "../../../local/stack/console-assets.ts";

const root = mkdtempSync(join(tmpdir(), "console-assets-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dir(name: string, files: Record<string, string>): string {
  const d = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(d, path, ".."), { recursive: true });
    writeFileSync(join(d, path), content);
  }
  return d;
}

describe("console assets", () => {
  it("bundles main.ts on the fly and serves index.html and static files next to it", async () => {
    const d = dir("src", {
      "index.html": '<!doctype html><script type="module" src="/main.js"></script>',
      "main.ts": 'import { greet } from "./greet.ts";\nconst n: number = 2;\ndocument.title = greet(n);\n',
      "greet.ts": 'export const greet = (n: number): string => "hello " + String(n);\n',
      "style.css": "body { color: red }",
      ".secret.html": "no",
    });
    const assets = createConsoleAssets(d);
    try {
      const index = await assets.get("/");
      expect(index?.contentType).toBe("text/html; charset=utf-8");
      expect(index?.body.toString()).toContain("/main.js");
      const js = await assets.get("/main.js");
      expect(js?.contentType).toBe("text/javascript; charset=utf-8");
      expect(js?.body.toString()).toContain("hello ");
      expect(js?.body.toString()).not.toContain(": number");
      // Rebuilt on each request: an edit shows on the next load.
      writeFileSync(
        join(d, "greet.ts"),
        'export const greet = (n: number): string => "bonjour " + String(n);\n',
      );
      expect((await assets.get("/main.js"))?.body.toString()).toContain("bonjour ");
      expect((await assets.get("/style.css"))?.contentType).toBe("text/css; charset=utf-8");
      for (const path of [
        "/main.ts",
        "/greet.ts",
        "/.secret.html",
        "/../src/index.html",
        "/%2e%2e/x.html",
        "/nope.js",
      ]) {
        expect(await assets.get(path), path).toBeNull();
      }
    } finally {
      await assets.close();
    }
  });

  it("serves dist/ when there are no sources, and a not-built page when there is nothing", async () => {
    const d = dir("built", { "dist/index.html": "<p>built</p>", "dist/app.js": "console.log(1)" });
    const assets = createConsoleAssets(d);
    expect((await assets.get("/"))?.body.toString()).toBe("<p>built</p>");
    expect((await assets.get("/app.js"))?.contentType).toBe("text/javascript; charset=utf-8");
    const empty = createConsoleAssets(dir("empty", {}));
    expect((await empty.get("/"))?.body.toString()).toContain("not built");
    expect(await empty.get("/app.js")).toBeNull();
  });
});
