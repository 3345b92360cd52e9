/**
 * `cmk` (default on): one customer-managed KMS key, rotated, encrypts the tables and the generated
 * key secrets; each function role may use it only through DynamoDB or Secrets Manager, with the
 * actions it needs (none for `/health`). `cmk=false`: AWS-owned keys, no key, no KMS grant.
 */
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { kmsActionsOf } from "../../infra/access.ts";
import { FUNCTIONS, type FunctionName } from "../../infra/functions.ts";
import { TABLES } from "../../lib/state/tables.ts";
import { actionsOf, roleStatements } from "./iam.ts";
import { resources, type Synthesized, synth, unacknowledged } from "./synth.ts";

/** The logical IDs of the stack's two generated key secrets, sorted: what the secret loops must cover. */
const generatedSecretIds = (s: Synthesized) =>
  [s.stack.keys.cursorKey, s.stack.keys.identityKey]
    .map((secret) => s.stack.getLogicalId(secret.node.defaultChild as never))
    .sort();

const kmsStatements = (s: Synthesized, name: FunctionName) =>
  roleStatements(s, name).filter((st) => actionsOf(st).some((a) => a.startsWith("kms:")));

describe("cmk on (the default)", () => {
  let s: Synthesized;
  let keyId: string;
  beforeAll(() => {
    s = synth();
    keyId = s.stack.getLogicalId(s.stack.keys.encryptionKey!.node.defaultChild as never);
  });

  it("creates one rotated, retained customer-managed key", () => {
    s.template.resourceCountIs("AWS::KMS::Key", 1);
    s.template.hasResource("AWS::KMS::Key", {
      DeletionPolicy: "Retain",
      Properties: Match.objectLike({ EnableKeyRotation: true, RotationPeriodInDays: 365 }),
    });
  });

  it("encrypts every table with it", () => {
    const tables = resources(s.template, "AWS::DynamoDB::GlobalTable");
    expect(tables).toHaveLength(TABLES.length);
    for (const [, table] of tables) {
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: "KMS" });
      const replicas = table.Properties.Replicas as { SSESpecification: unknown }[];
      expect(replicas[0]!.SSESpecification).toEqual({
        KMSMasterKeyId: { "Fn::GetAtt": [keyId, "Arn"] },
      });
    }
  });

  it("encrypts both generated key secrets with it", () => {
    const secrets = resources(s.template, "AWS::SecretsManager::Secret");
    expect(secrets.map(([logicalId]) => logicalId).sort()).toEqual(generatedSecretIds(s));
    for (const [, secret] of secrets) {
      expect(secret.Properties.KmsKeyId).toEqual({ "Fn::GetAtt": [keyId, "Arn"] });
    }
  });

  // The archive consumer's grants (stream and objects) are tested in audit-archive.test.ts.
  it.each(FUNCTIONS.filter((f) => f.name !== "audit-archive").map((f) => [f.name] as const))(
    "%s: exactly its KMS actions, on this key, through DynamoDB and Secrets Manager only",
    (name) => {
      const statements = kmsStatements(s, name);
      const wanted = kmsActionsOf(name);
      if (wanted.length === 0) {
        expect(statements).toEqual([]);
        return;
      }
      expect(statements).toHaveLength(1);
      expect(statements[0]).toEqual({
        Effect: "Allow",
        Action: wanted,
        Resource: { "Fn::GetAtt": [keyId, "Arn"] },
        Condition: {
          StringEquals: {
            "kms:ViaService": [
              { "Fn::Join": ["", ["dynamodb.", { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }]] },
              {
                "Fn::Join": ["", ["secretsmanager.", { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }]],
              },
            ],
          },
        },
      });
    },
  );

  it("gives decrypt and encrypt to the functions that read and write tables, nothing to /health", () => {
    const rw = ["kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey"];
    expect(Object.fromEntries(FUNCTIONS.map((f) => [f.name, kmsActionsOf(f.name)]))).toEqual({
      status: rw,
      logs: rw,
      download: rw,
      health: [],
      "health-probe": rw,
      "audit-archive": [],
    });
  });

  it("passes cdk-nag", () => {
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

describe("cmk=false", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth({ cmk: "false" });
  });

  it("uses AWS-owned keys: no key, no SSE key on tables or secrets, no KMS grant", () => {
    expect(s.stack.keys.encryptionKey).toBeUndefined();
    s.template.resourceCountIs("AWS::KMS::Key", 0);
    const tables = resources(s.template, "AWS::DynamoDB::GlobalTable");
    expect(tables).toHaveLength(TABLES.length);
    for (const [, table] of tables) {
      expect(JSON.stringify(table.Properties)).not.toContain("KMSMasterKeyId");
    }
    const secrets = resources(s.template, "AWS::SecretsManager::Secret");
    expect(secrets.map(([logicalId]) => logicalId).sort()).toEqual(generatedSecretIds(s));
    for (const [, secret] of secrets) {
      expect(secret.Properties.KmsKeyId).toBeUndefined();
    }
    for (const { name } of FUNCTIONS) expect(kmsStatements(s, name)).toEqual([]);
  });

  it("rejects a value that is not a boolean", () => {
    expect(() => synth({ cmk: "sometimes" })).toThrow(/"cmk"/);
  });
});
