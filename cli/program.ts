/**
 * The `occ` command line (surfaces.md § occ CLI), parsed with commander. Every value is validated
 * before any request; a usage error exits 2.
 */

import { Command, CommanderError, Option } from "commander";
import { MIN_LEVELS, SOURCE_IDS } from "../lib/api/values.ts";
import {
  type MinLevel,
  parseContainer,
  parseId,
  parsePod,
  parseSince,
  parseSinceTime,
  parseTail,
  type Source,
} from "./args.ts";
import type { AuthMode } from "./auth.ts";
import { type LogsOptions, logsCommand } from "./commands/logs.ts";
import { deploymentsCommand, restartsCommand, runtimeCommand } from "./commands/status.ts";
import { type Ctx, type Deps, type GlobalOptions, makeContext, type Output } from "./context.ts";
import { ApiError, EXIT, type ExitCode, Interrupted, TransportError, UsageError } from "./errors.ts";
import { escapeText } from "./escape.ts";

const GLOBAL_HELP = `
Environment:
  OCC_ENDPOINT   API base URL (instead of --endpoint)
  OCC_NAMESPACE  namespace ID (instead of --namespace)
  OCC_TOKEN      bearer token (instead of --token); sent as "Authorization: Bearer <token>"
  OCC_AUTH       token or iam (instead of --auth); iam signs requests with AWS SigV4 using the
                 AWS default credential chain (AWS_PROFILE, AWS_ACCESS_KEY_ID, SSO, roles…)
  NO_COLOR       no colours; FORCE_COLOR=1 colours even when not on a terminal

Exit codes:
  0  success
  1  request failed (HTTP status, code, message, Retry-After and request ID on stderr)
  2  usage error (nothing was sent)
  3  output incomplete (logs, text mode without --follow: a gap, withheld lines, or no running Pod)`;

type Runner = (ctx: Ctx) => Promise<ExitCode>;

interface Hooks {
  /** Runs a command with a context built from the global options; records its exit code. */
  execute: (cmd: Command, allowed: readonly Output[], runner: Runner) => Promise<void>;
}

function agentArg(value: string): string {
  return parseId("AGENT", value);
}

/** `--deployment`, the same on every command that reads one deployment. */
const DEPLOYMENT_OPTION = [
  "--deployment <id>",
  "deployment ID (default: the active one, or a newer one that already has Pods)",
] as const;

function deploymentOpt(value: string | undefined): string | undefined {
  return value === undefined ? undefined : parseId("--deployment", value);
}

export function buildProgram(deps: Deps, hooks: Hooks): Command {
  const program = new Command("occ")
    .description("Read the runtime status and logs of your agents, safely.")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.stdout(s),
      writeErr: (s) => deps.stderr(s),
      outputError: (s, write) =>
        write(
          `${s
            .replace(/^error: /, "")
            .trimEnd()
            .split("\n")
            .map((l, i) => (i === 0 ? `occ: ${escapeText(l)}` : escapeText(l)))
            .join("\n")}\n`,
        ),
    })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError("(add --help for usage)")
    .option("--endpoint <url>", "API base URL (env OCC_ENDPOINT)")
    .option("--namespace <id>", "namespace ID (env OCC_NAMESPACE)")
    .option("--token <token>", "bearer token (env OCC_TOKEN)")
    .addOption(
      new Option("--auth <mode>", "token (bearer) or iam (AWS SigV4) (env OCC_AUTH)").choices([
        "token",
        "iam",
      ]),
    )
    .option("--region <region>", "AWS region for --auth iam (default: the endpoint's)")
    .addOption(
      new Option("-o, --output <format>", "output format: text or json (restarts also: log)").choices([
        "text",
        "json",
        "log",
      ]),
    )
    .addHelpText("after", GLOBAL_HELP);

  const agent = program
    .command("agent")
    .description("inspect an agent's deployments, runtime, logs and restarts")
    .addHelpText("after", GLOBAL_HELP);

  agent
    .command("deployments")
    .description("list deployments, newest first, the active one marked")
    .argument("<AGENT>", "agent ID")
    .addHelpText(
      "after",
      `
Examples:
  occ agent deployments support
  occ agent deployments support -o json
${GLOBAL_HELP}`,
    )
    .action(async (agentId: string, _opts: unknown, cmd: Command) => {
      const id = agentArg(agentId);
      await hooks.execute(cmd, ["text", "json"], (ctx) => deploymentsCommand(ctx, id));
    });

  agent
    .command("runtime")
    .description("Pods, containers, restarts, Events and log sources of a deployment")
    .argument("<AGENT>", "agent ID")
    .option(...DEPLOYMENT_OPTION)
    .addHelpText(
      "after",
      `
Examples:
  occ agent runtime support
  occ agent runtime support --deployment d3 -o json
${GLOBAL_HELP}`,
    )
    .action(async (agentId: string, opts: { deployment?: string }, cmd: Command) => {
      const id = agentArg(agentId);
      const deployment = deploymentOpt(opts.deployment);
      await hooks.execute(cmd, ["text", "json"], (ctx) => runtimeCommand(ctx, id, deployment));
    });

  agent
    .command("logs")
    .description("read a deployment's logs: one page, a follow, or a download")
    .argument("<AGENT>", "agent ID")
    .addOption(
      new Option("--source <source>", "log source (all: every source and Pod, merged by time)")
        .choices([...SOURCE_IDS, "all"])
        .makeOptionMandatory(),
    )
    .option(...DEPLOYMENT_OPTION)
    .option("--pod <name>", "Pod name (default: the source's first Pod)")
    .option("-c, --container <name>", "container of the Pod, init or main (default: the source's main one)")
    .option("--previous", "the previous instance of the container (after a restart)")
    .option("--tail <n>", "lines to read, 1-1000 (server default 200)")
    .option("--since <duration>", "only lines newer than this: 30s, 10m, 2h, 1h30m (1s-24h)")
    .option("--since-time <time>", "only lines at or after this RFC 3339 time, e.g. 2026-11-29T12:00:00Z")
    .addOption(new Option("--level <level>", "minimum level of lines to show").choices(MIN_LEVELS))
    .option("-f, --follow", "keep polling for new lines every 2s until Ctrl-C")
    .option("--timestamps [bool]", "show each line's time (--timestamps=false hides it)")
    .option("--prefix", "start each line with its source/Pod/container (default with --source all)")
    .option("--no-prefix", "never start lines with their source/Pod/container, even with --source all")
    .option(
      "--download [file]",
      "save the newest 1000 lines as text to FILE, or under the server's file name in the current directory; prints the saved path",
    )
    .addHelpText(
      "after",
      `
Text output is one line per record: time (UTC, milliseconds), level, [subsystem], message, k=v
fields; pseudonyms are shortened to hmac:<first 8 hex digits>…. Gaps, withheld lines and "no
running Pod" are notices on stderr. -o json prints NDJSON, one record per line as the server sent
it (with --source all, each names its "stream"). Control, bidi and zero-width characters are
escaped. Colours only on a terminal (NO_COLOR, FORCE_COLOR).

Examples:
  occ agent logs support --source gateway --tail 50
  occ agent logs support --source agent --since 10m --level warn
  occ agent logs support --source gateway --previous
  occ agent logs support --source gateway --follow
  occ agent logs support --source all --follow
  occ agent logs support --source gateway -c workspace-init
  occ agent logs support --source sandbox --level warn
  occ agent logs support --source agent -o json | jq .message
  occ agent logs support --source gateway --download
  occ agent logs support --source gateway --download=gateway.log
${GLOBAL_HELP}`,
    )
    .action(async (agentId: string, raw: RawLogOptions, cmd: Command) => {
      const id = agentArg(agentId);
      const options = logsOptions(raw, deps.now());
      await hooks.execute(cmd, ["text", "json"], (ctx) => logsCommand(ctx, id, options));
    });

  agent
    .command("restarts")
    .description("restart records: who or what restarted a container, and why")
    .argument("<AGENT>", "agent ID")
    .option(...DEPLOYMENT_OPTION)
    .addHelpText(
      "after",
      `
-o log prints the agent's three-phase restart lines (restart-dispatch, restart-signal-received,
restart-completed), one per phase seen, with pseudonyms in place of sender and session IDs
(shortened to hmac:<first 8 hex digits>… as in log lines; -o json keeps them whole).

Examples:
  occ agent restarts support
  occ agent restarts support -o log
  occ agent restarts support --deployment d3 -o json
${GLOBAL_HELP}`,
    )
    .action(async (agentId: string, opts: { deployment?: string }, cmd: Command) => {
      const id = agentArg(agentId);
      const deployment = deploymentOpt(opts.deployment);
      await hooks.execute(cmd, ["text", "json", "log"], (ctx) => restartsCommand(ctx, id, deployment));
    });

  return program;
}

interface RawLogOptions {
  source: Source | "all";
  deployment?: string;
  pod?: string;
  container?: string;
  timestamps?: string | true;
  prefix?: boolean;
  previous?: boolean;
  tail?: string;
  since?: string;
  sinceTime?: string;
  level?: MinLevel;
  follow?: boolean;
  download?: string | true;
}

/** Checks the logs flags together; throws UsageError before anything is sent. */
export function logsOptions(raw: RawLogOptions, now: number): LogsOptions {
  const previous = raw.previous === true;
  const follow = raw.follow === true;
  if (raw.since !== undefined && raw.sinceTime !== undefined)
    throw new UsageError("--since and --since-time cannot be used together");
  if (previous && follow)
    throw new UsageError("--previous cannot be followed: the previous instance has ended");
  if (raw.download !== undefined && follow)
    throw new UsageError("--download and --follow cannot be used together");
  if (raw.download !== undefined && raw.tail !== undefined)
    throw new UsageError("--download always saves the newest 1000 lines: drop --tail");
  if (raw.source === "sandbox" && (raw.pod !== undefined || previous || raw.container !== undefined))
    throw new UsageError("--pod, -c and --previous do not apply to --source sandbox");
  if (raw.source === "all" && (raw.pod !== undefined || previous || raw.container !== undefined))
    throw new UsageError("--pod, -c and --previous name one stream: use them with one --source");
  if (raw.source === "all" && raw.download !== undefined)
    throw new UsageError("--download saves one stream: use it with one --source");
  if (raw.download === "") throw new UsageError("--download FILE must not be empty");
  let timestamps = true;
  if (raw.timestamps !== undefined && raw.timestamps !== true) {
    if (raw.timestamps !== "true" && raw.timestamps !== "false")
      throw new UsageError("--timestamps takes true or false (--timestamps=false hides times)");
    timestamps = raw.timestamps === "true";
  }
  const o: LogsOptions = {
    source: raw.source,
    previous,
    follow,
    timestamps,
  };
  if (raw.prefix !== undefined) o.prefix = raw.prefix;
  if (raw.container !== undefined) o.container = parseContainer(raw.container);
  const deployment = deploymentOpt(raw.deployment);
  if (deployment !== undefined) o.deployment = deployment;
  if (raw.pod !== undefined) o.pod = parsePod(raw.pod);
  if (raw.tail !== undefined) o.tail = parseTail(raw.tail);
  if (raw.since !== undefined) o.sinceSeconds = parseSince(raw.since);
  if (raw.sinceTime !== undefined) o.sinceTime = parseSinceTime(raw.sinceTime, now);
  if (raw.level !== undefined) o.level = raw.level;
  if (raw.download !== undefined) o.download = raw.download;
  return o;
}

/** What each route needs (docs/: authorization), for the hint after a 403. */
export function neededPermissions(route: string | undefined): string | undefined {
  if (route === undefined) return undefined;
  if (/\/runtime\/logs(\/download)?$/.test(route)) return "read_logs and read";
  if (/\/runtime$/.test(route)) return "read and operate";
  if (/\/deployments$/.test(route)) return "read";
  return undefined;
}

/**
 * Reports a failed request: status, code, message, then Retry-After (once), a hint for 401/403,
 * and the request ID.
 */
export function describeApiError(e: ApiError, auth: AuthMode = "token"): string[] {
  const { status, code, message, retryAfterSeconds, requestId, details } = e.info;
  let head = `HTTP ${status}`;
  head += code === undefined ? "" : ` ${code}`;
  head += `: ${message ?? "the server sent no error message"}`;
  const lines = [head];
  for (const d of details) lines.push(`  ${d.path}: ${d.code}`);
  if (retryAfterSeconds !== undefined) lines.push(`Retry-After: ${retryAfterSeconds}s`);
  if (status === 401)
    lines.push(
      auth === "iam"
        ? "hint: the request was not signed with usable AWS credentials; check AWS_PROFILE or the credential chain"
        : "hint: pass a token with --token or set OCC_TOKEN (or use --auth iam for an IAM-authorized API)",
    );
  if (status === 403 && code === undefined && auth === "iam")
    lines.push(
      "hint: API Gateway refused the signature or the IAM policy denies execute-api:Invoke; check the credentials, --region and the endpoint",
    );
  else if (status === 403 && code === undefined && auth === "token")
    lines.push(
      "hint: the gateway refused the request before the service saw it; is this API IAM-authorized (--auth iam)?",
    );
  else if (status === 403) {
    const needs = neededPermissions(e.info.route);
    if (needs !== undefined) lines.push(`hint: this needs the ${needs} permissions on the agent`);
  }
  if (requestId !== undefined) lines.push(`Request ID: ${requestId}`);
  return lines.map(escapeText);
}

/** Parses and runs one command line; returns the exit code. Never throws. */
export async function run(argv: readonly string[], deps: Deps): Promise<number> {
  const controller = new AbortController();
  let exitCode: number = EXIT.ok;
  let signals = 0;
  const uninstall = deps.onSignal((sig) => {
    signals++;
    if (signals > 1) deps.exitNow(sig === "SIGTERM" ? 143 : 130);
    else controller.abort();
  });
  let authMode: AuthMode = "token";
  const program = buildProgram(deps, {
    execute: async (cmd, allowed, runner) => {
      const ctx = makeContext(deps, cmd.optsWithGlobals<GlobalOptions>(), allowed, controller.signal);
      authMode = ctx.auth;
      exitCode = await runner(ctx);
    },
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (e) {
    return reportFailure(deps, e, authMode);
  } finally {
    uninstall();
  }
}

function reportFailure(deps: Deps, e: unknown, auth: AuthMode): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (e instanceof UsageError) {
    deps.stderr(`occ: ${escapeText(e.message)}\n(add --help for usage)\n`);
    return EXIT.usage;
  }
  if (e instanceof ApiError) {
    deps.stderr(`${describeApiError(e, auth).join("\n")}\n`);
    return EXIT.requestFailed;
  }
  if (e instanceof TransportError) {
    deps.stderr(`occ: ${escapeText(e.message)}\n`);
    return EXIT.requestFailed;
  }
  if (e instanceof Interrupted) {
    deps.stderr("occ: interrupted\n");
    return 130;
  }
  deps.stderr(`occ: unexpected error: ${escapeText(e instanceof Error ? e.message : String(e))}\n`);
  return EXIT.requestFailed;
}
