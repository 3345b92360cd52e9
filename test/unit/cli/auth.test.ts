/**
 * `--auth iam`: requests signed with SigV4 (service execute-api), checked against an independent
 * recomputation of the signature with node:crypto from the published algorithm; region from the
 * endpoint host or --region; usage errors before anything is sent.
 */
import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { regionFromHost, sigv4Authorizer } from "../../../cli/auth.ts";
import { base, fail, fakeApiSuite, occ, ok, page, type SeenRequest } from "./harness.ts";

const CREDS = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "session-token-example",
};
const NOW = Date.parse("2026-11-29T12:00:00Z");

const sha256hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (key: Buffer | string, s: string) => createHmac("sha256", key).update(s, "utf8").digest();

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept, everything else %XX). */
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The signature recomputed from the request as the server received it. */
function expectedSignature(req: SeenRequest, region: string, secret: string): string {
  const auth = String(req.headers.authorization);
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/execute-api\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (m === null) throw new Error(`not a SigV4 authorization header: ${auth}`);
  const [, , day, reg, signedHeaders] = m;
  expect(reg).toBe(region);
  const amzDate = String(req.headers["x-amz-date"]);
  expect(amzDate.slice(0, 8)).toBe(day);
  const names = signedHeaders!.split(";");
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n]).trim()}\n`).join("");
  const query = [...req.query.entries()]
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const path = req.path
    .split("/")
    .map((seg) => enc(enc(decodeURIComponent(seg))))
    .join("/");
  const canonical = ["GET", path, query, canonicalHeaders, signedHeaders, sha256hex("")].join("\n");
  const scope = `${day}/${region}/execute-api/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256hex(canonical)].join("\n");
  let key = hmac(`AWS4${secret}`, day!);
  for (const part of [region, "execute-api", "aws4_request"]) key = hmac(key, part);
  return createHmac("sha256", key).update(toSign, "utf8").digest("hex");
}

const api = fakeApiSuite();

const LOGS = `${base("d3")}/runtime/logs`;

describe("--auth iam", () => {
  it("signs every request with SigV4 that an independent recomputation accepts", async () => {
    api.routes.set(LOGS, () => ok(page([])));
    const r = await occ(
      api,
      [
        "agent",
        "logs",
        "support",
        "--deployment",
        "d3",
        "--source",
        "gateway",
        "--since-time",
        "2026-11-29T11:00:00Z",
        "--level",
        "warn",
        "--auth",
        "iam",
        "--region",
        "eu-west-1",
      ],
      { credentials: async () => CREDS, now: NOW, env: { OCC_TOKEN: undefined } },
    );
    expect(r.code).toBe(0);
    const req = api.requests[0]!;
    expect(req.headers["x-amz-date"]).toBe("20261129T120000Z");
    expect(req.headers["x-amz-security-token"]).toBe(CREDS.sessionToken);
    const auth = String(req.headers.authorization);
    expect(auth).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261129\/eu-west-1\/execute-api\/aws4_request, /,
    );
    expect(auth).toContain("SignedHeaders=accept;host;x-amz-content-sha256;x-amz-date;x-amz-security-token");
    expect(auth.endsWith(`Signature=${expectedSignature(req, "eu-west-1", CREDS.secretAccessKey)}`)).toBe(
      true,
    );
    expect(JSON.stringify(req.headers)).not.toContain(CREDS.secretAccessKey);
  });

  it("signs any query the CLI can send (property)", async () => {
    const authorize = sigv4Authorizer({
      region: "us-east-2",
      credentials: async () => CREDS,
      now: () => NOW,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom("source", "pod", "cursor", "sinceTime", "tailLines", "container", "minLevel"),
          fc.string({ unit: "grapheme-ascii", maxLength: 24 }),
        ),
        async (params) => {
          const url = new URL(
            "https://abc123.execute-api.us-east-2.amazonaws.com/namespaces/a/agents/b/deployments/c/runtime/logs",
          );
          for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
          const headers = await authorize(url, { accept: "application/json" });
          const seen: SeenRequest = {
            method: "GET",
            path: url.pathname,
            query: url.searchParams,
            headers: { ...headers, host: url.host },
          };
          expect(
            headers.authorization!.endsWith(
              `Signature=${expectedSignature(seen, "us-east-2", CREDS.secretAccessKey)}`,
            ),
          ).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("takes the region from an execute-api host, and refuses a custom domain without --region", async () => {
    expect(regionFromHost("abc123.execute-api.eu-central-1.amazonaws.com")).toBe("eu-central-1");
    expect(regionFromHost("api.example.com")).toBeUndefined();
    const r = await occ(api, ["agent", "deployments", "support", "--auth", "iam"], {
      credentials: async () => CREDS,
      env: { OCC_ENDPOINT: "https://api.example.com" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--auth iam needs the API's region");
    expect(api.requests).toHaveLength(0);
    const token = await occ(api, ["agent", "deployments", "support", "--auth", "iam", "--token", "x"]);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain("--token applies only to --auth token");
  });

  it("says what went wrong when there are no credentials, and hints on a gateway 403", async () => {
    const none = await occ(api, ["agent", "deployments", "support", "--region", "eu-west-1"], {
      env: { OCC_AUTH: "iam", OCC_TOKEN: undefined },
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      "occ: could not sign the request with AWS credentials: no AWS credentials in this test\n",
    );
    api.routes.set(base(), () => ({ status: 403, body: { message: "Forbidden" } }));
    const denied = await occ(
      api,
      ["agent", "deployments", "support", "--auth", "iam", "--region", "eu-west-1"],
      {
        credentials: async () => CREDS,
      },
    );
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("HTTP 403: Forbidden\nhint: API Gateway refused the signature");
  });
});

describe("error hints", () => {
  it("401 names OCC_TOKEN and --token; 403 names the permissions the route needs", async () => {
    api.routes.set(LOGS, () => fail(401, "UNAUTHENTICATED", "Authentication is required."));
    const r401 = await occ(api, ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway"]);
    expect(r401.stderr).toContain("hint: pass a token with --token or set OCC_TOKEN");
    api.routes.set(LOGS, () => fail(403, "FORBIDDEN", "You are not allowed to perform this action."));
    const r403 = await occ(api, ["agent", "logs", "support", "--deployment", "d3", "--source", "gateway"]);
    expect(r403.stderr).toContain("hint: this needs the read_logs and read permissions on the agent");
    api.routes.set(`${base("d3")}/runtime`, () =>
      fail(403, "FORBIDDEN", "You are not allowed to perform this action."),
    );
    const status = await occ(api, ["agent", "runtime", "support", "--deployment", "d3"]);
    expect(status.stderr).toContain("hint: this needs the read and operate permissions on the agent");
  });

  it("prints an unknown command on plain lines, without escaped newlines", async () => {
    const r = await occ(api, ["agent", "lgos"]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("\\x0A");
    expect(r.stderr.split("\n")[0]).toBe("occ: unknown command 'lgos'");
  });
});
