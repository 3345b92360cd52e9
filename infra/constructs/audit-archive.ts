/**
 * The audit archive (docs/audit-archive.md): the Audit table's change stream, consumed by the
 * `audit-archive` function, lands every audit write in an S3 bucket with Object Lock in compliance
 * mode, so no overwrite or deletion of an item, by any role, erases what was first written.
 *
 * - The bucket: Object Lock (compliance, `auditRetentionDays`), versioned, public access blocked,
 *   SSL only, encrypted (the customer-managed key with `cmk`), access-logged, retained.
 * - The consumer's role: `s3:PutObject` on the bucket's objects and nothing else there (deletes and
 *   retention changes explicitly denied), the stream's read actions, the key through S3 and DynamoDB.
 * - The event source: from the stream's trim horizon, every record (no filter), bisect on error,
 *   bounded retries, partial batch responses, and a failure queue that keeps what could not land.
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import type { TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { Effect, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IKey } from "aws-cdk-lib/aws-kms";
import { type EventSourceMapping, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectLockRetention,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { accessLogBucket, bucketRef } from "./access-logs.ts";
import { grantKeyUse, type ServiceFunction } from "./service-function.ts";

/** Stream reading as the event source mapping does it (no account-wide `ListStreams`). */
export const STREAM_READ_ACTIONS = [
  "dynamodb:DescribeStream",
  "dynamodb:GetRecords",
  "dynamodb:GetShardIterator",
  "dynamodb:ListStreams",
] as const;

/** Never allowed to the consumer on the archive, whatever else a later grant adds. */
const ARCHIVE_DENIED_ACTIONS = [
  "s3:DeleteObject",
  "s3:DeleteObjectVersion",
  "s3:PutObjectRetention",
  "s3:PutObjectLegalHold",
  "s3:BypassGovernanceRetention",
  "s3:PutBucketObjectLockConfiguration",
  "s3:PutLifecycleConfiguration",
] as const;

/** Lambda's retries of a failed batch before its records go to the failure queue. */
const ARCHIVE_RETRY_ATTEMPTS = 10;

export interface AuditArchiveBucketProps {
  retentionDays: number;
  key: IKey | undefined;
}

/** The archive bucket and its access-log bucket (created before the consumer, which names it). */
export class AuditArchiveBucket extends Construct {
  readonly bucket: Bucket;
  readonly logBucket: Bucket;

  constructor(scope: Construct, id: string, props: AuditArchiveBucketProps) {
    super(scope, id);
    // S3 server access logging writes with the log-delivery ACL.
    this.logBucket = accessLogBucket(this, props.retentionDays);
    this.bucket = new Bucket(this, "Bucket", {
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(props.retentionDays)),
      versioned: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      ...(props.key
        ? { encryption: BucketEncryption.KMS, encryptionKey: props.key, bucketKeyEnabled: true }
        : { encryption: BucketEncryption.S3_MANAGED }),
      serverAccessLogsBucket: bucketRef(this.logBucket),
      serverAccessLogsPrefix: "archive/",
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}

export interface AuditArchiveProps {
  table: TableV2;
  archive: AuditArchiveBucket;
  consumer: ServiceFunction;
  key: IKey | undefined;
}

/** Wires the Audit table's stream to the consumer and grants it exactly what delivery needs. */
export class AuditArchive extends Construct {
  readonly failures: Queue;
  readonly mapping: EventSourceMapping;

  constructor(scope: Construct, id: string, props: AuditArchiveProps) {
    super(scope, id);
    const streamArn = props.table.tableStreamArn;
    if (!streamArn) throw new Error("The Audit table has no change stream.");
    const { role, fn } = props.consumer;
    const bucket = props.archive.bucket;

    role.addToPolicy(
      new PolicyStatement({ actions: ["s3:PutObject"], resources: [bucket.arnForObjects("*")] }),
    );
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        actions: [...ARCHIVE_DENIED_ACTIONS],
        resources: [bucket.bucketArn, bucket.arnForObjects("*")],
      }),
    );
    role.addToPolicy(new PolicyStatement({ actions: [...STREAM_READ_ACTIONS], resources: [streamArn] }));
    if (props.key) {
      // Reading the encrypted stream (through DynamoDB) and writing encrypted objects (through S3).
      grantKeyUse(role, props.key.keyArn, ["kms:Decrypt", "kms:DescribeKey"], ["dynamodb"]);
      grantKeyUse(role, props.key.keyArn, ["kms:GenerateDataKey"], ["s3"]);
    }

    // Records that still fail after the retries: their stream coordinates, kept 14 days to replay.
    this.failures = new Queue(this, "Failures", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.mapping = fn.addEventSourceMapping("AuditStream", {
      eventSourceArn: streamArn,
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: ARCHIVE_RETRY_ATTEMPTS,
      // A stream keeps records 24 hours: retry within that, then hand them to the queue.
      maxRecordAge: Duration.hours(12),
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.failures),
    });
  }
}
