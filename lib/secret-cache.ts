/**
 * The per-container cache of everything loaded from a secret store: the cursor and identity keys,
 * kubeconfigs, OpenShell connection documents. A value is fresh for `ttlMs`; once stale, the last
 * good value keeps being served while one refresh runs in the background, so a rotation reaches
 * warm containers and a slow or failing store never sits on the request path. Failed loads back off
 * exponentially with jitter (docs/capacity.md § Secrets): during an outage the store sees O(log T)
 * calls over T, however many requests arrive. A first load that fails fails its request, and the
 * requests after it with the same error until the backoff ends.
 */

export interface SecretCacheOptions {
  /** How long a loaded value is served without a refresh. */
  ttlMs: number;
  /** The first retry waits about this long after a failure; each further failure doubles it. */
  backoffBaseMs?: number;
  /** The longest wait between two failed loads. */
  backoffMaxMs?: number;
  now?: () => number;
  /** [0, 1): jitter. */
  random?: () => number;
}

export const SECRET_BACKOFF_BASE_MS = 1_000;
export const SECRET_BACKOFF_MAX_MS = 60_000;

interface Entry<V> {
  good?: { value: V; loadedAt: number };
  loading?: Promise<V> | undefined;
  failures: number;
  retryAt: number;
  lastError?: unknown;
}

export class SecretCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #ttl: number;
  readonly #base: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #random: () => number;

  constructor(options: SecretCacheOptions) {
    this.#ttl = options.ttlMs;
    this.#base = options.backoffBaseMs ?? SECRET_BACKOFF_BASE_MS;
    this.#max = options.backoffMaxMs ?? SECRET_BACKOFF_MAX_MS;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
  }

  /** The value under `key`, loading it with `load` when there is none or it is stale. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.#now();
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { failures: 0, retryAt: 0 };
      this.#entries.set(key, entry);
    }
    const good = entry.good;
    // A clock that stepped back counts as stale, so a value is never kept for longer than its TTL.
    if (good && now >= good.loadedAt && now - good.loadedAt < this.#ttl) return Promise.resolve(good.value);
    const mayTry = !entry.loading && this.#backoffOver(entry, now);
    if (good) {
      if (mayTry) void this.#load(entry, load).catch(() => {});
      return Promise.resolve(good.value);
    }
    if (entry.loading) return entry.loading;
    if (!mayTry) return Promise.reject(entry.lastError);
    return this.#load(entry, load);
  }

  /**
   * Whether a value is being served past its TTL because its refresh failed: requests go on, but
   * the health probe must say the store is failing.
   */
  refreshFailing(): boolean {
    for (const entry of this.#entries.values()) if (entry.good && entry.lastError !== undefined) return true;
    return false;
  }

  /** A clock that stepped back never stretches a wait past the longest backoff. */
  #backoffOver(entry: Entry<V>, now: number): boolean {
    return now >= entry.retryAt || entry.retryAt - now > this.#max;
  }

  #load(entry: Entry<V>, load: () => Promise<V>): Promise<V> {
    const loading = Promise.resolve().then(load);
    entry.loading = loading;
    loading.then(
      (value) => {
        entry.good = { value, loadedAt: this.#now() };
        entry.failures = 0;
        entry.retryAt = 0;
        entry.lastError = undefined;
        entry.loading = undefined;
      },
      (error: unknown) => {
        entry.failures++;
        entry.lastError = error;
        entry.retryAt = this.#now() + this.#backoff(entry.failures);
        entry.loading = undefined;
      },
    );
    return loading;
  }

  /** "Equal jitter": half the exponential wait for certain, the other half at random. */
  #backoff(failures: number): number {
    const wait = Math.min(this.#max, this.#base * 2 ** Math.min(failures - 1, 30));
    return wait / 2 + this.#random() * (wait / 2);
  }
}
