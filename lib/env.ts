/**
 * Environment variable names: the contract between the CDK stack, the local stack and the functions
 * (lib/config.ts parses them). A module of its own so that a function reading one variable (the
 * `/health` function) does not bundle the schema and its validator.
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
