/** Exit codes of `occ` (surfaces.md § occ CLI). */
export const EXIT = {
  ok: 0,
  requestFailed: 1,
  usage: 2,
  incomplete: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A command line outside what `occ` accepts; raised before any request is sent. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface ApiErrorInfo {
  status: number;
  /** The contract code from the error envelope; undefined when the body was not an envelope. */
  code: string | undefined;
  message: string | undefined;
  requestId: string | undefined;
  retryAfterSeconds: number | undefined;
  details: { path: string; code: string }[];
  /** The path of the request that failed (what it needed depends on the route). */
  route?: string;
}

/** The server answered with a non-success status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly info: ApiErrorInfo;
  constructor(info: ApiErrorInfo) {
    super(`HTTP ${info.status}${info.code === undefined ? "" : ` ${info.code}`}`);
    this.info = info;
  }
  get status(): number {
    return this.info.status;
  }
  get code(): string | undefined {
    return this.info.code;
  }
}

/** No usable answer: connection refused, DNS failure, timeout, or a body that is not the contract's. */
export class TransportError extends Error {
  override readonly name = "TransportError";
}

/** The user (or a signal) stopped the command; not a failure. */
export class Interrupted extends Error {
  override readonly name = "Interrupted";
}
