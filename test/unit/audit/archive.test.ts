/**
 * The audit archive consumer (lib/audit/archive.ts) over an S3 client faked at the SDK edge (its
 * `send`): every INSERT and MODIFY becomes its own PutObject with the record's images, keys never
 * collide, REMOVE adds nothing, and a failed write surfaces as the batch item failure Lambda retries.
 */
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ARCHIVE_PREFIX, archiveBatch, archiveKey, s3ArchiveStore } from "../../../lib/audit/archive.ts";
import { ENV } from "../../../lib/env.ts";

const STREAM = "arn:aws:dynamodb:us-east-1:000000000000:table/Audit/stream/2026-12-01T00:00:00.000";
const PK = "AGENT#ns-1#agent-1";
const SK = "2026-12-01T10:00:00.000Z#01JF0000000000000000000000";

function record(
  eventName: "INSERT" | "MODIFY" | "REMOVE",
  sequenceNumber: string,
  newOutcome: string | null,
  oldOutcome?: string,
): DynamoDBRecord {
  const image = (outcome: string) => ({ pk: { S: PK }, sk: { S: SK }, outcome: { S: outcome } });
  return {
    eventID: `evt-${sequenceNumber}`,
    eventName,
    eventSource: "aws:dynamodb",
    eventSourceARN: STREAM,
    dynamodb: {
      ApproximateCreationDateTime: 1764583200,
      Keys: { pk: { S: PK }, sk: { S: SK } },
      SequenceNumber: sequenceNumber,
      StreamViewType: "NEW_AND_OLD_IMAGES",
      ...(newOutcome ? { NewImage: image(newOutcome) } : {}),
      ...(oldOutcome ? { OldImage: image(oldOutcome) } : {}),
    },
  };
}

/** An S3 client whose `send` records each command and fails the calls named in `failOn`. */
function fakeS3(failOn: Set<number> = new Set()) {
  const sent: PutObjectCommand["input"][] = [];
  let calls = 0;
  const client = {
    send: async (command: unknown) => {
      const n = calls++;
      if (!(command instanceof PutObjectCommand)) throw new Error("only PutObject is expected");
      if (failOn.has(n))
        throw Object.assign(new Error("Service Unavailable"), { name: "ServiceUnavailable" });
      sent.push(command.input);
      return {};
    },
  };
  return { client: client as never, sent };
}

const batch = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

describe("audit archive", () => {
  it("writes an INSERT as one object keyed by item, sequence number and event ID", async () => {
    const s3 = fakeS3();
    const outcome = await archiveBatch(
      batch(record("INSERT", "100", "success")),
      s3ArchiveStore(s3.client, "archive"),
    );
    expect(outcome).toEqual({ written: 1, skipped: 0, failed: [], errors: [] });
    expect(s3.sent).toHaveLength(1);
    const put = s3.sent[0]!;
    expect(put.Bucket).toBe("archive");
    expect(put.Key).toBe(
      `${ARCHIVE_PREFIX}AGENT%23ns-1%23agent-1/2026-12-01T10%3A00%3A00.000Z%2301JF0000000000000000000000/100-evt-100.json`,
    );
    expect(put.ContentType).toBe("application/json");
    expect(put.ChecksumAlgorithm).toBe("SHA256");
    expect(JSON.parse(put.Body as string)).toEqual({
      eventID: "evt-100",
      eventName: "INSERT",
      sequenceNumber: "100",
      approximateCreationDateTime: 1764583200,
      eventSourceARN: STREAM,
      keys: { pk: { S: PK }, sk: { S: SK } },
      newImage: { pk: { S: PK }, sk: { S: SK }, outcome: { S: "success" } },
    });
  });

  it("writes a MODIFY of the same item as a new object with both images, never over the original", async () => {
    const s3 = fakeS3();
    const outcome = await archiveBatch(
      batch(record("INSERT", "100", "success"), record("MODIFY", "101", "forged", "success")),
      s3ArchiveStore(s3.client, "archive"),
    );
    expect(outcome.written).toBe(2);
    const [insert, modify] = s3.sent;
    expect(modify!.Key).not.toBe(insert!.Key);
    expect(modify!.Key!.startsWith(insert!.Key!.slice(0, insert!.Key!.lastIndexOf("/") + 1))).toBe(true);
    const body = JSON.parse(modify!.Body as string);
    expect(body.eventName).toBe("MODIFY");
    expect(body.newImage.outcome).toEqual({ S: "forged" });
    expect(body.oldImage.outcome).toEqual({ S: "success" });
    // The original is still what the first object says.
    expect(JSON.parse(insert!.Body as string).newImage.outcome).toEqual({ S: "success" });
  });

  it("gives every record of a batch its own key", async () => {
    const s3 = fakeS3();
    const records = Array.from({ length: 50 }, (_, i) =>
      record(i % 2 ? "MODIFY" : "INSERT", String(1000 + i), "success", i % 2 ? "success" : undefined),
    );
    await archiveBatch(batch(...records), s3ArchiveStore(s3.client, "archive"));
    expect(new Set(s3.sent.map((p) => p.Key)).size).toBe(50);
    expect(new Set(records.map(archiveKey)).size).toBe(50);
  });

  it("adds nothing for REMOVE (TTL expiry): the images were archived when written", async () => {
    const s3 = fakeS3();
    const outcome = await archiveBatch(
      batch(record("REMOVE", "200", null, "success")),
      s3ArchiveStore(s3.client, "archive"),
    );
    expect(outcome).toEqual({ written: 0, skipped: 1, failed: [], errors: [] });
    expect(s3.sent).toEqual([]);
  });

  it("reports a failed write as the batch item failure and stops there (Lambda resumes from it)", async () => {
    const s3 = fakeS3(new Set([1]));
    const outcome = await archiveBatch(
      batch(
        record("INSERT", "300", "success"),
        record("INSERT", "301", "success"),
        record("INSERT", "302", "denied"),
      ),
      s3ArchiveStore(s3.client, "archive"),
    );
    expect(outcome.written).toBe(1);
    expect(outcome.failed).toEqual(["301"]);
    expect(outcome.errors).toEqual([
      { sequenceNumber: "301", error: "ServiceUnavailable: Service Unavailable" },
    ]);
    expect(s3.sent.map((p) => p.Key)).toEqual([archiveKey(record("INSERT", "300", "success"))]);
  });

  it("fails a record the stream delivered without its new image (a misconfigured stream), naming why", async () => {
    const s3 = fakeS3();
    const outcome = await archiveBatch(
      batch(record("INSERT", "400", null)),
      s3ArchiveStore(s3.client, "archive"),
    );
    expect(outcome.failed).toEqual(["400"]);
    expect(outcome.errors[0]!.error).toMatch(/NewImage/);
    expect(s3.sent).toEqual([]);
  });
});

describe("functions/audit-archive.ts", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("answers Lambda's partial batch response: the failed record's sequence number", async () => {
    vi.stubEnv(ENV.auditArchiveBucket, "archive");
    vi.stubEnv("AWS_REGION", "us-east-1");
    const keys: string[] = [];
    let calls = 0;
    const send = vi.spyOn(S3Client.prototype, "send").mockImplementation(async (command: unknown) => {
      if (calls++ === 1) throw new Error("throttled");
      keys.push((command as PutObjectCommand).input.Key as string);
      return {};
    });
    try {
      const { handler } = await import("../../../functions/audit-archive.ts");
      const response = await handler(
        batch(record("INSERT", "500", "success"), record("MODIFY", "501", "x", "success")),
      );
      expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: "501" }] });
      expect(keys).toEqual([archiveKey(record("INSERT", "500", "success"))]);
      expect(await handler(batch(record("MODIFY", "501", "x", "success")))).toEqual({
        batchItemFailures: [],
      });
    } finally {
      send.mockRestore();
    }
  });
});
