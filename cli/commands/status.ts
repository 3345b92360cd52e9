/** `occ agent deployments | runtime | restarts`: reads of the status route. */
import { agentSegments, type Ctx, deploymentSegments } from "../context.ts";
import { EXIT, type ExitCode, TransportError } from "../errors.ts";
import { escapeJsonText } from "../escape.ts";
import { restartLog, restartsTable } from "../format/restarts.ts";
import { formatDeployments, formatRuntime } from "../format/runtime.ts";
import { isObject, type JsonAnswer } from "../http.ts";
import { compactJson, rawMember } from "../raw-json.ts";
import { runtimeOf as described, selectDeployment } from "../select.ts";

/** Prints a value as one compact JSON line, from the raw response text when it is at hand. */
function printJson(ctx: Ctx, value: unknown, raw: string | undefined): void {
  let text: string | undefined;
  try {
    text = raw === undefined ? undefined : compactJson(raw);
  } catch {
    text = undefined;
  }
  ctx.out(escapeJsonText(text ?? JSON.stringify(value)));
}

export async function deploymentsCommand(ctx: Ctx, agent: string): Promise<ExitCode> {
  const answer = await ctx.client.getJson([...agentSegments(ctx, agent), "deployments"], {}, ctx.signal);
  if (ctx.output === "json") printJson(ctx, answer.data, answer.rawData);
  else for (const line of formatDeployments(answer.data)) ctx.out(line);
  return EXIT.ok;
}

async function runtimeOf(ctx: Ctx, agent: string, deployment: string | undefined): Promise<JsonAnswer> {
  const selection = await selectDeployment(ctx, agent, deployment);
  // A description fetched while checking newer deployments is reused; errors of this read are the command's.
  const answer =
    (selection.runtimes.has(selection.deploymentId)
      ? await described(ctx, agent, selection, selection.deploymentId)
      : null) ??
    (await ctx.client.getJson(
      [...deploymentSegments(ctx, agent, selection.deploymentId), "runtime"],
      {},
      ctx.signal,
    ));
  if (!isObject(answer.data))
    throw new TransportError("the server sent a runtime description that is not an object");
  return answer;
}

export async function runtimeCommand(
  ctx: Ctx,
  agent: string,
  deployment: string | undefined,
): Promise<ExitCode> {
  const answer = await runtimeOf(ctx, agent, deployment);
  if (ctx.output === "json") printJson(ctx, answer.data, answer.rawData);
  else for (const line of formatRuntime(answer.data)) ctx.out(line);
  return EXIT.ok;
}

export async function restartsCommand(
  ctx: Ctx,
  agent: string,
  deployment: string | undefined,
): Promise<ExitCode> {
  const answer = await runtimeOf(ctx, agent, deployment);
  const data = answer.data as Record<string, unknown>;
  const records = Array.isArray(data.restarts) ? data.restarts.filter(isObject) : [];
  if (ctx.output === "json") {
    let raw: string | undefined;
    try {
      raw = answer.rawData === undefined ? undefined : rawMember(answer.rawData, "restarts");
    } catch {
      raw = undefined;
    }
    printJson(ctx, Array.isArray(data.restarts) ? data.restarts : [], raw);
  } else if (ctx.output === "log") {
    const { lines, withoutPhases } = restartLog(records);
    for (const line of lines) ctx.out(line);
    if (withoutPhases > 0)
      ctx.notice(
        `${withoutPhases} of ${records.length} restart record${records.length === 1 ? "" : "s"} carry no restart lines from the agent (see the table view)`,
      );
  } else if (records.length === 0) {
    ctx.notice("no restarts recorded for this deployment");
  } else {
    for (const line of restartsTable(records)) ctx.out(line);
  }
  return EXIT.ok;
}
