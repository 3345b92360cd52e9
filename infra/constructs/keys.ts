/**
 * The generated key secrets: the cursor-signing key and the identity (pseudonym) key, each stored as
 * JSON `{"keyId": "k1", "secret": "<64 random characters>"}` as lib/config.ts expects. The kubeconfig
 * secrets under `runtime-logs/clusters/` are created by operators, never by the stack.
 */
import { RemovalPolicy } from "aws-cdk-lib";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";

export const KUBECONFIG_SECRET_PREFIX = "runtime-logs/clusters/";

const generatedKey = (scope: Construct, id: string, description: string): Secret =>
  new Secret(scope, id, {
    description,
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
  readonly cursorKey: Secret;
  readonly identityKey: Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.cursorKey = generatedKey(this, "CursorKey", "runtime-logs cursor-signing key (HMAC)");
    this.identityKey = generatedKey(this, "IdentityKey", "runtime-logs identity (pseudonym) key");
  }
}
