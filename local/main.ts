/**
 * `npm start`: the whole service on this machine (README.md § The two commands). Options:
 * `--scenario FILE` (default local/scenarios/demo.json), `--port N` (default 3000; 0 picks a free
 * port), `--data-dir DIR` (persist DynamoDB and keep the keys), `--state-dir DIR` (default .local),
 * `--bundled` (serve the deployable bundles instead of the TypeScript sources).
 * Ctrl-C or SIGTERM stops it cleanly.
 */
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import {
  DEFAULT_LOCAL_DIR,
  DEFAULT_SCENARIO,
  type LocalStack,
  lambdaEnvFileFor,
  startLocalStack,
} from "./stack/index.ts";
import { removeFileIfOwned } from "./stack/stack-file.ts";

function parsePort(value: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError("must be a port number (0-65535; 0 picks a free one)");
  }
  return Number(value);
}

// The SDK's notice about future Node versions is noise on a developer's terminal.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const program = new Command("npm start --")
  .description(
    "Run the runtime-logs local stack: API, console, kube API and OpenShell simulators and DynamoDB in one process.",
  )
  .option("--scenario <file>", "scenario file", DEFAULT_SCENARIO)
  .option("--port <n>", "API port on 127.0.0.1 (0: any free port)", parsePort, 3000)
  .option("--data-dir <dir>", "persist DynamoDB here and keep the keys across restarts")
  .option("--state-dir <dir>", "where kubeconfigs/, openshell/, keys/ and stack.json go", DEFAULT_LOCAL_DIR)
  .option("--bundled", "serve the deployable esbuild bundles instead of the TypeScript sources")
  .showHelpAfterError()
  .parse();

const options = program.opts<{
  scenario: string;
  port: number;
  dataDir?: string;
  stateDir: string;
  bundled?: boolean;
}>();
const stateDir = resolve(options.stateDir);
const stackFile = join(stateDir, "stack.json");

let stack: LocalStack | undefined;
let stopping = false;

async function stop(signal: string): Promise<void> {
  if (stopping) {
    // A second signal: leave at once (the exit hook still removes the stack file).
    process.exit(130);
  }
  stopping = true;
  console.log(`\n${signal}: stopping the local stack…`);
  // Tools must not find a stack that is going away: the stack file goes first.
  removeFileIfOwned(stackFile);
  removeFileIfOwned(lambdaEnvFileFor(stackFile));
  try {
    await stack?.close();
  } finally {
    process.exit(0);
  }
}

process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
// Whatever happens, never leave a stack file that names a dead process.
process.on("exit", () => {
  removeFileIfOwned(stackFile);
  removeFileIfOwned(lambdaEnvFileFor(stackFile));
});

try {
  stack = await startLocalStack({
    scenario: options.scenario,
    port: options.port,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    workDir: stateDir,
    stackFile,
    warm: true,
    bundled: options.bundled === true,
  });
  if (stopping) await stack.close();
} catch (err) {
  console.error(`local stack failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
