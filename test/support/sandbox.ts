/**
 * Sandbox lines the e2e suites share, in the scenario's `[time, level, target, message, fields?,
 * source?]` form (docs/scenario.md § openshell): the supervisor's denial of an SSH connection.
 */
export const PROXY_TARGET = "openshell_sandbox::proxy";

/** The decision fields of the denied connection, as the supervisor logs them. */
export const DENIED_SSH_FIELDS = {
  action: "deny",
  dst_host: "203.0.113.9",
  dst_port: "22",
  binary: "/usr/bin/ssh",
  policy: "support-egress",
  reason: "port 22 not allowed by policy",
};

export const DENIED_SSH_MESSAGE = "CONNECT 203.0.113.9:22";

/** The denied connection as a scenario line at `time`. */
export const deniedSshLine = (time: string) =>
  [time, "WARN", PROXY_TARGET, DENIED_SSH_MESSAGE, { ...DENIED_SSH_FIELDS }] as const;

/** A denied upload the follow tests append at `time`: an exfiltration attempt to a paste site. */
export const deniedPasteLine = (time = "now") =>
  [
    time,
    "WARN",
    PROXY_TARGET,
    "CONNECT paste.example.net:443",
    { action: "deny", dst_host: "paste.example.net" },
  ] as const;

/** A deployment's sandbox reference (docs/scenario.md § registry): sandbox `name` on `gateway`. */
export const sandboxRef = (gateway: string, name: string) => ({
  driver: "openshell" as const,
  endpointRef: gateway,
  sandboxName: name,
  workspace: "default",
});

export interface SandboxSpec {
  /** The deployment that runs in the sandbox; with `agent` when several Agents have that ID. */
  deployment: string;
  agent?: string;
  /** The OpenShell gateway's ID (default `os1`). */
  gateway?: string;
  /** The sandbox's name and instance ID on the gateway. */
  name: string;
  id: string;
  /** Its lines, in the scenario's form. */
  lines: readonly (readonly unknown[])[];
}

interface ScenarioGateway {
  id: string;
  sandboxes: { name: string; id: string; lines: unknown[] }[];
  [field: string]: unknown;
}

type WithRegistry = { registry: { agents: { agentId?: unknown; deployments?: unknown }[] } };

/**
 * Places a sandbox in `scenario`, in place: the deployment's `sandbox` reference, and the sandbox
 * (with its lines) in the `openshell` block on its gateway, which is added when it is not there yet.
 * Returns the same scenario, typed with its `openshell` block.
 */
export function withSandbox<S extends WithRegistry>(
  scenario: S,
  spec: SandboxSpec,
): S & { openshell: ScenarioGateway[] } {
  const gateway = spec.gateway ?? "os1";
  const matches = scenario.registry.agents
    .filter((a) => spec.agent === undefined || a.agentId === spec.agent)
    .flatMap((a) => (a.deployments ?? []) as Record<string, unknown>[])
    .filter((d) => d.deploymentId === spec.deployment);
  if (matches.length !== 1)
    throw new Error(`withSandbox: ${matches.length} deployments ${spec.deployment} in the scenario`);
  matches[0]!.sandbox = sandboxRef(gateway, spec.name);
  const s = scenario as S & { openshell?: ScenarioGateway[] };
  s.openshell ??= [];
  let block = s.openshell.find((g) => g.id === gateway);
  if (!block) {
    block = { id: gateway, sandboxes: [] };
    s.openshell.push(block);
  }
  block.sandboxes.push({ name: spec.name, id: spec.id, lines: spec.lines.map((l) => [...l]) });
  return s as S & { openshell: ScenarioGateway[] };
}
