/**
 * The simulators' admin API (docs/admin-api.md) over HTTP, as an operator's script drives it: one
 * typed call per route, JSON bodies, `content-type: application/json`. The named calls expect 200
 * and throw with the status and body otherwise; `post` answers whatever the simulator says, for the
 * tests of the guard and the refusals.
 */
import type {
  AddEventInput,
  AppendInput,
  FaultInput,
  ReplacePodInput,
  RestartInput,
} from "../../local/kube-sim/admin-input.ts";
import type {
  AppendInput as SandboxAppendInput,
  FaultInput as SandboxFaultInput,
  ReplaceInput as SandboxReplaceInput,
} from "../../local/openshell-sim/index.ts";

export interface AdminReply {
  status: number;
  json: Record<string, unknown>;
}

/** The admin client of the simulator behind `target.simUrl` (a local stack's, or `{ simUrl }`). */
export function simAdmin(target: { readonly simUrl: string }) {
  /** `POST /__sim/{route}` with `body` as JSON; `headers` are added to (or replace) the JSON ones. */
  const post = async (
    route: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<AdminReply> => {
    const res = await fetch(`${target.simUrl}/__sim/${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = { text };
    }
    return { status: res.status, json };
  };
  const ok = async (route: string, body: unknown): Promise<Record<string, unknown>> => {
    const r = await post(route, body);
    if (r.status !== 200)
      throw new Error(`POST /__sim/${route} answered ${r.status}: ${JSON.stringify(r.json)}`);
    return r.json;
  };
  return {
    post,
    /** Replaces the whole scenario (the local stack reloads its registry, kubeconfigs and limits). */
    scenario: (scenario: object) => ok("scenario", scenario),
    append: (input: AppendInput) => ok("append", input),
    restart: (input: RestartInput) => ok("restart", input),
    replacePod: (input: ReplacePodInput) => ok("replace-pod", input),
    event: (input: AddEventInput) => ok("event", input),
    clock: (input: { now: string } | { advanceMs: number }) => ok("clock", input),
    fault: (input: FaultInput) => ok("fault", input),
    sandbox: {
      append: (input: SandboxAppendInput) => ok("sandbox/append", input),
      replace: (input: SandboxReplaceInput) => ok("sandbox/replace", input),
      fault: (input: SandboxFaultInput) => ok("sandbox/fault", input),
    },
  };
}

export type SimAdmin = ReturnType<typeof simAdmin>;
