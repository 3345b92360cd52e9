/**
 * `npm run invoke -- <function> <event.json> [--scenario FILE]`: runs a handler locally with a
 * sample event (events/), exactly as the Lambda console would, against the running local stack
 * (.local/stack.json) or a temporary one. The result goes to stdout as JSON; the function's own
 * logs go to stderr, like the console's "Function Logs".
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { FUNCTION_NAMES, type FunctionName, isFunctionName } from "./stack/handlers.ts";
import { invokeAgainstLocalStack } from "./stack/invoke.ts";

// The SDK's notice about future Node versions is noise on a developer's terminal.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const program = new Command("npm run invoke --")
  .description("Invoke a Lambda handler locally with an event file, against the local stack.")
  .argument("<function>", `one of ${FUNCTION_NAMES.join(", ")}`)
  .argument("<event>", "event JSON file (see events/)")
  .option("--scenario <file>", "scenario of the temporary stack when none is running")
  .option("--stack-file <file>", "stack file of the running stack (default .local/stack.json)")
  .showHelpAfterError()
  .parse();

const [name, eventPath] = program.processedArgs as [string, string];
const options = program.opts<{ scenario?: string; stackFile?: string }>();

if (!isFunctionName(name))
  program.error(`unknown function "${name}": use one of ${FUNCTION_NAMES.join(", ")}`);
const fn = name as FunctionName;

let event: unknown;
try {
  event = JSON.parse(readFileSync(resolve(eventPath), "utf8"));
} catch (err) {
  program.error(`cannot read event ${eventPath}: ${(err as Error).message}`);
}

// Everything the function (and the SDK) prints goes to stderr; stdout carries only the result.
const stdoutWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

try {
  const outcome = await invokeAgainstLocalStack({
    fn,
    event,
    ...(options.scenario ? { scenario: options.scenario } : {}),
    ...(options.stackFile ? { stackFile: resolve(options.stackFile) } : {}),
  });
  process.stderr.write(`invoked ${fn} against the ${outcome.stack} local stack at ${outcome.apiUrl}\n`);
  stdoutWrite(`${JSON.stringify(outcome.result, null, 2)}\n`);
  process.exit(0);
} catch (err) {
  const error = err instanceof Error ? err : new Error(String(err));
  stdoutWrite(`${JSON.stringify({ errorType: error.name, errorMessage: error.message }, null, 2)}\n`);
  process.exit(1);
}
