/** The ServiceError a promise rejects with; anything else (or no rejection) fails the test. */
import { isServiceError, type ServiceError } from "../../lib/api/errors.ts";

export async function failure(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (isServiceError(e)) return e;
    throw e;
  }
  throw new Error("expected a ServiceError");
}
