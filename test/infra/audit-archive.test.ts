/**
 * Every audit write reaches Object-Locked S3 (docs/audit-archive.md): the Audit table streams new and
 * old images; one event source mapping delivers every record (no filter) to the archive consumer,
 * with bisect, bounded retries, partial batch responses and a failure queue; the consumer may only
 * PutObject into a versioned, compliance-locked, private, SSL-only, encrypted bucket; no function
 * role may delete an audit item or an archived object. `auditRetentionDays` sets the lock and TTL.
 */
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import type { FunctionName } from "../../infra/functions.ts";
import { ENV } from "../../lib/env.ts";
import { actionsOf, roleStatements } from "./iam.ts";
import { resources, type Synthesized, synth, unacknowledged } from "./synth.ts";

const id = (s: Synthesized, c: { node: { defaultChild?: unknown } }) =>
  s.stack.getLogicalId(c.node.defaultChild as never);

describe("audit archive (default: 400 days, cmk on)", () => {
  let s: Synthesized;
  let audit: string;
  let bucket: string;
  let consumer: string;
  beforeAll(() => {
    s = synth();
    audit = id(s, s.stack.tables.audit);
    bucket = id(s, s.stack.archiveBucket.bucket);
    consumer = id(s, s.stack.functions["audit-archive"].fn);
  });

  it("streams the Audit table's new and old images (and only the Audit table streams)", () => {
    const tables = resources(s.template, "AWS::DynamoDB::GlobalTable");
    const streaming = tables.filter(([, t]) => t.Properties.StreamSpecification !== undefined);
    expect(streaming.map(([logicalId]) => logicalId)).toEqual([audit]);
    expect(streaming[0]![1].Properties.StreamSpecification).toEqual({ StreamViewType: "NEW_AND_OLD_IMAGES" });
  });

  it("delivers every record of that stream to the consumer: no filter, bisect, retries, partial failures, a failure queue", () => {
    const mappings = resources(s.template, "AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(1);
    const failures = id(s, s.stack.auditArchive.failures);
    expect(mappings[0]![1].Properties).toEqual({
      EventSourceArn: { "Fn::GetAtt": [audit, "StreamArn"] },
      FunctionName: { Ref: consumer },
      StartingPosition: "TRIM_HORIZON",
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 12 * 3600,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [failures, "Arn"] } } },
    });
    s.template.hasResourceProperties("AWS::SQS::Queue", {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86400,
    });
  });

  it("tells the consumer its bucket and nothing else", () => {
    const fn = s.template.toJSON().Resources[consumer].Properties;
    expect(fn.Environment.Variables).toEqual({
      [ENV.auditArchiveBucket]: { Ref: bucket },
      NODE_OPTIONS: "--enable-source-maps",
    });
    expect(fn.VpcConfig).toBeUndefined();
  });

  it("locks every object in compliance mode for auditRetentionDays, versioned, private, encrypted with the key", () => {
    const key = id(s, s.stack.keys.encryptionKey!);
    const archive = s.template.toJSON().Resources[bucket];
    expect(archive.DeletionPolicy).toBe("Retain");
    expect(archive.Properties).toMatchObject({
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: "Enabled",
        Rule: { DefaultRetention: { Mode: "COMPLIANCE", Days: 400 } },
      },
      VersioningConfiguration: { Status: "Enabled" },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: "aws:kms",
              KMSMasterKeyID: { "Fn::GetAtt": [key, "Arn"] },
            },
          },
        ],
      },
      LoggingConfiguration: { DestinationBucketName: { Ref: id(s, s.stack.archiveBucket.logBucket) } },
    });
    // SSL only.
    s.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: bucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });

  it("lets the consumer only put objects there, and denies deletes and retention changes", () => {
    const statements = roleStatements(s, "audit-archive");
    const s3Allows = statements.filter(
      (st) => st.Effect === "Allow" && actionsOf(st).some((a) => a.startsWith("s3:")),
    );
    expect(s3Allows).toEqual([
      {
        Effect: "Allow",
        Action: "s3:PutObject",
        Resource: { "Fn::Join": ["", [{ "Fn::GetAtt": [bucket, "Arn"] }, "/*"]] },
      },
    ]);
    const s3Deny = statements.find((st) => st.Effect === "Deny" && actionsOf(st).includes("s3:DeleteObject"));
    // Written out, not imported: dropping one from the construct must fail here.
    expect(actionsOf(s3Deny!).sort()).toEqual(
      [
        "s3:BypassGovernanceRetention",
        "s3:DeleteObject",
        "s3:DeleteObjectVersion",
        "s3:PutBucketObjectLockConfiguration",
        "s3:PutLifecycleConfiguration",
        "s3:PutObjectLegalHold",
        "s3:PutObjectRetention",
      ].sort(),
    );
    // The stream, read by its exact ARN; no table read or write at all.
    const dynamo = statements.filter(
      (st) => st.Effect === "Allow" && actionsOf(st).some((a) => a.startsWith("dynamodb:")),
    );
    expect(dynamo).toEqual([
      {
        Effect: "Allow",
        Action: [
          "dynamodb:DescribeStream",
          "dynamodb:GetRecords",
          "dynamodb:GetShardIterator",
          "dynamodb:ListStreams",
        ],
        Resource: { "Fn::GetAtt": [audit, "StreamArn"] },
      },
    ]);
    // The key: decrypt through DynamoDB (the stream), generate data keys through S3 (the objects).
    const kms = statements.filter((st) => actionsOf(st).some((a) => a.startsWith("kms:")));
    expect(kms.map((st) => actionsOf(st))).toEqual([
      ["kms:Decrypt", "kms:DescribeKey"],
      ["kms:GenerateDataKey"],
    ]);
    expect(JSON.stringify(kms[0]!.Condition)).toContain("dynamodb.");
    expect(JSON.stringify(kms[1]!.Condition)).toContain("s3.");
  });

  it("grants no other role anything on the archive", () => {
    for (const name of Object.keys(s.stack.functions) as FunctionName[]) {
      if (name === "audit-archive") continue;
      const allows = roleStatements(s, name).filter((st) => st.Effect === "Allow");
      expect(JSON.stringify(allows)).not.toContain(`"${bucket}"`);
    }
  });

  it("outputs the bucket name and passes cdk-nag", () => {
    s.template.hasOutput("AuditArchiveBucketName", { Value: { Ref: bucket } });
    expect(s.error).toBeUndefined();
    expect(unacknowledged(s.report)).toEqual([]);
  });
});

describe("auditRetentionDays=30, cmk=false", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synth({ auditRetentionDays: "30", cmk: "false" });
  });

  it("locks for 30 days, encrypts with S3-managed keys, and sets the audit TTL to the same 30 days", () => {
    const bucket = id(s, s.stack.archiveBucket.bucket);
    expect(s.template.toJSON().Resources[bucket].Properties).toMatchObject({
      ObjectLockConfiguration: { Rule: { DefaultRetention: { Mode: "COMPLIANCE", Days: 30 } } },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
    });
    const logs = s.template.toJSON().Resources[id(s, s.stack.functions.logs.fn)].Properties;
    expect(logs.Environment.Variables[ENV.auditRetentionDays]).toBe("30");
    expect(JSON.stringify(roleStatements(s, "audit-archive"))).not.toContain("kms:");
  });

  it.each(["0", "-1", "1.5", "forever", "40000"])("rejects auditRetentionDays=%s", (value) => {
    expect(() => synth({ auditRetentionDays: value })).toThrow(/auditRetentionDays/);
  });
});
