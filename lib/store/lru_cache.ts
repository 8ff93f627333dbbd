// Owns a small least-recently-used map with pinning: entries the predicate pins are never evicted,
// so the cache may exceed its limit while they are held. No I/O.

export interface LruCacheOptions<V> {
  /** Pinned entries stay cached beyond the limit. */
  pinned?: (value: V) => boolean;
}

export class LruCache<K, V> {
  #map = new Map<K, V>();
  #limit: number;
  #pinned: (value: V) => boolean;

  constructor(limit: number, options: LruCacheOptions<V> = {}) {
    this.#limit = limit;
    this.#pinned = options.pinned ?? (() => false);
  }

  get size(): number {
    return this.#map.size;
  }

  /** Whether `key` is cached, without refreshing it. */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#evict();
  }

  delete(key: K): void {
    this.#map.delete(key);
  }

  #evict(): void {
    if (this.#map.size <= this.#limit) return;
    for (const [key, value] of this.#map) {
      if (this.#map.size <= this.#limit) return;
      if (!this.#pinned(value)) this.#map.delete(key);
    }
  }
}
