/**
 * The error a call must end in: `failure` (a promise) and `failureOf` (a function) return the
 * ServiceError; `thrownBy` returns an error of a given class. Anything else thrown is rethrown, and
 * no error at all fails the test.
 */
import { isServiceError, ServiceError } from "../../lib/api/errors.ts";

/** The error `fn` throws, when it is an instance of `type`. */
export function thrownBy<E extends Error>(fn: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The ServiceError `fn` throws. */
export const failureOf = (fn: () => unknown): ServiceError => thrownBy(fn, ServiceError);

/** The ServiceError a promise rejects with. */
export async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (isServiceError(e)) return e;
    throw e;
  }
  throw new Error("expected a ServiceError");
}
