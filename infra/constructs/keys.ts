/**
 * The generated key secrets: the cursor-signing key and the identity (pseudonym) key, each stored as
 * JSON `{"keyId": "k1", "secret": "<64 random characters>"}` as lib/config.ts expects. The kubeconfig
 * secrets under `runtime-logs/clusters/` are created by operators, never by the stack.
 *
 * With `cmk` (the default) one customer-managed KMS key, rotated yearly by KMS, encrypts these
 * secrets, the tables and the audit archive: its key policy and CloudTrail show every use, and
 * disabling it cuts off the data at once (docs/audit-archive.md).
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { Key } from "aws-cdk-lib/aws-kms";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";

export const KUBECONFIG_SECRET_PREFIX = "runtime-logs/clusters/";

const generatedKey = (scope: Construct, id: string, description: string, key: Key | undefined): Secret =>
  new Secret(scope, id, {
    description,
    ...(key ? { encryptionKey: key } : {}),
    generateSecretString: {
      secretStringTemplate: JSON.stringify({ keyId: "k1" }),
      generateStringKey: "secret",
      passwordLength: 64,
      excludePunctuation: true,
    },
    // Losing the cursor key only invalidates cursors in flight; losing the identity key changes every
    // pseudonym, so both are kept if the stack is deleted by mistake.
    removalPolicy: RemovalPolicy.RETAIN,
  });

export class ServiceKeys extends Construct {
  /** The customer-managed key (`cmk`), or undefined when AWS-owned keys are used. */
  readonly encryptionKey: Key | undefined;
  readonly cursorKey: Secret;
  readonly identityKey: Secret;

  constructor(scope: Construct, id: string, props: { cmk: boolean }) {
    super(scope, id);
    this.encryptionKey = props.cmk
      ? new Key(this, "DataKey", {
          description: "runtime-logs: tables, key secrets and audit archive",
          enableKeyRotation: true,
          rotationPeriod: Duration.days(365),
          // Deleting the key would make the retained tables and the locked archive unreadable.
          removalPolicy: RemovalPolicy.RETAIN,
        })
      : undefined;
    const key = this.encryptionKey;
    this.cursorKey = generatedKey(this, "CursorKey", "runtime-logs cursor-signing key (HMAC)", key);
    this.identityKey = generatedKey(this, "IdentityKey", "runtime-logs identity (pseudonym) key", key);
  }
}
