/**
 * Builds the API Gateway HTTP API (payload format 2.0) event for one request, as the real service
 * would: lower-cased headers with duplicates comma-joined, `cookie` moved to `cookies`, query
 * parameters decoded with duplicates comma-joined, decoded `pathParameters`, and the JWT authorizer
 * context. Locally the "JWT" is `Bearer local:<principal>`, trusted only here. Pure: time, request
 * ID and client address are inputs.
 */
import { createHash } from "node:crypto";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { RouteMatch } from "./routes.ts";

/** The issuer the local authorizer writes into the claims. */
export const LOCAL_ISSUER = "local";
export const LOCAL_ACCOUNT_ID = "000000000000";
export const LOCAL_API_ID = "local";

export interface JwtAuthorizerContext {
  jwt: { claims: Record<string, string>; scopes: null };
}

/** The v2 event, with the authorizer context present only when a principal was presented. */
export type HttpApiEvent = APIGatewayProxyEventV2 & {
  requestContext: APIGatewayProxyEventV2["requestContext"] & { authorizer?: JwtAuthorizerContext };
};

export interface IncomingRequest {
  method: string;
  /** The request target as sent: raw path plus optional `?query`. */
  target: string;
  /** Node's `rawHeaders`: name, value, name, value… in arrival order and case. */
  rawHeaders: readonly string[];
  sourceIp: string;
  protocol: string;
  body?: string;
}

export interface EventContext {
  route: RouteMatch;
  requestId: string;
  now: Date;
}

/** Splits a request target into the raw path and the raw query string (no `?`). */
export function splitTarget(target: string): { rawPath: string; rawQueryString: string } {
  const hash = target.indexOf("#");
  const clean = hash >= 0 ? target.slice(0, hash) : target;
  const q = clean.indexOf("?");
  return q >= 0
    ? { rawPath: clean.slice(0, q), rawQueryString: clean.slice(q + 1) }
    : { rawPath: clean, rawQueryString: "" };
}

/** Form-decoding (`+` is a space), keeping a malformed escape as sent. */
function decodeQueryComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** API Gateway's `queryStringParameters`: decoded, duplicates comma-joined; undefined when empty. */
export function parseQueryParameters(rawQueryString: string): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  let any = false;
  for (const part of rawQueryString.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const key = decodeQueryComponent(eq >= 0 ? part.slice(0, eq) : part);
    const value = eq >= 0 ? decodeQueryComponent(part.slice(eq + 1)) : "";
    params[key] = Object.hasOwn(params, key) ? `${params[key]},${value}` : value;
    any = true;
  }
  return any ? params : undefined;
}

/** Lower-cased headers, duplicates comma-joined; the `cookie` header becomes `cookies`. */
export function collectHeaders(rawHeaders: readonly string[]): {
  headers: Record<string, string>;
  cookies: string[];
} {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    if (name === "cookie") {
      for (const c of value.split(";")) {
        const trimmed = c.trim();
        if (trimmed !== "") cookies.push(trimmed);
      }
      continue;
    }
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]},${value}` : value;
  }
  return { headers, cookies };
}

const LOCAL_TOKEN = /^bearer\s+local:(\S+)\s*$/i;

/** The principal of `Authorization: Bearer local:<principal>`, or null for any other header. */
export function localPrincipal(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const m = LOCAL_TOKEN.exec(authorization.trim());
  return m ? (m[1] as string) : null;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad2 = (n: number) => String(n).padStart(2, "0");

/** `requestContext.time` as API Gateway writes it: `29/Nov/2026:12:00:00 +0000`. */
export function formatRequestTime(now: Date): string {
  return (
    `${pad2(now.getUTCDate())}/${MONTHS[now.getUTCMonth()]}/${now.getUTCFullYear()}:` +
    `${pad2(now.getUTCHours())}:${pad2(now.getUTCMinutes())}:${pad2(now.getUTCSeconds())} +0000`
  );
}

/** An X-Ray trace header, `Root=1-<epoch hex>-<24 hex>`, derived from the request ID. */
function traceId(ctx: EventContext): string {
  const epoch = Math.floor(ctx.now.getTime() / 1000)
    .toString(16)
    .padStart(8, "0");
  return `Root=1-${epoch}-${createHash("sha256").update(ctx.requestId).digest("hex").slice(0, 24)}`;
}

export function buildHttpApiEvent(req: IncomingRequest, ctx: EventContext): HttpApiEvent {
  const { rawPath, rawQueryString } = splitTarget(req.target);
  const { headers, cookies } = collectHeaders(req.rawHeaders);
  const host = headers.host ?? "127.0.0.1";
  const port = host.includes(":") ? host.slice(host.lastIndexOf(":") + 1) : "80";
  // What API Gateway adds in front of the integration.
  headers["x-forwarded-for"] = headers["x-forwarded-for"]
    ? `${headers["x-forwarded-for"]}, ${req.sourceIp}`
    : req.sourceIp;
  headers["x-forwarded-port"] = port;
  headers["x-forwarded-proto"] = "http";
  headers["x-amzn-trace-id"] = traceId(ctx);
  const queryStringParameters = parseQueryParameters(rawQueryString);
  const principal = localPrincipal(headers.authorization);
  const hasParams = Object.keys(ctx.route.pathParameters).length > 0;
  const event: HttpApiEvent = {
    version: "2.0",
    routeKey: ctx.route.route.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      ...(principal !== null
        ? { authorizer: { jwt: { claims: { iss: LOCAL_ISSUER, sub: principal }, scopes: null } } }
        : {}),
      domainName: host,
      domainPrefix: host.split(".")[0] ?? host,
      http: {
        method: req.method,
        path: rawPath,
        protocol: req.protocol,
        sourceIp: req.sourceIp,
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: ctx.requestId,
      routeKey: ctx.route.route.routeKey,
      stage: "$default",
      time: formatRequestTime(ctx.now),
      timeEpoch: ctx.now.getTime(),
    },
    ...(hasParams ? { pathParameters: { ...ctx.route.pathParameters } } : {}),
    ...(req.body !== undefined && req.body !== "" ? { body: req.body } : {}),
    isBase64Encoded: false,
  };
  return event;
}
