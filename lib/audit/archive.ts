/**
 * The audit archive (docs/audit-archive.md): every INSERT and MODIFY of the Audit table's change
 * stream becomes one new object in an Object-Locked bucket, so a later overwrite of an item adds an
 * object and never replaces the one that holds the original. REMOVE records (TTL expiry after the
 * retention period) add nothing: the item's images are already archived.
 *
 * One object per stream record, keyed by the item and the record's sequence number and event ID: no
 * two records share a key, and a retried record writes the same key again (a new version of the same
 * bytes, the first one still locked).
 */
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent, StreamRecord } from "aws-lambda";

/** Where archived records go; S3 in AWS, a fake in tests. */
export interface ArchiveStore {
  put(key: string, body: string): Promise<void>;
}

/** What one archived object holds: the stream record as DynamoDB sent it (attribute-value JSON). */
export interface ArchivedRecord {
  eventID: string;
  eventName: "INSERT" | "MODIFY";
  sequenceNumber: string;
  /** Seconds since the epoch, as the stream reports it. */
  approximateCreationDateTime: number | undefined;
  eventSourceARN: string | undefined;
  keys: Record<string, AttributeValue>;
  newImage: Record<string, AttributeValue>;
  /** The item before a MODIFY. */
  oldImage?: Record<string, AttributeValue>;
}

export class ArchiveRecordError extends Error {
  override name = "ArchiveRecordError";
}

export const ARCHIVE_PREFIX = "audit/";

const keyPart = (value: AttributeValue | undefined, name: string): string => {
  const text = value?.S ?? value?.N;
  if (text === undefined || text === "") throw new ArchiveRecordError(`stream record without key "${name}"`);
  return encodeURIComponent(text);
};

/** `audit/{pk}/{sk}/{sequenceNumber}-{eventID}.json`, each part URI-encoded (`#` and `:` included). */
export function archiveKey(record: DynamoDBRecord): string {
  const stream = requireStream(record);
  const eventID = record.eventID;
  if (!eventID) throw new ArchiveRecordError("stream record without eventID");
  return (
    `${ARCHIVE_PREFIX}${keyPart(stream.Keys?.pk, "pk")}/${keyPart(stream.Keys?.sk, "sk")}/` +
    `${encodeURIComponent(stream.SequenceNumber as string)}-${encodeURIComponent(eventID)}.json`
  );
}

/** The archived form of an INSERT or MODIFY record; null for records that add nothing (REMOVE). */
export function archivedRecord(record: DynamoDBRecord): ArchivedRecord | null {
  if (record.eventName === "REMOVE") return null;
  if (record.eventName !== "INSERT" && record.eventName !== "MODIFY") {
    throw new ArchiveRecordError("stream record without a known eventName");
  }
  const stream = requireStream(record);
  if (!stream.NewImage) {
    throw new ArchiveRecordError("stream record without NewImage (the stream must carry new images)");
  }
  return {
    eventID: record.eventID as string,
    eventName: record.eventName,
    sequenceNumber: stream.SequenceNumber as string,
    approximateCreationDateTime: stream.ApproximateCreationDateTime,
    eventSourceARN: record.eventSourceARN,
    keys: stream.Keys ?? {},
    newImage: stream.NewImage,
    ...(record.eventName === "MODIFY" && stream.OldImage ? { oldImage: stream.OldImage } : {}),
  };
}

function requireStream(record: DynamoDBRecord): StreamRecord {
  const stream = record.dynamodb;
  if (!stream?.SequenceNumber) throw new ArchiveRecordError("stream record without SequenceNumber");
  return stream;
}

export interface ArchiveOutcome {
  written: number;
  skipped: number;
  /** Sequence numbers of the records not archived (Lambda's partial batch response). */
  failed: string[];
  /** Why each failed record failed (error names and messages: never record contents). */
  errors: { sequenceNumber: string; error: string }[];
}

/**
 * Archives a batch. A record that cannot be archived is reported by its sequence number, so Lambda
 * retries from there (splitting the batch, then sending it to the failure destination); the records
 * before it are checkpointed.
 */
export async function archiveBatch(event: DynamoDBStreamEvent, store: ArchiveStore): Promise<ArchiveOutcome> {
  const outcome: ArchiveOutcome = { written: 0, skipped: 0, failed: [], errors: [] };
  for (const record of event.Records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? record.eventID ?? "";
    try {
      const archived = archivedRecord(record);
      if (!archived) {
        outcome.skipped++;
        continue;
      }
      await store.put(archiveKey(record), `${JSON.stringify(archived)}\n`);
      outcome.written++;
    } catch (error) {
      outcome.failed.push(sequenceNumber);
      outcome.errors.push({ sequenceNumber, error: describe(error) });
      // Lambda resumes from the lowest failed sequence number: the rest would be written twice.
      break;
    }
  }
  return outcome;
}

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : "unknown error";

/**
 * The S3 store: one PutObject per record, with a SHA-256 checksum (Object Lock requires an integrity
 * checksum on every write). The bucket's default retention locks each new version in compliance mode.
 */
export function s3ArchiveStore(client: Pick<S3Client, "send">, bucket: string): ArchiveStore {
  return {
    async put(key, body) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: "application/json",
          ChecksumAlgorithm: "SHA256",
        }),
      );
    },
  };
}
