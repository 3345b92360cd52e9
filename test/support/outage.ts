/**
 * A secret store's outage as the cache tests drive it: `requests` reads spread evenly over `spanMs`
 * of an injected clock, each awaited and followed by one turn of the event loop (no timer) so a
 * background refresh it started settles before the next; what it costs is counted by `calls`.
 */

/** Lets a background refresh settle: one turn of the event loop, no timer. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface OutageOptions<T> {
  /** How many reads. */
  requests: number;
  /** The span they are spread over, from `startMs`: read `i` runs at `startMs + ⌊i·spanMs/requests⌋`. */
  spanMs: number;
  startMs: number;
  /** Sets the injected clock. */
  setNow: (ms: number) => void;
  /** One read, the way a request makes it. */
  read: () => Promise<T>;
  /** The store calls so far (whatever the test counts). */
  calls: () => number;
}

export interface OutageResult<T> {
  /** Store calls the reads cost. */
  calls: number;
  /** The value of every read that succeeded, in order. */
  values: T[];
  /** How many reads failed. */
  failed: number;
}

export async function outage<T>(o: OutageOptions<T>): Promise<OutageResult<T>> {
  const before = o.calls();
  const values: T[] = [];
  let failed = 0;
  for (let i = 0; i < o.requests; i++) {
    o.setNow(o.startMs + Math.floor((i * o.spanMs) / o.requests));
    await o.read().then(
      (v) => values.push(v),
      () => failed++,
    );
    await settle();
  }
  return { calls: o.calls() - before, values, failed };
}
