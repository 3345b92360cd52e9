/**
 * The access-log bucket beside a bucket the stack serves from or archives to (the archive's S3 server
 * access logs, the console's CloudFront standard logs): private, TLS only, S3-managed keys, kept when
 * the stack goes, and expired after `retentionDays`. Both log writers deliver with ACLs, so the bucket
 * has object-writer ownership.
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import type { Construct } from "constructs";

/** The `AccessLogs` bucket of `scope`. */
export function accessLogBucket(scope: Construct, retentionDays: number): Bucket {
  return new Bucket(scope, "AccessLogs", {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    objectOwnership: ObjectOwnership.OBJECT_WRITER,
    lifecycleRules: [{ expiration: Duration.days(retentionDays) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** `Bucket` as `IBucket`: aws-cdk-lib's optional members do not satisfy exactOptionalPropertyTypes. */
export const bucketRef = (bucket: Bucket): IBucket => bucket as unknown as IBucket;
