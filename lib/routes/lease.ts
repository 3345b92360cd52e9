/**
 * Step 5 of the order of checks: admission by the global limiter around the driver work, with the
 * lease given back in a `finally` whatever happens — awaited before the answer, also when the
 * deadline passes: the work is raced against the deadline so the release starts at once, and the
 * handler's deadline waits for it (lib/http/deadline.ts § SETTLE_GRACE_MS).
 */
import type { AgentRecord } from "../domain.ts";
import { withinDeadline } from "../http/deadline.ts";
import type { Limiter } from "../limiter/limiter.ts";
import type { RequestScope } from "./scope.ts";

/** A holder outlives the request deadline by this much, so a crashed container frees it soon. */
const LEASE_SLACK_MS = 5_000;

export async function withLease<T>(
  deps: { limiter: Limiter },
  scope: RequestScope,
  request: { principalId: string; agent: AgentRecord; cost: number },
  work: () => Promise<T>,
): Promise<T> {
  const { lease } = await deps.limiter.acquire({
    principalId: request.principalId,
    namespaceId: request.agent.namespaceId,
    agentId: request.agent.agentId,
    cost: request.cost,
    leaseExpiresAt: scope.deadline.at + LEASE_SLACK_MS,
    now: scope.now(),
  });
  try {
    return await withinDeadline(scope.deadline, work(), 0);
  } finally {
    await deps.limiter.release(lease);
  }
}
