/**
 * The one definition of the service's DynamoDB tables (state.md). The CDK stack builds its
 * TableV2 resources from these, and the local stack turns them into CreateTable calls, so the two
 * can never drift.
 */

export type AttributeType = "S" | "N";

export interface KeyDefinition {
  partitionKey: { name: string; type: AttributeType };
  sortKey?: { name: string; type: AttributeType };
}

export interface IndexDefinition extends KeyDefinition {
  indexName: string;
  /** Only `ALL` is used: the indexes are small and read whole items. */
  projection: "ALL";
}

export interface TableDefinition extends KeyDefinition {
  /** Logical name: the CDK construct id and the key of `TABLE_NAMES`. */
  id: "Registry" | "State" | "Audit";
  globalSecondaryIndexes: IndexDefinition[];
  /** TTL attribute (epoch seconds). DynamoDB only garbage-collects with it; nothing relies on it. */
  timeToLiveAttribute?: string;
  pointInTimeRecovery: boolean;
  deletionProtection: boolean;
  /** Retained when the stack is deleted (the audit trail outlives the service). */
  retain: boolean;
}

export const REGISTRY_TABLE: TableDefinition = {
  id: "Registry",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  globalSecondaryIndexes: [
    {
      // Sparse: only running Agents carry `runningKey`, so the probe lists them without a scan.
      indexName: "running",
      partitionKey: { name: "runningKey", type: "S" },
      sortKey: { name: "pk", type: "S" },
      projection: "ALL",
    },
  ],
  pointInTimeRecovery: true,
  // It holds the grants: neither a stack deletion nor a stray DeleteTable may take it.
  deletionProtection: true,
  retain: true,
};

export const STATE_TABLE: TableDefinition = {
  id: "State",
  partitionKey: { name: "pk", type: "S" },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: "expiresAt",
  pointInTimeRecovery: false,
  deletionProtection: false,
  retain: false,
};

export const AUDIT_TABLE: TableDefinition = {
  id: "Audit",
  partitionKey: { name: "pk", type: "S" },
  sortKey: { name: "sk", type: "S" },
  globalSecondaryIndexes: [
    {
      indexName: "principal",
      partitionKey: { name: "principalId", type: "S" },
      sortKey: { name: "sk", type: "S" },
      projection: "ALL",
    },
  ],
  timeToLiveAttribute: "purgeAt",
  pointInTimeRecovery: true,
  deletionProtection: true,
  retain: true,
};

export const TABLES = [REGISTRY_TABLE, STATE_TABLE, AUDIT_TABLE] as const;

/** Physical table names, as the functions receive them in their environment. */
export interface TableNames {
  registry: string;
  state: string;
  audit: string;
}

/**
 * The `CreateTable` input for a definition: keys and GSIs only, on-demand. dynalite has no TTL or
 * PITR calls, so the local stack applies exactly this; the CDK stack adds the rest.
 */
export function createTableInput(def: TableDefinition, tableName: string) {
  const keyAttributes = new Map<string, AttributeType>();
  const addKeys = (k: KeyDefinition) => {
    keyAttributes.set(k.partitionKey.name, k.partitionKey.type);
    if (k.sortKey) keyAttributes.set(k.sortKey.name, k.sortKey.type);
  };
  addKeys(def);
  for (const gsi of def.globalSecondaryIndexes) addKeys(gsi);
  const keySchema = (k: KeyDefinition) => [
    { AttributeName: k.partitionKey.name, KeyType: "HASH" as const },
    ...(k.sortKey ? [{ AttributeName: k.sortKey.name, KeyType: "RANGE" as const }] : []),
  ];
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST" as const,
    AttributeDefinitions: [...keyAttributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
    KeySchema: keySchema(def),
    ...(def.globalSecondaryIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: def.globalSecondaryIndexes.map((gsi) => ({
            IndexName: gsi.indexName,
            KeySchema: keySchema(gsi),
            Projection: { ProjectionType: gsi.projection },
          })),
        }
      : {}),
  };
}
