/**
 * The functions' environment on the local stack: the same variables the CDK stack sets
 * (lib/config.ts `ENV`), pointed at the embedded dynalite and the local key files, with the
 * scenario's limiter overrides, plus fake AWS credentials so the SDK never looks for real ones.
 */
import { ENV } from "../../lib/config.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/state/dynamo.ts";
import type { TableNames } from "../../lib/state/tables.ts";
import type { KeyFiles } from "./keys.ts";

export interface ScenarioLimits {
  burst?: number | undefined;
  ratePerSecond?: number | undefined;
  downloadCost?: number | undefined;
  principalInFlight?: number | undefined;
  agentInFlight?: number | undefined;
}

export interface LocalEnvInput {
  dynamodbEndpoint: string;
  tables: TableNames;
  keys: KeyFiles;
  limits?: ScenarioLimits | undefined;
}

/** A number as the config parser reads it (plain decimal, never exponent notation). */
function decimal(n: number): string {
  return Number.isInteger(n) ? n.toFixed(0) : String(n);
}

export function buildLambdaEnvironment(input: LocalEnvInput): Record<string, string> {
  const env: Record<string, string> = {
    [ENV.enabled]: "true",
    [ENV.registryTable]: input.tables.registry,
    [ENV.stateTable]: input.tables.state,
    [ENV.auditTable]: input.tables.audit,
    [ENV.cursorKeyFile]: input.keys.cursorKeyFile,
    [ENV.identityKeyFile]: input.keys.identityKeyFile,
    [ENV.allowInsecureClusters]: "true",
    [ENV.dynamodbEndpoint]: input.dynamodbEndpoint,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_EC2_METADATA_DISABLED: "true",
    POWERTOOLS_SERVICE_NAME: "runtime-logs",
  };
  const limits = input.limits ?? {};
  const map: [keyof ScenarioLimits, string][] = [
    ["burst", ENV.limitBurst],
    ["ratePerSecond", ENV.limitRatePerSecond],
    ["downloadCost", ENV.limitDownloadCost],
    ["principalInFlight", ENV.limitPrincipalInFlight],
    ["agentInFlight", ENV.limitAgentInFlight],
  ];
  for (const [field, name] of map) {
    const value = limits[field];
    if (value !== undefined) env[name] = decimal(value);
  }
  return env;
}

/** Variables that must not leak in from the shell: they would point the functions at AWS. */
const CLEARED = [
  ENV.cursorKeySecret,
  ENV.identityKeySecret,
  ENV.limitBurst,
  ENV.limitRatePerSecond,
  ENV.limitDownloadCost,
  ENV.limitPrincipalInFlight,
  ENV.limitAgentInFlight,
  "AWS_PROFILE",
  "AWS_SESSION_TOKEN",
];

/** Sets the environment on this process (the functions read it when first imported). */
export function applyEnvironment(env: Record<string, string>): void {
  for (const name of CLEARED) delete process.env[name];
  Object.assign(process.env, env);
}
