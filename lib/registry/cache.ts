/** A per-container TTL cache with a size bound (oldest entries go first). Time is injected. */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { ttlMs: number; maxEntries: number; now: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now;
  }

  get(key: string): { value: V } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // A clock stepping back must not extend an entry's life beyond the TTL either.
    const now = this.#now();
    if (now >= entry.expiresAt || now < entry.expiresAt - this.#ttlMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return { value: entry.value };
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}
