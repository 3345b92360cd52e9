/**
 * The web console at `/`: built on the fly with esbuild from `console/` (index.html + main.ts,
 * rebuilt incrementally on each page load, so it is never stale), else the static files of
 * `console/dist/`, else a short page saying the console is not built. Only known static types are
 * served, and never anything outside those folders.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join, normalize, sep } from "node:path";
import type { BuildContext } from "esbuild";

export interface Asset {
  contentType: string;
  body: Buffer;
}

export interface ConsoleAssets {
  get(rawPath: string): Promise<Asset | null>;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export const PLACEHOLDER_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>runtime-logs · local</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem; color: #1f2937">
<h1>runtime-logs local stack</h1>
<p>The web console is not built: <code>console/index.html</code> and <code>console/main.ts</code> are missing.</p>
<p>The API is up: try <a href="/health"><code>/health</code></a>.</p>
</body>
</html>
`;

/** A file under `root` for a URL path, or null (missing, hidden, unknown type, or outside). */
function staticFile(root: string, rawPath: string): Asset | null {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (path === "/" || path === "") path = "/index.html";
  if (path.includes("\0") || path.split("/").some((s) => s.startsWith("."))) return null;
  const type = TYPES[extname(path)];
  if (!type) return null;
  const file = normalize(join(root, path));
  if (!file.startsWith(root + sep)) return null;
  try {
    if (!statSync(file).isFile()) return null;
    return { contentType: type, body: readFileSync(file) };
  } catch {
    return null;
  }
}

export function createConsoleAssets(consoleDir: string): ConsoleAssets {
  const root = normalize(consoleDir);
  const dist = join(root, "dist");
  let builder: Promise<BuildContext> | undefined;

  const hasSources = () => existsSync(join(root, "index.html")) && existsSync(join(root, "main.ts"));

  async function built(): Promise<Map<string, Asset>> {
    builder ??= import("esbuild").then((esbuild) =>
      esbuild.context({
        entryPoints: [join(root, "main.ts")],
        bundle: true,
        write: false,
        format: "esm",
        platform: "browser",
        target: "es2022",
        sourcemap: "linked",
        outdir: join(root, ".build"),
        logLevel: "silent",
      }),
    );
    const result = await (await builder).rebuild();
    const out = new Map<string, Asset>();
    for (const f of result.outputFiles ?? []) {
      out.set(`/${basename(f.path)}`, {
        contentType: TYPES[extname(f.path)] ?? "application/octet-stream",
        body: Buffer.from(f.contents),
      });
    }
    return out;
  }

  return {
    async get(rawPath) {
      if (hasSources()) {
        if (rawPath.endsWith(".js") || rawPath.endsWith(".css") || rawPath.endsWith(".map")) {
          const asset = (await built()).get(rawPath);
          if (asset) return asset;
        }
        // Sources themselves are not served; everything else static is.
        if (rawPath.endsWith(".ts")) return null;
        return staticFile(root, rawPath);
      }
      if (existsSync(join(dist, "index.html"))) return staticFile(dist, rawPath);
      return rawPath === "/" || rawPath === "/index.html"
        ? { contentType: TYPES[".html"] as string, body: Buffer.from(PLACEHOLDER_HTML) }
        : null;
    },
    async close() {
      if (builder) await (await builder).dispose();
    },
  };
}
