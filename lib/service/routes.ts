/**
 * The one route-and-function table (docs/api.md § Routes, docs/surfaces.md § CDK stack): every HTTP
 * route with the function behind it, and every Lambda function with its entry, timeout and memory.
 * The CDK stack (routes, integrations, functions), the local stack (routing, handlers, Lambda
 * context), the OpenAPI generator and the synth tests all read it; nothing restates a path, a
 * function name or a timeout. Pure data: no I/O, no CDK.
 */

/** Every Lambda function of the stack. */
export type FunctionName = "status" | "logs" | "download" | "health" | "health-probe" | "audit-archive";

export interface FunctionSpec {
  name: FunctionName;
  /** The handler module, relative to the repository root (exports `handler`). */
  entry: string;
  description: string;
  memoryMiB: number;
  timeoutSeconds: number;
  /**
   * Reserved concurrency (context `reservedConcurrency` overrides it per function): `logs` cannot
   * starve `status`, the probe or the account, and it caps the load on clusters (docs/surfaces.md
   * § Throttles and concurrency).
   */
  reservedConcurrency: number;
  /** Whether the local stack can run it (the archive consumer needs a change stream it has not). */
  local: boolean;
  /**
   * What its environment carries (infra/environment.ts): `service` the tables, key secrets and
   * limits; `switch` the feature switch alone; `archive` the archive bucket alone. A function learns
   * no table or secret name it does not use.
   */
  environment: FunctionEnvironmentKind;
  /** Placed in the operator's subnets when the stack has a VPC (to reach private clusters and gateways). */
  inVpc: boolean;
}

export type FunctionEnvironmentKind = "service" | "switch" | "archive";

/**
 * HTTP functions get 12 s (the 10 s request deadline plus slack, under the HTTP API's 30 s); logs and
 * download process a 1 MiB page, so they get more memory (and with it more CPU).
 */
export const FUNCTIONS: readonly FunctionSpec[] = [
  {
    name: "status",
    entry: "functions/status.ts",
    description: "Runtime description and deployment list",
    memoryMiB: 512,
    timeoutSeconds: 12,
    reservedConcurrency: 20,
    local: true,
    environment: "service",
    inVpc: true,
  },
  {
    name: "logs",
    entry: "functions/logs.ts",
    description: "Redacted, resumable log pages",
    memoryMiB: 1024,
    timeoutSeconds: 12,
    reservedConcurrency: 100,
    local: true,
    environment: "service",
    inVpc: true,
  },
  {
    name: "download",
    entry: "functions/download.ts",
    description: "Redacted log downloads",
    memoryMiB: 1024,
    timeoutSeconds: 12,
    reservedConcurrency: 10,
    local: true,
    environment: "service",
    inVpc: true,
  },
  // Public `/health`: configuration sanity only, so it holds no secret or table grant, its environment
  // is the feature switch, and its bundle carries neither the Kubernetes client nor gRPC
  // (test/infra/bundles.test.ts).
  {
    name: "health",
    entry: "functions/health.ts",
    description: "Public /health (no secrets, no tables)",
    memoryMiB: 256,
    timeoutSeconds: 12,
    reservedConcurrency: 5,
    local: true,
    environment: "switch",
    inVpc: true,
  },
  {
    name: "health-probe",
    entry: "functions/health-probe.ts",
    description: "Scheduled health probe and restart recorder",
    memoryMiB: 512,
    timeoutSeconds: 60,
    reservedConcurrency: 1,
    local: true,
    environment: "service",
    inVpc: true,
  },
  // Consumes the Audit table's change stream into the Object-Locked archive (docs/audit-archive.md);
  // a batch of 100 small records is 100 PutObject calls. It talks to S3 only, outside the VPC.
  {
    name: "audit-archive",
    entry: "functions/audit-archive.ts",
    description: "Audit change stream to the Object-Locked archive",
    memoryMiB: 256,
    timeoutSeconds: 60,
    reservedConcurrency: 5,
    local: false,
    environment: "archive",
    inVpc: false,
  },
];

/** The functions behind HTTP routes. */
export type HttpFunctionName = "status" | "logs" | "download" | "health";

export type RouteName = "health" | "deployments" | "runtime" | "logs" | "download";

export interface ApiRoute {
  name: RouteName;
  /** API Gateway's route key, e.g. `GET /health` (only GET is routed). */
  routeKey: string;
  path: string;
  function: HttpFunctionName;
  /** `/health` is the only route without the authorizer. */
  public: boolean;
}

const DEPLOYMENTS = "/namespaces/{namespaceId}/agents/{agentId}/deployments";
const RUNTIME = `${DEPLOYMENTS}/{deploymentId}/runtime`;

const route = (name: RouteName, path: string, fn: HttpFunctionName, isPublic = false): ApiRoute => ({
  name,
  routeKey: `GET ${path}`,
  path,
  function: fn,
  public: isPublic,
});

/** The routes of docs/api.md. */
export const API_ROUTES: readonly ApiRoute[] = [
  route("health", "/health", "health", true),
  route("deployments", DEPLOYMENTS, "status"),
  route("runtime", RUNTIME, "status"),
  route("logs", `${RUNTIME}/logs`, "logs"),
  route("download", `${RUNTIME}/logs/download`, "download"),
];

/** Route keys by name, as the functions match `event.routeKey`. */
export const ROUTES = Object.fromEntries(API_ROUTES.map((r) => [r.name, r.routeKey])) as Record<
  RouteName,
  string
>;

/** The function spec of `name`. */
export function functionSpec(name: FunctionName): FunctionSpec {
  const spec = FUNCTIONS.find((f) => f.name === name);
  if (!spec) throw new Error(`No function "${name}".`);
  return spec;
}
