/**
 * Principal IDs under the IAM authorizer (docs/identity.md), from authorizer contexts shaped as
 * API Gateway HTTP API (payload 2.0) delivers them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findPrincipal } from "../../../lib/auth/principal.ts";

const ACCOUNT = "111122223333";

/** `requestContext.authorizer.iam` as the HTTP API fills it for a SigV4-signed request. */
function iamContext(fields: Record<string, unknown>) {
  return {
    version: "2.0",
    routeKey: "GET /namespaces/{namespaceId}/agents/{agentId}/deployments",
    requestContext: {
      accountId: ACCOUNT,
      apiId: "a1b2c3d4e5",
      authorizer: {
        iam: {
          accessKey: "ASIAEXAMPLEKEY000001",
          accountId: ACCOUNT,
          callerId: "AROAEXAMPLEROLEID0001:session",
          cognitoIdentity: null,
          principalOrgId: "o-exampleorg1",
          userArn: `arn:aws:iam::${ACCOUNT}:user/alice`,
          userId: "AIDAEXAMPLEUSERID0001",
          ...fields,
        },
      },
      http: { method: "GET", path: "/health", protocol: "HTTP/1.1", sourceIp: "192.0.2.1", userAgent: "occ" },
      requestId: "Abc123=",
      stage: "$default",
    },
  };
}

const assumed = (role: string, session: string, partition = "aws") =>
  `arn:${partition}:sts::${ACCOUNT}:assumed-role/${role}/${session}`;

describe("assumed-role callers", () => {
  it("are their role, whatever the session name", () => {
    const a = findPrincipal(
      iamContext({ userArn: assumed("Operators", "alice"), callerId: "AROAEXAMPLE:alice" }),
    );
    const b = findPrincipal(
      iamContext({ userArn: assumed("Operators", "bob"), callerId: "AROAEXAMPLE:bob" }),
    );
    expect(a).toEqual({ id: `arn:aws:iam::${ACCOUNT}:role/Operators`, via: "iam" });
    expect(b).toEqual(a);
  });

  it("keep the partition (GovCloud, China)", () => {
    expect(findPrincipal(iamContext({ userArn: assumed("ops", "s1", "aws-us-gov") }))?.id).toBe(
      `arn:aws-us-gov:iam::${ACCOUNT}:role/ops`,
    );
    expect(findPrincipal(iamContext({ userArn: assumed("ops", "s1", "aws-cn") }))?.id).toBe(
      `arn:aws-cn:iam::${ACCOUNT}:role/ops`,
    );
  });

  it("append sts:SourceIdentity when the session carries one", () => {
    const p = findPrincipal(
      iamContext({ userArn: assumed("Operators", "anything"), sourceIdentity: "alice@example.com" }),
    );
    expect(p?.id).toBe(`arn:aws:iam::${ACCOUNT}:role/Operators#alice@example.com`);
  });

  it("ignore an absent or null source identity, refuse a malformed one", () => {
    const role = `arn:aws:iam::${ACCOUNT}:role/ops`;
    expect(findPrincipal(iamContext({ userArn: assumed("ops", "s"), sourceIdentity: null }))?.id).toBe(role);
    expect(findPrincipal(iamContext({ userArn: assumed("ops", "s"), sourceIdentity: "" }))?.id).toBe(role);
    for (const bad of ["a", "x".repeat(65), "has space", "a#b", 42, ["alice"]]) {
      expect(findPrincipal(iamContext({ userArn: assumed("ops", "s"), sourceIdentity: bad }))).toBeNull();
    }
  });

  it("from a Cognito identity pool are the role plus the identity ID (the pool's users stay apart)", () => {
    const cognito = (identityId: string) =>
      iamContext({
        userArn: assumed("Cognito_PoolAuth_Role", "CognitoIdentityCredentials"),
        cognitoIdentity: {
          amr: ["authenticated", "cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf"],
          identityId,
          identityPoolId: "eu-west-1:0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
        },
      });
    const id1 = "eu-west-1:11111111-2222-3333-4444-555555555555";
    const id2 = "eu-west-1:66666666-7777-8888-9999-000000000000";
    expect(findPrincipal(cognito(id1))?.id).toBe(
      `arn:aws:iam::${ACCOUNT}:role/Cognito_PoolAuth_Role#cognito:${id1}`,
    );
    expect(findPrincipal(cognito(id2))?.id).not.toBe(findPrincipal(cognito(id1))?.id);
    expect(findPrincipal(cognito("not an id"))).toBeNull();
  });

  it("map every session name of a role to one ID (independent oracle: split the ARN)", () => {
    const name = fc.stringMatching(/^[\w+=,.@-]{1,64}$/);
    fc.assert(
      fc.property(name, name, fc.constantFrom("aws", "aws-cn", "aws-us-gov"), (role, session, partition) => {
        const arn = assumed(role, session, partition);
        const parts = arn.split(":");
        const [, roleName] = (parts[5] as string).split("/");
        const expected = `arn:${parts[1]}:iam::${parts[4]}:role/${roleName}`;
        expect(findPrincipal(iamContext({ userArn: arn }))).toEqual({ id: expected, via: "iam" });
        expect(findPrincipal(iamContext({ userArn: arn }))?.id).not.toContain(`/${session}/`);
      }),
    );
  });

  it("never lets the session name reach the ID (session names that look like IDs included)", () => {
    for (const session of ["alice", "admin", `${ACCOUNT}`, "role", "Operators"]) {
      const id = findPrincipal(iamContext({ userArn: assumed("Operators", session) }))?.id;
      expect(id).toBe(`arn:aws:iam::${ACCOUNT}:role/Operators`);
    }
  });
});

describe("other IAM callers", () => {
  it("IAM users (with and without a path), root and federated users keep their ARN", () => {
    for (const arn of [
      `arn:aws:iam::${ACCOUNT}:user/alice`,
      `arn:aws:iam::${ACCOUNT}:user/division/team/alice`,
      `arn:aws:iam::${ACCOUNT}:root`,
      `arn:aws:sts::${ACCOUNT}:federated-user/bob`,
    ]) {
      expect(findPrincipal(iamContext({ userArn: arn }))).toEqual({ id: arn, via: "iam" });
    }
  });

  it("refuses ARNs of other shapes instead of guessing", () => {
    for (const arn of [
      `arn:aws:sts::${ACCOUNT}:assumed-role/ops`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/ops/s/extra`,
      `arn:aws:sts::${ACCOUNT}:assumed-role//s`,
      `arn:aws:iam::${ACCOUNT}:role/ops`,
      `arn:aws:s3:::bucket`,
      `arn:aws:sts::1234:assumed-role/ops/s`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/ops/s\n`,
      `arn:aws:sts::${ACCOUNT}:assumed-role/o#ps/s`,
      "",
    ]) {
      expect(findPrincipal(iamContext({ userArn: arn }))).toBeNull();
    }
    expect(findPrincipal(iamContext({ userArn: undefined }))).toBeNull();
  });

  it("reads neither callerId, userId nor principalOrgId as identity", () => {
    const base = findPrincipal(iamContext({}));
    const varied = findPrincipal(
      iamContext({
        callerId: "AIDAOTHER",
        userId: "AIDAOTHER",
        principalOrgId: "o-other",
        accessKey: "AKIAX",
      }),
    );
    expect(varied).toEqual(base);
  });
});
