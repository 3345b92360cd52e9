/** Entry point of `occ`: wires the CLI to the real process (stdio, env, fetch, signals, files). */
import { writeFile } from "node:fs/promises";
import { defaultCredentials } from "./auth.ts";
import type { Deps } from "./context.ts";
import { run } from "./program.ts";

function write(stream: NodeJS.WriteStream): (text: string) => void {
  return (text) => {
    stream.write(text);
  };
}

// A closed pipe (`occ … | head`) is not an error: stop quietly.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

const deps: Deps = {
  stdout: write(process.stdout),
  stderr: write(process.stderr),
  env: process.env,
  fetch: (input, init) => fetch(input, init),
  cwd: process.cwd(),
  now: () => Date.now(),
  random: () => Math.random(),
  pollIntervalMs: 2000,
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  credentials: defaultCredentials(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    }),
  onSignal: (handler) => {
    const onInt = () => handler("SIGINT");
    const onTerm = () => handler("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    return () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    };
  },
  exitNow: (code) => process.exit(code),
  writeFile: (path, bytes, exclusive) =>
    writeFile(path, bytes, { flag: exclusive ? "wx" : "w", mode: 0o600 }),
};

const code = await run(process.argv.slice(2), deps);
// Exit once output is flushed, rather than when idle keep-alive sockets happen to close.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
