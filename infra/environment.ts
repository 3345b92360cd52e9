/**
 * The functions' environment, keyed by `ENV` from lib/config.ts (the contract with the functions):
 * one typed builder, so the stack cannot set a name the functions do not read.
 */
import { ENV } from "../lib/config.ts";
import type { FunctionEnvironmentKind } from "../lib/service/routes.ts";
import type { TableNames } from "../lib/state/tables.ts";
import type { LimitSettings } from "./settings.ts";

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** Variables that only the local stack sets. */
type LocalOnly = typeof ENV.cursorKeyFile | typeof ENV.identityKeyFile | typeof ENV.dynamodbEndpoint;

export type FunctionEnvironment = Partial<Record<Exclude<EnvName, LocalOnly>, string>> & {
  NODE_OPTIONS: string;
};

export interface EnvironmentInput {
  runtimeLogsEnabled: boolean;
  tables: TableNames;
  /** Secret ARNs of the generated keys. */
  cursorKeySecret: string;
  identityKeySecret: string;
  kubeconfigSecretPrefix: string;
  limits: LimitSettings;
  /** The audit items' TTL, equal to the archive's lock. */
  auditRetentionDays: number;
  /** The Object-Locked archive's bucket (the archive consumer's only variable). */
  auditArchiveBucket: string;
}

/** Every function's: stack traces point into the TypeScript sources, not the minified bundle. */
const NODE_OPTIONS = "--enable-source-maps";

type Variables = Omit<FunctionEnvironment, "NODE_OPTIONS">;

/** The variables of each environment kind (a function spec's `environment`, lib/service/routes.ts). */
const VARIABLES: Record<FunctionEnvironmentKind, (input: EnvironmentInput) => Variables> = {
  service: serviceVariables,
  switch: (input) => ({ [ENV.enabled]: String(input.runtimeLogsEnabled) }),
  archive: (input) => ({ [ENV.auditArchiveBucket]: input.auditArchiveBucket }),
};

/** The environment of a function whose spec says `kind`. */
export function functionEnvironment(
  kind: FunctionEnvironmentKind,
  input: EnvironmentInput,
): FunctionEnvironment {
  return { ...VARIABLES[kind](input), NODE_OPTIONS };
}

/** The request-serving functions' and the probe's: the switch, tables, key secrets and limits. */
function serviceVariables(input: EnvironmentInput): Variables {
  const env: Variables = {
    [ENV.enabled]: String(input.runtimeLogsEnabled),
    [ENV.registryTable]: input.tables.registry,
    [ENV.stateTable]: input.tables.state,
    [ENV.auditTable]: input.tables.audit,
    [ENV.cursorKeySecret]: input.cursorKeySecret,
    [ENV.identityKeySecret]: input.identityKeySecret,
    [ENV.kubeconfigSecretPrefix]: input.kubeconfigSecretPrefix,
    [ENV.auditRetentionDays]: String(input.auditRetentionDays),
  };
  const { limits } = input;
  if (limits.burst !== undefined) env[ENV.limitBurst] = String(limits.burst);
  if (limits.ratePerSecond !== undefined) env[ENV.limitRatePerSecond] = String(limits.ratePerSecond);
  if (limits.downloadCost !== undefined) env[ENV.limitDownloadCost] = String(limits.downloadCost);
  if (limits.principalInFlight !== undefined)
    env[ENV.limitPrincipalInFlight] = String(limits.principalInFlight);
  if (limits.agentInFlight !== undefined) env[ENV.limitAgentInFlight] = String(limits.agentInFlight);
  if (limits.agentShards !== undefined) env[ENV.limitAgentShards] = String(limits.agentShards);
  return env;
}
