/** The startup banner: where everything is, and commands that work against this very stack. Pure. */
import type { StackExample, Tour } from "./scenario-info.ts";

export interface BannerInput {
  apiUrl: string;
  simUrl: string;
  dynamodbEndpoint: string;
  stackFile: string;
  scenarioFile: string | null;
  dataDir: string | null;
  kubeconfigs: Record<string, string>;
  /** OpenShell gateways the simulator serves, `{gatewayId: "host:port"}`. */
  openshell?: Record<string, string>;
  example: StackExample | null;
  /** Where the served bundles are, when the stack serves bundles rather than sources. */
  bundlesDir?: string | null;
  /** More of the scenario to show (other Agents, restarted containers, a restart to try). */
  tour?: Tour | null;
  startupMs: number;
}

/** Single-quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function renderBanner(b: BannerInput): string {
  const lines = [
    "",
    `runtime-logs local stack ready in ${(b.startupMs / 1000).toFixed(1)} s`,
    "",
    `  API + console   ${b.apiUrl}/`,
    `  kube simulator  ${b.simUrl}`,
    `  DynamoDB        ${b.dynamodbEndpoint} (dynalite, ${b.dataDir ? `data in ${b.dataDir}` : "in memory"})`,
    `  scenario        ${b.scenarioFile ?? "(given in-process)"}`,
    `  stack file      ${b.stackFile}`,
  ];
  for (const [id, path] of Object.entries(b.kubeconfigs)) lines.push(`  kubeconfig      ${id}: ${path}`);
  for (const [id, hostPort] of Object.entries(b.openshell ?? {})) {
    lines.push(`  OpenShell sim   ${id}: ${hostPort} (gRPC; connection document in openshell/${id}.json)`);
  }
  lines.push(
    `  functions       ${b.bundlesDir ? `esbuild bundles as deployed, in ${b.bundlesDir}` : "TypeScript sources (functions/)"}`,
  );
  lines.push("");
  const ex = b.example;
  if (ex) {
    const token = shellQuote(`local:${ex.principal}`);
    const auth = shellQuote(`Authorization: Bearer local:${ex.principal}`);
    const agentBase = `${b.apiUrl}/namespaces/${ex.namespaceId}/agents/${ex.agentId}`;
    lines.push(`Try it (local token: Bearer local:<principal>, here ${ex.principal}):`, "");
    lines.push(`  curl ${b.apiUrl}/health`);
    lines.push(`  curl -H ${auth} ${agentBase}/deployments`);
    if (ex.deploymentId) {
      const runtime = `${agentBase}/deployments/${ex.deploymentId}/runtime`;
      lines.push(`  curl -H ${auth} ${runtime}`);
      lines.push(`  curl -H ${auth} '${runtime}/logs?source=gateway&tailLines=50'`);
      if (b.tour?.sandbox) lines.push(`  curl -H ${auth} '${runtime}/logs?source=sandbox&tailLines=50'`);
    }
    const occ = `npx occ --endpoint ${b.apiUrl} --namespace ${ex.namespaceId} --token ${token}`;
    const tour = b.tour ?? null;
    lines.push("");
    // The deployment the API marks active, named explicitly: the same one curl and the console read.
    const dep = (id: string | null) => (id ? ` --deployment ${id}` : "");
    const exDep = dep(ex.deploymentId);
    lines.push(`  ${occ} agent runtime ${ex.agentId}${exDep}`);
    lines.push(`  ${occ} agent logs ${ex.agentId} --source gateway${exDep}`);
    if (tour?.agents.some((a) => a.agentId === ex.agentId)) {
      lines.push(`  ${occ} agent logs ${ex.agentId} --source agent${exDep}`);
      lines.push(`  ${occ} agent restarts ${ex.agentId}${exDep} -o log`);
    }
    for (const other of tour?.agents ?? []) {
      if (other.agentId !== ex.agentId)
        lines.push(`  ${occ} agent runtime ${other.agentId}${dep(other.deploymentId)}`);
    }
    for (const c of tour?.restarted ?? []) {
      if (c.agentId === ex.agentId && c.role === "gateway") continue; // its previous is the OOM story above
      lines.push(`  ${occ} agent logs ${c.agentId} --source ${c.role}${dep(c.deploymentId)} --previous`);
    }
    if (tour?.sandbox) lines.push(`  ${occ} agent logs ${ex.agentId} --source sandbox${exDep}`);
    lines.push(`  ${occ} agent logs ${ex.agentId} --source gateway${exDep} --follow`);
    lines.push("");
    if (tour?.restartable) {
      const r = tour.restartable;
      const body = JSON.stringify({
        cluster: r.cluster,
        namespace: r.namespace,
        pod: r.pod,
        container: r.container,
        exitCode: 137,
        reason: "OOMKilled",
      });
      lines.push(
        "While following, restart that Gateway: the follower reports the gap and goes on with the new",
      );
      lines.push(`instance; \`agent restarts ${ex.agentId}\` then names the cause.`);
      lines.push(
        `  curl -X POST -H 'content-type: application/json' ${b.simUrl}/__sim/restart -d ${shellQuote(body)}`,
      );
      lines.push("");
    }
    if (tour?.sandbox) {
      const body = JSON.stringify({
        gateway: tour.sandbox.gateway,
        sandbox: tour.sandbox.sandboxName,
        lines: [
          [
            "now",
            "WARN",
            "openshell_sandbox::proxy",
            "CONNECT pastebin.com:443",
            { action: "deny", dst_host: "pastebin.com", dst_port: "443", policy: "default" },
          ],
        ],
      });
      lines.push(`Follow the sandbox (\`--source sandbox --follow\`) and append a denied connection to it:`);
      lines.push(
        `  curl -X POST -H 'content-type: application/json' ${b.simUrl}/__sim/sandbox/append -d ${shellQuote(body)}`,
      );
      lines.push("");
    }
  } else {
    lines.push("The scenario grants no principal an Agent: every read will be 403.", "");
  }
  lines.push("Ctrl-C stops the stack.", "");
  return lines.join("\n");
}
