/**
 * The functions' environment, keyed by `ENV` from lib/config.ts (the contract with the functions):
 * one typed builder, so the stack cannot set a name the functions do not read.
 */
import { ENV } from "../lib/config.ts";
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
}

export function functionEnvironment(input: EnvironmentInput): FunctionEnvironment {
  const env: FunctionEnvironment = {
    [ENV.enabled]: String(input.runtimeLogsEnabled),
    [ENV.registryTable]: input.tables.registry,
    [ENV.stateTable]: input.tables.state,
    [ENV.auditTable]: input.tables.audit,
    [ENV.cursorKeySecret]: input.cursorKeySecret,
    [ENV.identityKeySecret]: input.identityKeySecret,
    [ENV.kubeconfigSecretPrefix]: input.kubeconfigSecretPrefix,
    [ENV.auditRetentionDays]: String(input.auditRetentionDays),
    // Stack traces point into the TypeScript sources, not the minified bundle.
    NODE_OPTIONS: "--enable-source-maps",
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

/** The `/health` function's environment: the feature switch alone. */
export function healthEnvironment(runtimeLogsEnabled: boolean): FunctionEnvironment {
  return { [ENV.enabled]: String(runtimeLogsEnabled), NODE_OPTIONS: "--enable-source-maps" };
}

/** The audit archive consumer's environment: its bucket. */
export function archiveEnvironment(bucketName: string): FunctionEnvironment {
  return { [ENV.auditArchiveBucket]: bucketName, NODE_OPTIONS: "--enable-source-maps" };
}
