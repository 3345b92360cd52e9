/** The three DynamoDB tables, built from the shared definitions in lib/state/tables.ts. */
import { RemovalPolicy } from "aws-cdk-lib";
import { type Attribute, AttributeType, Billing, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { Construct } from "constructs";
import {
  AUDIT_TABLE,
  type AttributeType as KeyType,
  REGISTRY_TABLE,
  STATE_TABLE,
  type TableDefinition,
  type TableNames,
} from "../../lib/state/tables.ts";

const attribute = (key: { name: string; type: KeyType }): Attribute => ({
  name: key.name,
  type: key.type === "S" ? AttributeType.STRING : AttributeType.NUMBER,
});

/** One `TableV2` (on-demand) exactly as `def` describes it; nothing about keys is restated here. */
export function tableFromDefinition(scope: Construct, def: TableDefinition): TableV2 {
  return new TableV2(scope, def.id, {
    partitionKey: attribute(def.partitionKey),
    ...(def.sortKey ? { sortKey: attribute(def.sortKey) } : {}),
    billing: Billing.onDemand(),
    globalSecondaryIndexes: def.globalSecondaryIndexes.map((gsi) => ({
      indexName: gsi.indexName,
      partitionKey: attribute(gsi.partitionKey),
      ...(gsi.sortKey ? { sortKey: attribute(gsi.sortKey) } : {}),
    })),
    ...(def.timeToLiveAttribute ? { timeToLiveAttribute: def.timeToLiveAttribute } : {}),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: def.pointInTimeRecovery },
    deletionProtection: def.deletionProtection,
    removalPolicy: def.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

export class ServiceTables extends Construct {
  readonly registry: TableV2;
  readonly state: TableV2;
  readonly audit: TableV2;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.registry = tableFromDefinition(this, REGISTRY_TABLE);
    this.state = tableFromDefinition(this, STATE_TABLE);
    this.audit = tableFromDefinition(this, AUDIT_TABLE);
  }

  get names(): TableNames {
    return { registry: this.registry.tableName, state: this.state.tableName, audit: this.audit.tableName };
  }
}
