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
