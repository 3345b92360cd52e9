/**
 * Response builders for the HTTP contract (docs/api.md § Common): the success and error envelopes, the
 * headers every response carries, and the download attachment.
 */
import { randomUUID } from "node:crypto";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { ERROR_CATALOG, type ServiceError } from "../api/errors.ts";
import type { SourceResult } from "../routes/sources/port.ts";

export type HttpResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
};

/** Server-generated; a client-sent request ID is never used. */
export const newRequestId = (): string => `req_${randomUUID()}`;

export const baseHeaders = (requestId: string): Record<string, string> => ({
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-request-id": requestId,
});

export const jsonResult = (statusCode: number, body: unknown, requestId: string): HttpResult =>
  serializedJsonResult(statusCode, JSON.stringify(body), requestId);

/** A JSON body that is already serialized (the log page: its size was checked on these bytes). */
export function serializedJsonResult(statusCode: number, body: string, requestId: string): HttpResult {
  return {
    statusCode,
    headers: { ...baseHeaders(requestId), "content-type": "application/json; charset=utf-8" },
    body,
  };
}

export const successResult = (data: unknown, requestId: string): HttpResult =>
  jsonResult(200, { data, meta: { requestId } }, requestId);

/** Only the code's fixed message and contract `details` leave; the error's own text never does. */
export function errorResult(error: ServiceError, requestId: string): HttpResult {
  const { status, message } = ERROR_CATALOG[error.code];
  const body = {
    error: { code: error.code, message, ...(error.details ? { details: error.details } : {}) },
    meta: { requestId },
  };
  const result = jsonResult(status, body, requestId);
  if (error.retryAfterSeconds !== undefined) result.headers["retry-after"] = String(error.retryAfterSeconds);
  return result;
}

export function attachmentResult(text: string, fileName: string, requestId: string): HttpResult {
  return {
    statusCode: 200,
    headers: {
      ...baseHeaders(requestId),
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="${fileName}"`,
    },
    body: text,
  };
}

/** A log page (already serialized and measured) or a download attachment. */
export const sourceResult = (result: SourceResult, requestId: string): HttpResult =>
  result.kind === "page"
    ? serializedJsonResult(200, result.body, requestId)
    : attachmentResult(result.text, result.fileName, requestId);
