/**
 * A least-recently-used cache bounded by the total weight of what it holds, not its count: each
 * value weighs what `weightOf` says (a buffer its bytes, a version's files their rows), so a few
 * large values and many small ones cost what they weigh. Used for the files served from memory
 * (serve/byte-lru.ts) and the versions a deploy builds on (services/deploys.ts).
 */
export class WeightedLru<K, V> {
  readonly #entries = new Map<K, V>();
  #weight = 0;
  /** The most recently used key: asked again (a hot file), it is already where it belongs. */
  #newest: K | undefined;

  constructor(
    readonly maxWeight: number,
    /** Values heavier than this are never kept. */
    readonly maxEntryWeight: number,
    private readonly weightOf: (value: V) => number,
  ) {}

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined && key !== this.#newest) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  /** Returns whether the value was kept (the least recently used going, past maxWeight). */
  set(key: K, value: V): boolean {
    this.delete(key);
    const weight = this.weightOf(value);
    if (weight > this.maxEntryWeight || weight > this.maxWeight) return false;
    this.#entries.set(key, value);
    this.#newest = key;
    this.#weight += weight;
    for (const [oldKey, old] of this.#entries) {
      if (this.#weight <= this.maxWeight) break;
      this.#entries.delete(oldKey);
      this.#weight -= this.weightOf(old);
    }
    return true;
  }

  delete(key: K): void {
    const value = this.#entries.get(key);
    if (value === undefined) return;
    if (key === this.#newest) this.#newest = undefined;
    this.#entries.delete(key);
    this.#weight -= this.weightOf(value);
  }

  /** The total weight held. */
  get weight(): number {
    return this.#weight;
  }

  get size(): number {
    return this.#entries.size;
  }
}
