/**
 * The Events of one Pod (docs/kube.md § describeRuntime): pages of 100 followed within one call
 * budget, newest 100 kept; a list that repeats a continue token or never ends is refused.
 */
import type { ClusterSession } from "./cluster-session.ts";
import { type KeyedEvent, mergeEvents } from "./describe.ts";
import {
  InvalidClusterData,
  LIMITS,
  parseOrThrow,
  type RawEvent,
  type RawPod,
  rawEventList,
} from "./validate.ts";

export interface EventPagingOptions {
  now: () => number;
  /** The time all pages together may take. */
  budgetMs: number;
}

export async function listPodEvents(
  session: ClusterSession,
  namespace: string,
  pod: RawPod,
  options: EventPagingOptions,
): Promise<KeyedEvent[]> {
  const started = options.now();
  const budgetEnd = started + options.budgetMs;
  let kept: KeyedEvent[] = [];
  let token: string | undefined;
  const seen = new Set<string>();
  for (let page = 0; ; page++) {
    if (page >= LIMITS.eventPagesMax) {
      throw session.fail(new InvalidClusterData("event list does not end"), "list events");
    }
    const left = budgetEnd - options.now();
    const body = await session.json(
      "list events",
      (o) =>
        session.core.listNamespacedEvent(
          {
            namespace,
            fieldSelector: `involvedObject.uid=${pod.metadata.uid}`,
            limit: LIMITS.eventsPageLimit,
            ...(token !== undefined ? { _continue: token } : {}),
          },
          o,
        ),
      Math.max(0, left),
    );
    let items: RawEvent[];
    try {
      const list = parseOrThrow(rawEventList, body, "event list");
      items = list.items;
      token = list.metadata?.continue || undefined;
      if (token !== undefined) {
        if (seen.has(token)) throw new InvalidClusterData("event list repeats a continue token");
        seen.add(token);
      }
    } catch (e) {
      throw session.fail(e, "list events");
    }
    kept = mergeEvents(kept, items, pod.metadata.uid, Boolean(pod.spec.nodeName));
    if (token === undefined) return kept;
  }
}
