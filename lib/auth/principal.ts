/**
 * The principal comes only from the API Gateway (HTTP API, payload v2) authorizer context
 * (README.md § Words): the JWT `sub` under the JWT authorizer (the local stack's is `iss: "local"`),
 * or the caller ARN under the IAM authorizer. Nothing a client sends in headers or the query counts.
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

/** The principal, or null when the authorizer context names none. */
export function findPrincipal(event: AuthorizerEvent): Principal | null {
  const authorizer = asRecord(event.requestContext?.authorizer);
  if (!authorizer) return null;
  const sub = asRecord(asRecord(authorizer.jwt)?.claims)?.sub;
  if (sub !== undefined) return valid(sub) ? { id: sub, via: "jwt" } : null;
  const arn = asRecord(authorizer.iam)?.userArn;
  if (arn !== undefined) return valid(arn) ? { id: arn, via: "iam" } : null;
  return null;
}

/** The principal, or 401 UNAUTHENTICATED. */
export function requirePrincipal(event: AuthorizerEvent): Principal {
  const principal = findPrincipal(event);
  if (!principal) throw new ServiceError("UNAUTHENTICATED");
  return principal;
}
