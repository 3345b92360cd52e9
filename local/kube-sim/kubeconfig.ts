/**
 * Kubeconfigs for the simulated clusters: server = the cluster's base URL (plain HTTP, hence
 * `insecure-skip-tls-verify: true`), a bearer-token user, one context, current-context set.
 */

/** YAML double-quoted scalar: JSON string syntax is valid YAML. */
const q = (s: string): string => JSON.stringify(s);

export function kubeconfigYaml(opts: {
  clusterId: string;
  server: string;
  token: string;
  namespace: string;
}): string {
  const user = `${opts.clusterId}-reader`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${q(opts.clusterId)}`,
    "  cluster:",
    `    server: ${q(opts.server)}`,
    "    insecure-skip-tls-verify: true",
    "users:",
    `- name: ${q(user)}`,
    "  user:",
    `    token: ${q(opts.token)}`,
    "contexts:",
    `- name: ${q(opts.clusterId)}`,
    "  context:",
    `    cluster: ${q(opts.clusterId)}`,
    `    user: ${q(user)}`,
    `    namespace: ${q(opts.namespace)}`,
    `current-context: ${q(opts.clusterId)}`,
    "preferences: {}",
    "",
  ].join("\n");
}
