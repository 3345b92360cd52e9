/**
 * Which Chromium the browser tests drive. Debian's `/usr/bin/chromium` when the machine has it;
 * otherwise the headless Chromium that the npm package `@sparticuz/chromium` ships inside itself
 * (brotli archives), extracted once into `node_modules/.cache/`. So `npm ci && npm test` needs no
 * apt and no download.
 *
 * `RUNTIME_LOGS_CHROMIUM_CANDIDATES` overrides the system candidates: a `:`-separated list of
 * paths tried in order; empty means "none", which forces the npm-shipped Chromium (how a machine
 * without Debian's chromium is reproduced on one that has it).
 */
import { execFile, execFileSync } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SUPPORT_CACHE_DIR } from "./cache.ts";

export const CHROMIUM_CANDIDATES_ENV = "RUNTIME_LOGS_CHROMIUM_CANDIDATES";
export const SYSTEM_CHROMIUM_CANDIDATES = ["/usr/bin/chromium"] as const;

/** Flags both builds need headless as root in a container; no network chatter. */
const COMMON_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The npm build is a headless shell made for Lambda: no zygote, no GPU process, and the extracted
 * fonts and SwiftShader beside the binary.
 */
const PACKAGED_ARGS = ["--no-zygote", "--disable-dev-shm-usage", "--use-gl=angle", "--use-angle=swiftshader"];

export interface ChromiumChoice {
  executablePath: string;
  args: string[];
  /** `system` (a candidate path) or `npm` (extracted from `@sparticuz/chromium`). */
  origin: "system" | "npm";
  /** Environment for the browser process (fontconfig for the packaged fonts), or undefined. */
  env: Record<string, string> | undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The system candidates: the environment override when set (even empty), else Debian's path. */
export function systemCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const override = env[CHROMIUM_CANDIDATES_ENV];
  if (override === undefined) return [...SYSTEM_CHROMIUM_CANDIDATES];
  return override.split(":").filter((p) => p !== "");
}

const execFileAsync = promisify(execFile);

/** A direct devDependency, so npm installs it at the top of node_modules. */
const PACKAGE_DIR = fileURLToPath(new URL("../../node_modules/@sparticuz/chromium/", import.meta.url));

function packageVersion(): string {
  const manifest = join(PACKAGE_DIR, "package.json");
  if (!existsSync(manifest)) throw new Error(`${manifest} is missing: run npm ci`);
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

/**
 * Extracts the package's Chromium into a versioned cache directory and returns the binary's path.
 * The package extracts into `os.tmpdir()`, so it runs in a child process whose TMPDIR is a fresh
 * staging directory, renamed into place when complete: concurrent test files never see a half
 * written binary, and a crash leaves only a staging directory behind.
 */
export async function packagedChromium(): Promise<string> {
  const version = packageVersion();
  const target = join(SUPPORT_CACHE_DIR, `chromium-${version}`);
  const binary = join(target, "chromium");
  if (isExecutable(binary)) return binary;
  mkdirSync(SUPPORT_CACHE_DIR, { recursive: true });
  const staging = join(SUPPORT_CACHE_DIR, `.chromium-${version}-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  try {
    // The package extracts the Lambda runtime's NSS libraries only on Amazon Linux; ask for them
    // too, for machines that lack them (see packagedEnv).
    const script = [
      'const { default: c, inflate } = await import("@sparticuz/chromium");',
      "const binary = await c.executablePath();",
      'await inflate(process.cwd() + "/bin/al2023.tar.br");',
      "process.stdout.write(binary);",
    ].join("\n");
    const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, TMPDIR: staging },
      timeout: 120_000,
    });
    if (stdout !== join(staging, "chromium")) {
      throw new Error(`@sparticuz/chromium extracted to ${stdout}, expected ${join(staging, "chromium")}`);
    }
    try {
      renameSync(staging, target);
    } catch (err) {
      // Another test file finished first: its copy is as good as ours.
      if (!isExecutable(binary)) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

/** Whether the dynamic linker resolves every library the binary needs from the system. */
function linksOnThisSystem(binary: string): boolean {
  try {
    return !execFileSync("ldd", [binary], { encoding: "utf8" }).includes("not found");
  } catch {
    return true; // no ldd: let the launch itself say what is missing
  }
}

/**
 * The browser's environment: a fontconfig file pointing at the fonts the package ships (text
 * renders on a machine without fonts), and the packaged NSS libraries when the system has none.
 */
function packagedEnv(binary: string): Record<string, string> {
  const dir = dirname(binary);
  const conf = join(dir, "fonts.conf");
  const xml = `<?xml version="1.0"?>\n<fontconfig><dir>${join(dir, "fonts")}</dir><cachedir>${join(dir, "fontcache")}</cachedir></fontconfig>\n`;
  // Written again whenever the cache is reached by another path (a moved or symlinked
  // node_modules): fontconfig with a stale directory makes Chromium abort. A concurrent writer
  // writes the same bytes.
  if (!existsSync(conf) || readFileSync(conf, "utf8") !== xml) writeFileSync(conf, xml);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.FONTCONFIG_FILE = conf;
  if (!linksOnThisSystem(binary)) {
    env.LD_LIBRARY_PATH = [join(dir, "al2023", "lib"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  }
  return env;
}

/** The first executable system candidate, else the npm-shipped Chromium (extracted on first use). */
export async function findChromium(opts: { candidates?: readonly string[] } = {}): Promise<ChromiumChoice> {
  const candidates = opts.candidates ?? systemCandidates();
  const system = candidates.find(isExecutable);
  if (system) return { executablePath: system, args: COMMON_ARGS, origin: "system", env: undefined };
  const binary = await packagedChromium();
  return {
    executablePath: binary,
    args: [...COMMON_ARGS, ...PACKAGED_ARGS],
    origin: "npm",
    env: packagedEnv(binary),
  };
}
