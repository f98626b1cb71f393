/**
 * A small least-recently-used cache bounded by entry count and by a total weight (characters of
 * keys and values), for grammars derived again and again from the same inputs.
 */

/** Counters of an {@link LruCache}. */
export interface LruCacheStats {
  hits: number;
  misses: number;
  entries: number;
  weight: number;
}

/**
 * Least recently used entries go first once `maxEntries` or `maxWeight` is passed.
 *
 * @example
 * const cache = new LruCache<string>(100, 1_000_000);
 * cache.set("k", "value", 6);
 * cache.get("k"); // "value"
 */
export class LruCache<V> {
  readonly #map = new Map<string, { value: V; weight: number }>();
  #weight = 0;
  #hits = 0;
  #misses = 0;

  /** `onEvict` is called with each value dropped to make room (not on clear or replacement). */
  constructor(
    readonly maxEntries: number,
    readonly maxWeight: number,
    private readonly onEvict?: (value: V) => void,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 0)
      throw new RangeError(`LruCache: maxEntries must be a non-negative integer, got ${String(maxEntries)}`);
    if (!Number.isFinite(maxWeight) || maxWeight < 0)
      throw new RangeError(`LruCache: maxWeight must be a non-negative number, got ${String(maxWeight)}`);
  }

  /** The value, now most recently used, or undefined (counted as a miss). */
  get(key: string): V | undefined {
    const e = this.#map.get(key);
    if (e === undefined) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#map.delete(key);
    this.#map.set(key, e);
    return e.value;
  }

  /** Stores `value`; `weight` is its size (the key's length is added). Too heavy a value is not kept. */
  set(key: string, value: V, weight: number): void {
    const w = weight + key.length;
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#map.delete(key);
      this.#weight -= old.weight;
    }
    if (w > this.maxWeight || this.maxEntries === 0) {
      this.onEvict?.(value);
      return;
    }
    this.#map.set(key, { value, weight: w });
    this.#weight += w;
    for (const [k, e] of this.#map) {
      if (this.#map.size <= this.maxEntries && this.#weight <= this.maxWeight) break;
      this.#map.delete(k);
      this.#weight -= e.weight;
      this.onEvict?.(e.value);
    }
  }

  clear(): void {
    this.#map.clear();
    this.#weight = 0;
  }

  stats(): LruCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#map.size, weight: this.#weight };
  }
}
