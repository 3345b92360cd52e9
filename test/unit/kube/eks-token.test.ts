import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  EksTokenCache,
  mintEksToken,
  TOKEN_REFRESH_MARGIN_MS,
  TOKEN_VALIDITY_MS,
} from "../../../lib/kube/eks-token.ts";

const CREDS = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "session/token+with=chars",
};
const NOW = Date.parse("2026-11-29T12:34:56.789Z");

function decode(token: string): URL {
  expect(token.startsWith("k8s-aws-v1.")).toBe(true);
  const b64 = token.slice("k8s-aws-v1.".length);
  expect(b64).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(b64, "base64url").toString("utf8"));
}

const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data, "utf8").digest();

/** SigV4 query-string signature computed independently from the AWS documentation. */
function expectedSignature(url: URL, clusterName: string, secret: string): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== "X-Amz-Signature");
  const canonicalQuery = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonicalRequest = [
    "GET",
    "/",
    canonicalQuery,
    `host:${url.host}`,
    `x-k8s-aws-id:${clusterName}`,
    "",
    "host;x-k8s-aws-id",
    createHash("sha256").update("").digest("hex"),
  ].join("\n");
  const amzDate = url.searchParams.get("X-Amz-Date") as string;
  const [, date, region, service] = (url.searchParams.get("X-Amz-Credential") as string).split(
    "/",
  ) as string[];
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  const kDate = hmac(`AWS4${secret}`, date as string);
  const kRegion = hmac(kDate, region as string);
  const kService = hmac(kRegion, service as string);
  const kSigning = hmac(kService, "aws4_request");
  return createHmac("sha256", kSigning).update(stringToSign).digest("hex");
}

describe("mintEksToken", () => {
  it("presigns STS GetCallerIdentity with the cluster header, 60 s expiry and the right scope", async () => {
    const { token, expiresAt } = await mintEksToken(
      { clusterName: "prod-eu", region: "eu-west-1" },
      CREDS,
      NOW,
    );
    const url = decode(token);
    expect(url.origin).toBe("https://sts.eu-west-1.amazonaws.com");
    expect(url.pathname).toBe("/");
    const q = url.searchParams;
    expect(q.get("Action")).toBe("GetCallerIdentity");
    expect(q.get("Version")).toBe("2011-06-15");
    expect(q.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    expect(q.get("X-Amz-Credential")).toBe("AKIDEXAMPLE/20261129/eu-west-1/sts/aws4_request");
    expect(q.get("X-Amz-Date")).toBe("20261129T123456Z");
    expect(q.get("X-Amz-Expires")).toBe("60");
    expect(q.get("X-Amz-SignedHeaders")).toBe("host;x-k8s-aws-id");
    expect(q.get("X-Amz-Security-Token")).toBe(CREDS.sessionToken);
    expect(q.get("X-Amz-Signature")).toBe(expectedSignature(url, "prod-eu", CREDS.secretAccessKey));
    expect(expiresAt).toBe(NOW + TOKEN_VALIDITY_MS - TOKEN_REFRESH_MARGIN_MS);
  });

  it("signs the cluster name: another name gives another, still valid, signature", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,30}$/),
        fc.constantFrom("us-east-1", "ap-southeast-2", "eu-central-1"),
        async (clusterName, region) => {
          const url = decode((await mintEksToken({ clusterName, region }, CREDS, NOW)).token);
          const sig = url.searchParams.get("X-Amz-Signature");
          expect(sig).toBe(expectedSignature(url, clusterName, CREDS.secretAccessKey));
          expect(sig).not.toBe(expectedSignature(url, `${clusterName}x`, CREDS.secretAccessKey));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("EksTokenCache", () => {
  it("reuses a token until shortly before its 15 minutes end, then mints a new one", async () => {
    let now = NOW;
    let resolved = 0;
    const cache = new EksTokenCache(
      async () => {
        resolved++;
        return CREDS;
      },
      () => now,
    );
    const req = { clusterName: "c1", region: "us-east-1" };
    const first = await cache.get(req);
    now += 13 * 60_000;
    expect(await cache.get(req)).toBe(first);
    expect(resolved).toBe(1);
    now += 60_001; // past 15 min − 60 s
    const second = await cache.get(req);
    expect(second).not.toBe(first);
    expect(decode(second).searchParams.get("X-Amz-Date")).toBe("20261129T124856Z");
    expect(await cache.get({ clusterName: "c2", region: "us-east-1" })).not.toBe(second);
  });

  it("does not cache a failed mint", async () => {
    let fail = true;
    const cache = new EksTokenCache(
      async () => {
        if (fail) throw new Error("no credentials");
        return CREDS;
      },
      () => NOW,
    );
    await expect(cache.get({ clusterName: "c", region: "us-east-1" })).rejects.toThrow();
    fail = false;
    await expect(cache.get({ clusterName: "c", region: "us-east-1" })).resolves.toMatch(/^k8s-aws-v1\./);
  });
});
