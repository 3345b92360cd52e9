/**
 * Interprets a Lambda result as API Gateway HTTP API (payload format 2.0) does: a structured result
 * is used as is, anything else becomes a 200 JSON body; a malformed one is API Gateway's own 500.
 * Pure.
 */

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** API Gateway's own error bodies (not the service's envelope). */
export const gatewayError = (statusCode: number, message: string): HttpResponse => ({
  statusCode,
  headers: { "content-type": "application/json" },
  body: Buffer.from(JSON.stringify({ message })),
});

export const NOT_FOUND = () => gatewayError(404, "Not Found");
export const INTERNAL_ERROR = () => gatewayError(500, "Internal Server Error");
export const SERVICE_UNAVAILABLE = () => gatewayError(503, "Service Unavailable");

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function fromLambdaResult(result: unknown): HttpResponse {
  if (!isRecord(result) || !("statusCode" in result)) {
    // No statusCode: the whole result is the JSON body.
    if (result === undefined) return INTERNAL_ERROR();
    const body = typeof result === "string" ? result : JSON.stringify(result);
    return { statusCode: 200, headers: { "content-type": "application/json" }, body: Buffer.from(body) };
  }
  const { statusCode, headers, body, isBase64Encoded, cookies } = result;
  if (
    typeof statusCode !== "number" ||
    !Number.isInteger(statusCode) ||
    statusCode < 100 ||
    statusCode > 599
  ) {
    return INTERNAL_ERROR();
  }
  const out: Record<string, string | string[]> = {};
  if (headers !== undefined) {
    if (!isRecord(headers)) return INTERNAL_ERROR();
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
        return INTERNAL_ERROR();
      }
      out[name.toLowerCase()] = String(value);
    }
  }
  if (cookies !== undefined) {
    if (!Array.isArray(cookies) || !cookies.every((c) => typeof c === "string")) return INTERNAL_ERROR();
    if (cookies.length > 0) out["set-cookie"] = cookies;
  }
  if (body !== undefined && body !== null && typeof body !== "string") return INTERNAL_ERROR();
  const text = typeof body === "string" ? body : "";
  return {
    statusCode,
    headers: out,
    body: isBase64Encoded === true ? Buffer.from(text, "base64") : Buffer.from(text, "utf8"),
  };
}
