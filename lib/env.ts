/**
 * Environment variable names: the contract between the CDK stack, the local stack and the functions
 * (lib/config.ts parses them), and the one reader of their on/off switches. A module of its own, free
 * of zod, so that a function reading one variable (the `/health` function) does not bundle the schema
 * and its validator.
 */
export const ENV = {
  enabled: "RUNTIME_LOGS_ENABLED",
  registryTable: "REGISTRY_TABLE",
  stateTable: "STATE_TABLE",
  auditTable: "AUDIT_TABLE",
  /** Secrets Manager secret ids (AWS) holding the keys as JSON `{keyId, secret(base64), previous?}`. */
  cursorKeySecret: "CURSOR_KEY_SECRET",
  identityKeySecret: "IDENTITY_KEY_SECRET",
  /** Local files with the same JSON (local stack only). */
  cursorKeyFile: "CURSOR_KEY_FILE",
  identityKeyFile: "IDENTITY_KEY_FILE",
  kubeconfigSecretPrefix: "KUBECONFIG_SECRET_PREFIX",
  allowInsecureClusters: "ALLOW_INSECURE_CLUSTERS",
  auditRetentionDays: "AUDIT_RETENTION_DAYS",
  /** The audit archive consumer only: the Object-Locked bucket every audit change lands in. */
  auditArchiveBucket: "AUDIT_ARCHIVE_BUCKET",
  limitBurst: "LIMIT_BURST",
  limitRatePerSecond: "LIMIT_RATE_PER_SECOND",
  limitDownloadCost: "LIMIT_DOWNLOAD_COST",
  limitPrincipalInFlight: "LIMIT_PRINCIPAL_IN_FLIGHT",
  limitAgentInFlight: "LIMIT_AGENT_IN_FLIGHT",
  /** Items the Agent's in-flight cap is spread over (docs/capacity.md). */
  limitAgentShards: "LIMIT_AGENT_SHARDS",
  /** Local stack only: the dynalite endpoint. Unset in AWS. */
  dynamodbEndpoint: "DYNAMODB_ENDPOINT",
} as const;

/** The on/off variables. */
export type SwitchName = typeof ENV.enabled | typeof ENV.allowInsecureClusters;

/** A switch's value when it is unset or empty: the feature is on, insecure clusters are refused. */
const SWITCH_DEFAULTS: Record<SwitchName, boolean> = {
  [ENV.enabled]: true,
  [ENV.allowInsecureClusters]: false,
};

/** What a switch that is neither `true` nor `false` is told (the variable's name goes before it). */
export const SWITCH_PROBLEM = "must be true or false";

/** A switch's value: its default when unset or empty, else exactly `true` or `false`; undefined otherwise. */
export function readSwitch(name: SwitchName, value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return SWITCH_DEFAULTS[name];
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

/** Whether the feature is on (`RUNTIME_LOGS_ENABLED`); a bad value throws, failing the cold start. */
export function readEnabled(env: Record<string, string | undefined>): boolean {
  const enabled = readSwitch(ENV.enabled, env[ENV.enabled]);
  if (enabled === undefined) throw new Error(`Invalid configuration: ${ENV.enabled}: ${SWITCH_PROBLEM}`);
  return enabled;
}
