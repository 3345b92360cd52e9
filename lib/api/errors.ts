/**
 * The error codes of docs/api.md with their HTTP status and fixed, human messages.
 * Messages never carry driver, cluster or SDK text.
 */
export const ERROR_CATALOG = {
  INVALID_REQUEST: { status: 400, message: "The request is outside the API contract." },
  RUNTIME_LOGS_CURSOR_INVALID: {
    status: 400,
    message: "The cursor is invalid for this request. Start a new view without a cursor.",
  },
  RUNTIME_LOGS_POD_INVALID: {
    status: 400,
    message: "The Pod is not a current Pod of this deployment and source.",
  },
  RUNTIME_LOGS_SOURCE_UNAVAILABLE: { status: 400, message: "The deployment has no such log source." },
  UNAUTHENTICATED: { status: 401, message: "Authentication is required." },
  FORBIDDEN: { status: 403, message: "You are not allowed to perform this action." },
  NOT_FOUND: { status: 404, message: "The Agent or deployment does not exist." },
  RUNTIME_LOGS_RATE_LIMITED: { status: 429, message: "Too many requests. Retry after the indicated delay." },
  NOT_IMPLEMENTED: { status: 501, message: "Runtime reads are not available for this deployment." },
  RUNTIME_LOGS_BUSY: { status: 503, message: "Too many reads are in flight. Retry shortly." },
  RUNTIME_LOGS_AUDIT_UNAVAILABLE: {
    status: 503,
    message: "The read could not be audited, so nothing was read. Retry shortly.",
  },
  DEPENDENCY_UNAVAILABLE: { status: 503, message: "A service dependency is unavailable. Retry shortly." },
  RUNTIME_LOGS_CLUSTER_RBAC: {
    status: 503,
    message: "The cluster denied this service access to the runtime. An operator must fix its permissions.",
  },
  RUNTIME_LOGS_SANDBOX_NOT_FOUND: { status: 404, message: "The sandbox driver reports no such sandbox." },
  RUNTIME_LOGS_UNAVAILABLE: { status: 503, message: "The runtime is unavailable right now. Retry shortly." },
  RUNTIME_LOGS_TIMEOUT: { status: 504, message: "The request took too long and was stopped." },
  INTERNAL: { status: 500, message: "An internal error occurred." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface ErrorDetail {
  path: string;
  code: string;
}

/**
 * A failure that maps to one contract error. `cause` may hold internal text for the
 * structured (redacted) log; it is never serialized to clients.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly details: ErrorDetail[] | undefined;

  constructor(
    code: ErrorCode,
    options: { retryAfterSeconds?: number; details?: ErrorDetail[]; cause?: unknown; internal?: string } = {},
  ) {
    super(options.internal ?? code, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ServiceError";
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details;
  }
}

export const isServiceError = (e: unknown): e is ServiceError => e instanceof ServiceError;
