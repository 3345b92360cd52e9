/**
 * The directly sent item commands (lib/state/dynamo-json.ts) against dynalite: the same outputs and
 * errors as the SDK path, counted once per logical call, and the SDK's retry behaviour, with a
 * fault-injecting proxy in front of dynalite for throttling and 5xx.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BatchGetItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  DynamoDBServiceException,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDynamo,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  localDynamoOptions,
} from "../../../lib/state/dynamo.ts";
import { DirectDynamoDBClient } from "../../../lib/state/dynamo-json.ts";
import { type LocalDynamo, startDynalite } from "../../support/dynalite.ts";

let db: LocalDynamo;
let sdk: DynamoDBClient;
beforeAll(async () => {
  db = await startDynalite();
  sdk = new DynamoDBClient({ endpoint: db.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  sdk?.destroy();
  await db?.close();
});

const table = () => db.tableNames.state;
const key = (pk: string) => ({ pk: { S: pk } });

/** The same command through the SDK and through the direct path; the outputs without `$metadata`. */
async function both<T extends object>(make: () => { input: unknown }) {
  const viaSdk = (await sdk.send(make() as never)) as T & { $metadata?: unknown };
  const direct = (await db.client.send(make() as never)) as T & { $metadata?: unknown };
  const { $metadata: m1, ...a } = viaSdk;
  const { $metadata: m2, ...b } = direct;
  return { sdk: a, direct: b, meta: m2 as Record<string, unknown> };
}

describe("direct item commands on dynalite", () => {
  it("the low-level client of createDynamo sends them directly", () => {
    expect(db.client).toBeInstanceOf(DirectDynamoDBClient);
  });

  it("answers PutItem, GetItem, UpdateItem and BatchGetItem as the SDK does, binary values included", async () => {
    const item = {
      pk: { S: "direct#1" },
      n: { N: "42" },
      ss: { SS: ["a", "b"] },
      bin: { B: new Uint8Array([0, 1, 2, 250, 255]) },
      bs: { BS: [new Uint8Array([7]), new Uint8Array([8, 9])] },
      m: {
        M: { B: { S: "not binary" }, l: { L: [{ BOOL: true }, { NULL: true }, { B: new Uint8Array([3]) }] } },
      },
    };
    await db.client.send(new PutItemCommand({ TableName: table(), Item: item }));
    const got = await both<{ Item?: unknown }>(
      () => new GetItemCommand({ TableName: table(), Key: key("direct#1"), ConsistentRead: true }),
    );
    expect(got.direct).toEqual(got.sdk);
    expect(got.direct.Item).toEqual(item);
    expect(got.meta.httpStatusCode).toBe(200);
    expect(got.meta.attempts).toBe(1);

    const updated = (await db.client.send(
      new UpdateItemCommand({
        TableName: table(),
        Key: key("direct#1"),
        UpdateExpression: "ADD n :one DELETE ss :a",
        ExpressionAttributeValues: { ":one": { N: "1" }, ":a": { SS: ["a"] } },
        ReturnValues: "ALL_NEW",
      }),
    )) as { Attributes?: Record<string, unknown> };
    expect(updated.Attributes?.n).toEqual({ N: "43" });
    expect(updated.Attributes?.ss).toEqual({ SS: ["b"] });

    const batch = await both<{ Responses?: Record<string, unknown[]>; UnprocessedKeys?: unknown }>(
      () =>
        new BatchGetItemCommand({
          RequestItems: {
            [table()]: { Keys: [key("direct#1"), key("direct#absent")], ConsistentRead: true },
          },
        }),
    );
    expect(batch.direct).toEqual(batch.sdk);
    expect(batch.direct.Responses?.[table()]).toHaveLength(1);
  });

  it("throws the service's error by name, as a DynamoDBServiceException with its fault and status", async () => {
    const failed = await db.client
      .send(
        new UpdateItemCommand({
          TableName: table(),
          Key: key("direct#none"),
          UpdateExpression: "SET x = :x",
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeValues: { ":x": { N: "1" } },
        }),
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(failed).toBeInstanceOf(DynamoDBServiceException);
    expect((failed as DynamoDBServiceException).name).toBe("ConditionalCheckFailedException");
    expect((failed as DynamoDBServiceException).$fault).toBe("client");
    expect((failed as DynamoDBServiceException).$metadata.httpStatusCode).toBe(400);

    const missing = await db.client
      .send(new GetItemCommand({ TableName: "no-such-table", Key: key("x") }))
      .then(
        () => null,
        (e: unknown) => e as DynamoDBServiceException,
      );
    expect(missing?.name).toBe("ResourceNotFoundException");
  });

  it("counts each logical call once, by the SDK's command name, and other commands still go through the SDK", async () => {
    db.calls.reset();
    await db.client.send(new GetItemCommand({ TableName: table(), Key: key("direct#1") }));
    await db.client.send(
      new UpdateItemCommand({
        TableName: table(),
        Key: key("direct#2"),
        UpdateExpression: "SET x = :x",
        ExpressionAttributeValues: { ":x": { N: "1" } },
      }),
    );
    const described = await db.client.send(new DescribeTableCommand({ TableName: table() }));
    expect(described.Table?.TableName).toBe(table());
    expect(db.calls.snapshot()).toEqual({ GetItemCommand: 1, UpdateItemCommand: 1, DescribeTableCommand: 1 });
  });
});

/** A proxy to dynalite that answers the first `failures` requests with `status` and `type`. */
async function faultyProxy(target: string, failures: number, status: number, type: string) {
  let seen = 0;
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    seen++;
    if (seen <= failures) {
      req.resume();
      res.writeHead(status, { "content-type": "application/x-amz-json-1.0" });
      res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: "injected" }));
      return;
    }
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 500, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("retries of direct calls", () => {
  it("retries throttling and 5xx with the SDK's strategy, counted as one call", async () => {
    for (const [status, type] of [
      [400, "ProvisionedThroughputExceededException"],
      [500, "InternalServerError"],
    ] as const) {
      const proxy = await faultyProxy(db.endpoint, 2, status, type);
      const dynamo = createDynamo({ ...localDynamoOptions(proxy.endpoint), maxAttempts: 3 });
      try {
        const out = await dynamo.client.send(
          new GetItemCommand({ TableName: table(), Key: key("direct#1") }),
        );
        expect(out.Item?.pk).toEqual({ S: "direct#1" });
        expect(out.$metadata.attempts).toBe(3);
        expect(proxy.requests()).toBe(3);
        expect(dynamo.calls.snapshot()).toEqual({ GetItemCommand: 1 });
      } finally {
        dynamo.client.destroy();
        await proxy.close();
      }
    }
  });

  it("gives up after maxAttempts with the last error, and does not retry a client error", async () => {
    const proxy = await faultyProxy(db.endpoint, 10, 400, "ThrottlingException");
    const dynamo = createDynamo({ ...localDynamoOptions(proxy.endpoint), maxAttempts: 2 });
    try {
      const failed = await dynamo.client
        .send(new GetItemCommand({ TableName: table(), Key: key("direct#1") }))
        .then(
          () => null,
          (e: unknown) => e as DynamoDBServiceException,
        );
      expect(failed?.name).toBe("ThrottlingException");
      expect(failed?.$metadata.attempts).toBe(2);
      expect(proxy.requests()).toBe(2);
    } finally {
      dynamo.client.destroy();
      await proxy.close();
    }
    const refusing = await faultyProxy(db.endpoint, 10, 400, "ValidationException");
    const other = createDynamo({ ...localDynamoOptions(refusing.endpoint), maxAttempts: 3 });
    try {
      const failed = await other.client
        .send(new GetItemCommand({ TableName: table(), Key: key("direct#1") }))
        .then(
          () => null,
          (e: unknown) => e as DynamoDBServiceException,
        );
      expect(failed?.name).toBe("ValidationException");
      expect(refusing.requests()).toBe(1);
    } finally {
      other.client.destroy();
      await refusing.close();
    }
  });

  it("stops at once when the caller's signal aborts", async () => {
    const controller = new AbortController();
    controller.abort();
    const failed = await db.client
      .send(new GetItemCommand({ TableName: table(), Key: key("direct#1") }), {
        abortSignal: controller.signal,
      })
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(failed?.name).toBe("AbortError");
  });
});
