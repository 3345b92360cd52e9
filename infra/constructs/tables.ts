/** The three DynamoDB tables, built from the shared definitions in lib/state/tables.ts. */
import { RemovalPolicy } from "aws-cdk-lib";
import {
  type Attribute,
  AttributeType,
  Billing,
  type CfnGlobalTable,
  StreamViewType,
  TableV2,
} from "aws-cdk-lib/aws-dynamodb";
import type { IKey } from "aws-cdk-lib/aws-kms";
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
export function tableFromDefinition(
  scope: Construct,
  def: TableDefinition,
  options: TableOptions = {},
): TableV2 {
  const table = new TableV2(scope, def.id, {
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
    ...(options.stream ? { dynamoStream: options.stream } : {}),
  });
  if (options.key) {
    // TableV2's own customer-managed-key option needs a stack bound to a region; this stack stays
    // environment-agnostic, so the one replica (the stack's region) names the key directly.
    const cfn = table.node.defaultChild as CfnGlobalTable;
    cfn.addPropertyOverride("SSESpecification", { SSEEnabled: true, SSEType: "KMS" });
    cfn.addPropertyOverride("Replicas.0.SSESpecification", { KMSMasterKeyId: options.key.keyArn });
  }
  return table;
}

/** What the stack adds to a definition: the customer-managed key (`cmk`), a change stream. */
export interface TableOptions {
  key?: IKey | undefined;
  /** A change stream (the Audit table's feeds the archive). */
  stream?: StreamViewType;
}

export class ServiceTables extends Construct {
  readonly registry: TableV2;
  readonly state: TableV2;
  readonly audit: TableV2;

  constructor(scope: Construct, id: string, props: { key: IKey | undefined }) {
    super(scope, id);
    this.registry = tableFromDefinition(this, REGISTRY_TABLE, { key: props.key });
    this.state = tableFromDefinition(this, STATE_TABLE, { key: props.key });
    // New and old images: the archive keeps what an item became and what it was before.
    this.audit = tableFromDefinition(this, AUDIT_TABLE, {
      key: props.key,
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
    });
  }

  get names(): TableNames {
    return { registry: this.registry.tableName, state: this.state.tableName, audit: this.audit.tableName };
  }
}
