/**
 * List chunking (`limit` / `continue`) like the API server: items in key order
 * (`{namespace}/{name}`), an opaque token naming the last key served. Tokens are checked: a token
 * from another list, or a forged/garbled one, is a `PagingError` (a 400 Status upstream).
 */
import { createHash } from "node:crypto";

export class PagingError extends Error {
  override name = "PagingError";
}

interface TokenBody {
  v: 1;
  /** The list it continues (resource and namespace scope). */
  s: string;
  /** Last key served. */
  k: string;
  rv: number;
  /** Integrity check. */
  h: string;
}

function check(scope: string, key: string, rv: number): string {
  return createHash("sha256")
    .update(`kube-sim/continue\u0000${scope}\u0000${key}\u0000${rv}`)
    .digest("hex")
    .slice(0, 16);
}

export function encodeContinue(scope: string, lastKey: string, rv: number): string {
  const body: TokenBody = { v: 1, s: scope, k: lastKey, rv, h: check(scope, lastKey, rv) };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/** Returns the last key served; throws PagingError when the token is not a valid one for `scope`. */
export function decodeContinue(token: string, scope: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(token))
    throw new PagingError("continue key is not valid: illegal base64 data");
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw new PagingError(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
  const b = body as Partial<TokenBody> | null;
  if (
    typeof b !== "object" ||
    b === null ||
    b.v !== 1 ||
    typeof b.s !== "string" ||
    typeof b.k !== "string" ||
    typeof b.rv !== "number" ||
    b.h !== check(b.s, b.k, b.rv)
  ) {
    throw new PagingError("continue key is not valid: unrecognized continue token");
  }
  if (b.s !== scope) throw new PagingError("continue key is not valid: the token belongs to another list");
  return b.k;
}

export interface Page<T> {
  items: T[];
  continueToken: string | null;
  remaining: number;
}

/** `items` must be sorted by `key`; `limit` ≤ 0 means no limit. */
export function paginate<T>(
  items: readonly T[],
  key: (item: T) => string,
  opts: { limit: number; continueToken: string | null; scope: string; rv: number },
): Page<T> {
  let start = 0;
  if (opts.continueToken !== null) {
    const after = decodeContinue(opts.continueToken, opts.scope);
    start = items.findIndex((item) => key(item) > after);
    if (start < 0) start = items.length;
  }
  const rest = items.slice(start);
  if (opts.limit <= 0 || rest.length <= opts.limit) return { items: rest, continueToken: null, remaining: 0 };
  const page = rest.slice(0, opts.limit);
  const last = page[page.length - 1] as T;
  return {
    items: page,
    continueToken: encodeContinue(opts.scope, key(last), opts.rv),
    remaining: rest.length - page.length,
  };
}
