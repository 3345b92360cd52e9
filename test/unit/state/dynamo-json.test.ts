import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SignatureV4 } from "@smithy/signature-v4";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LOCAL_CREDENTIALS } from "../../../lib/state/dynamo.ts";
import { amzDate, resolveEndpoint, SigningTemplate, SigV4Signer } from "../../../lib/state/dynamo-json.ts";

/** node:crypto's SHA-256 (HMAC-SHA-256 with a secret) in the shape @smithy/signature-v4 takes. */
class Sha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: string | Uint8Array) {
    this.#hash = secret === undefined ? createHash("sha256") : createHmac("sha256", secret);
  }
  update(data: Uint8Array | string) {
    this.#hash.update(data);
  }
  async digest() {
    return new Uint8Array(this.#hash.digest());
  }
}

/** The SDK's signer as the oracle: same request, time and credentials, same headers out. */
async function oracle(input: {
  host: string;
  body: string;
  target: string;
  at: number;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}) {
  const signer = new SignatureV4({
    credentials: input.credentials,
    region: input.region,
    service: "dynamodb",
    sha256: Sha256 as never,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: "POST",
      protocol: "https:",
      hostname: input.host,
      path: "/",
      query: {},
      headers: {
        host: input.host,
        "content-type": "application/x-amz-json-1.0",
        "x-amz-target": input.target,
      },
      body: input.body,
    },
    { signingDate: new Date(input.at) },
  );
  return signed.headers as Record<string, string>;
}

describe("SigV4Signer", () => {
  it("formats the signing time as the protocol's basic ISO 8601", () => {
    expect(amzDate(Date.UTC(2026, 11, 1, 9, 5, 7, 999))).toBe("20261201T090507Z");
  });

  it("signs exactly as the SDK's SignatureV4 does, with and without a session token, across days", async () => {
    const signer = new SigV4Signer();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          at: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
          body: fc.json(),
          region: fc.constantFrom("us-east-1", "eu-west-1", "ap-southeast-2"),
          op: fc.constantFrom("UpdateItem", "BatchGetItem", "GetItem", "PutItem"),
          secret: fc.string({ minLength: 1, maxLength: 40 }),
          token: fc.option(
            fc.string({ minLength: 1, maxLength: 60 }).map((t) => t.trim() || "t"),
            { nil: undefined },
          ),
          host: fc.constantFrom("dynamodb.us-east-1.amazonaws.com", "127.0.0.1:8000"),
        }),
        async ({ at, body, region, op, secret, token, host }) => {
          const credentials = {
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: secret,
            ...(token ? { sessionToken: token } : {}),
          };
          const target = `DynamoDB_20120810.${op}`;
          const ours = signer.sign({
            method: "POST",
            host,
            path: "/",
            headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": target },
            body,
            region,
            service: "dynamodb",
            credentials,
            at,
          });
          const theirs = await oracle({ host, body, target, at, region, credentials });
          expect(ours.authorization).toBe(theirs.authorization);
          expect(ours["x-amz-date"]).toBe(theirs["x-amz-date"]);
          expect(ours["x-amz-security-token"]).toBe(theirs["x-amz-security-token"]);
        },
      ),
      { numRuns: 200 },
    );
  });
  it("signs every request of one template as the SDK does, bodies, tokens and times varying", async () => {
    const signer = new SigV4Signer();
    const host = "dynamodb.eu-west-1.amazonaws.com";
    const target = "DynamoDB_20120810.UpdateItem";
    const template = new SigningTemplate({
      method: "POST",
      host,
      path: "/",
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": target },
      region: "eu-west-1",
      service: "dynamodb",
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
        fc.json(),
        fc.option(fc.constantFrom("token-a", "token b", " token\tc "), { nil: undefined }),
        async (at, body, token) => {
          const credentials = {
            accessKeyId: "AKIDEXAMPLE",
            secretAccessKey: "secret",
            ...(token ? { sessionToken: token } : {}),
          };
          const ours = signer.signAs(template, body, credentials, at);
          const theirs = await oracle({ host, body, target, at, region: "eu-west-1", credentials });
          expect(ours.authorization).toBe(theirs.authorization);
          expect(ours["x-amz-security-token"]).toBe(theirs["x-amz-security-token"]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("resolveEndpoint", () => {
  it("takes the configured endpoint as it is, port in the signed host", async () => {
    const client = new DynamoDBClient({
      endpoint: "http://127.0.0.1:8123",
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
    });
    try {
      expect(await resolveEndpoint(client.config)).toEqual({
        protocol: "http:",
        hostname: "127.0.0.1",
        port: 8123,
        path: "/",
        host: "127.0.0.1:8123",
      });
    } finally {
      client.destroy();
    }
  });

  it("else the service's rules for the region, FIPS and dual-stack", async () => {
    const cases = [
      [{ region: "eu-west-1" }, "dynamodb.eu-west-1.amazonaws.com"],
      [{ region: "us-east-1", useFipsEndpoint: true }, "dynamodb-fips.us-east-1.amazonaws.com"],
      [{ region: "cn-north-1" }, "dynamodb.cn-north-1.amazonaws.com.cn"],
    ] as const;
    for (const [config, host] of cases) {
      const client = new DynamoDBClient({ ...config, credentials: LOCAL_CREDENTIALS });
      try {
        expect(await resolveEndpoint(client.config)).toEqual({
          protocol: "https:",
          hostname: host,
          path: "/",
          host,
        });
      } finally {
        client.destroy();
      }
    }
  });
});
