/**
 * The principal comes only from the API Gateway (HTTP API, payload v2) authorizer context
 * (docs/identity.md): the JWT `sub` under the JWT authorizer (the local stack's is `iss: "local"`),
 * or the IAM caller under the IAM authorizer. Nothing a client sends in headers or the query counts.
 *
 * Under IAM, an assumed-role caller is its role, never its session: the session name is whatever
 * the caller passed to `sts:AssumeRole`, so keying grants or limits on it would let anyone who may
 * assume the role pick another session's identity or reset its rate limit. What STS vouches for
 * beyond the role (`sts:SourceIdentity`, which a session cannot change once set, or the Cognito
 * identity of an identity-pool session) is appended after `#`. IAM users, root and federated users
 * keep their ARN.
 */
import { ServiceError } from "../api/errors.ts";

export interface Principal {
  id: string;
  via: "jwt" | "iam";
}

/** The part of an API Gateway v2 event this reads; the rest of the event is irrelevant here. */
export interface AuthorizerEvent {
  requestContext?: { authorizer?: unknown } | undefined;
}

/** UTF-8 bytes: the ID becomes part of DynamoDB keys (≤ 2048 bytes with their prefixes). */
const MAX_PRINCIPAL_BYTES = 512;
const utf8 = new TextEncoder();
// No control characters: the ID is written to audit records and compared byte for byte.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function valid(id: unknown): id is string {
  return (
    typeof id === "string" &&
    id.length > 0 &&
    !CONTROL.test(id) &&
    utf8.encode(id).length <= MAX_PRINCIPAL_BYTES
  );
}

/** IAM names: role, user and session names use these characters (IAM's own `[\w+=,.@-]`). */
const IAM_NAME = "[\\w+=,.@-]{1,128}";
const PARTITION = "aws(?:-[a-z]+)*";
const ACCOUNT = "\\d{12}";
/** `arn:<partition>:sts::<account>:assumed-role/<role name>/<session name>`. */
const ASSUMED_ROLE = new RegExp(
  `^arn:(${PARTITION}):sts::(${ACCOUNT}):assumed-role/(${IAM_NAME})/(${IAM_NAME})$`,
);
/** IAM users (with a path), the account root, and federated users keep their ARN. */
const KEPT_AS_IS = new RegExp(
  `^arn:${PARTITION}:(?:iam::${ACCOUNT}:(?:root|user/(?:[\\x21-\\x7e]{1,512}/)?${IAM_NAME})` +
    `|sts::${ACCOUNT}:federated-user/${IAM_NAME})$`,
);
/** `sts:SourceIdentity`: 2–64 characters of `[\w+=,.@-]` (STS's rule). */
const SOURCE_IDENTITY = /^[\w+=,.@-]{2,64}$/;
/** A Cognito identity ID: `<region>:<uuid>`. */
const COGNITO_IDENTITY = /^[a-z]{2}(?:-[a-z]+)+-\d:[0-9a-f-]{36}$/;

/**
 * The principal ID of an IAM caller (docs/identity.md), or null when the context is malformed.
 * Any field that is present but malformed refuses the caller rather than being ignored, so a
 * principal can never silently collapse into a broader one.
 */
export function iamPrincipalId(iam: Record<string, unknown>): string | null {
  const arn = iam.userArn;
  if (typeof arn !== "string") return null;
  const assumed = ASSUMED_ROLE.exec(arn);
  let id: string;
  if (assumed) {
    const [, partition, account, role] = assumed;
    // The assumed-role ARN carries no role path, and role names are unique within an account.
    id = `arn:${partition}:iam::${account}:role/${role}`;
  } else if (KEPT_AS_IS.test(arn)) {
    return arn;
  } else {
    return null;
  }
  const source = iam.sourceIdentity;
  if (source !== undefined && source !== null && source !== "") {
    if (typeof source !== "string" || !SOURCE_IDENTITY.test(source)) return null;
    return `${id}#${source}`;
  }
  const cognito = asRecord(iam.cognitoIdentity);
  if (cognito) {
    // An identity-pool session: every user of the pool assumes the same role, so the role alone
    // would merge them. The identity ID is set by Cognito, not by the caller.
    const identityId = cognito.identityId;
    if (typeof identityId !== "string" || !COGNITO_IDENTITY.test(identityId)) return null;
    return `${id}#cognito:${identityId}`;
  }
  return id;
}

/** The principal, or null when the authorizer context names none. */
export function findPrincipal(event: AuthorizerEvent): Principal | null {
  const authorizer = asRecord(event.requestContext?.authorizer);
  if (!authorizer) return null;
  const sub = asRecord(asRecord(authorizer.jwt)?.claims)?.sub;
  if (sub !== undefined) return valid(sub) ? { id: sub, via: "jwt" } : null;
  const iam = asRecord(authorizer.iam);
  if (iam) {
    const id = iamPrincipalId(iam);
    return valid(id) ? { id, via: "iam" } : null;
  }
  return null;
}

/** The principal, or 401 UNAUTHENTICATED. */
export function requirePrincipal(event: AuthorizerEvent): Principal {
  const principal = findPrincipal(event);
  if (!principal) throw new ServiceError("UNAUTHENTICATED");
  return principal;
}
