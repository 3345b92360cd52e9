import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findPrincipal, requirePrincipal } from "../../../lib/auth/principal.ts";
import { failureOf } from "../../support/failure.ts";

const jwt = (claims: Record<string, unknown>) => ({
  requestContext: { authorizer: { jwt: { claims, scopes: null } } },
});
const iam = (userArn: unknown) => ({
  requestContext: { authorizer: { iam: { userArn, accountId: "123" } } },
});

describe("principal extraction", () => {
  it("takes the JWT sub (the local stack's issuer included)", () => {
    expect(findPrincipal(jwt({ iss: "local", sub: "alice" }))).toEqual({ id: "alice", via: "jwt" });
    expect(findPrincipal(jwt({ iss: "https://idp.example", sub: "00u1abc|x" }))).toEqual({
      id: "00u1abc|x",
      via: "jwt",
    });
  });

  it("takes an IAM user's ARN as it is", () => {
    const arn = "arn:aws:iam::123456789012:user/ops/alice";
    expect(findPrincipal(iam(arn))).toEqual({ id: arn, via: "iam" });
  });

  it("answers 401 when the authorizer context names nobody", () => {
    const events: unknown[] = [
      {},
      { requestContext: {} },
      { requestContext: { authorizer: null } },
      { requestContext: { authorizer: { lambda: { sub: "alice" } } } },
      jwt({ iss: "local" }),
      jwt({ sub: "" }),
      jwt({ sub: 42 }),
      jwt({ sub: ["alice"] }),
      jwt({ sub: "ali\nce" }),
      jwt({ sub: "a".repeat(513) }),
      jwt({ sub: "é".repeat(257) }),
      iam(""),
      iam(null),
      iam("arn:aws:sts::123456789012:assumed-role/ops"),
      iam("arn:aws:sts::12345678901:assumed-role/ops/s"),
      iam("not-an-arn"),
    ];
    for (const event of events) {
      expect(findPrincipal(event as never)).toBeNull();
      const e = failureOf(() => requirePrincipal(event as never));
      expect(e.code).toBe("UNAUTHENTICATED");
      expect(e.status).toBe(401);
    }
  });

  it("never reads identity from headers or the query", () => {
    const event = {
      headers: { authorization: "Bearer local:mallory", "x-principal": "mallory" },
      requestContext: {},
    };
    expect(findPrincipal(event as never)).toBeNull();
  });

  it("returns any well-formed sub unchanged", () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1, maxLength: 120 })
          .filter((s) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s)),
        (sub) => {
          expect(findPrincipal(jwt({ sub }))).toEqual({ id: sub, via: "jwt" });
        },
      ),
    );
  });
});
