// Owns a small least-recently-used map with pinning: entries the predicate pins are never evicted,
// so the cache may exceed its limit while they are held. Whether an entry is pinned is decided when
// it is set. No I/O.

export interface LruCacheOptions<V> {
  /** Pinned entries stay cached beyond the limit. */
  pinned?: (value: V) => boolean;
}

export class LruCache<K, V> {
  #map = new Map<K, { value: V; pinned: boolean }>();
  #limit: number;
  #pinned: (value: V) => boolean;
  /** Entries that may be evicted: with none, a full cache of pinned entries is not scanned per set. */
  #unpinned = 0;

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
    const entry = this.#map.get(key);
    if (entry === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const pinned = this.#pinned(value);
    this.#map.set(key, { value, pinned });
    if (!pinned) this.#unpinned++;
    this.#evict();
  }

  delete(key: K): void {
    const entry = this.#map.get(key);
    if (entry === undefined) return;
    this.#map.delete(key);
    if (!entry.pinned) this.#unpinned--;
  }

  #evict(): void {
    if (this.#map.size <= this.#limit || this.#unpinned === 0) return;
    for (const [key, entry] of this.#map) {
      if (this.#map.size <= this.#limit || this.#unpinned === 0) return;
      if (!entry.pinned) this.delete(key);
    }
  }
}
