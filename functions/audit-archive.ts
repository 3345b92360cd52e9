/**
 * Lambda `audit-archive`: consumes the Audit table's change stream and writes every INSERT and MODIFY
 * to the Object-Locked archive bucket (lib/audit/archive.ts). Answers with Lambda's partial batch
 * response so that a failed record is retried, then sent to the failure queue.
 */
import { S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { archiveBatch, s3ArchiveStore } from "../lib/audit/archive.ts";
import { ENV } from "../lib/env.ts";
import { createLogger } from "../lib/service/logger.ts";

const bucket = process.env[ENV.auditArchiveBucket];
if (!bucket) throw new Error(`Invalid configuration: ${ENV.auditArchiveBucket}: required`);
const logger = createLogger();
const store = s3ArchiveStore(new S3Client({}), bucket);

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const outcome = await archiveBatch(event, store);
  const summary = { records: event.Records.length, written: outcome.written, skipped: outcome.skipped };
  if (outcome.failed.length > 0)
    logger.error("audit records not archived", { ...summary, errors: outcome.errors });
  else logger.info("audit records archived", summary);
  return { batchItemFailures: outcome.failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
