/**
 * A least-recently-used cache of buffers bounded by their total size in bytes, not their count:
 * a few large files and many small ones cost what they weigh.
 */
export class ByteLru {
  readonly #entries = new Map<string, Buffer>();
  #bytes = 0;
  /** The most recently used key: asked again (a hot file), it is already where it belongs. */
  #newest: string | undefined;

  constructor(
    readonly maxBytes: number,
    /** Entries larger than this are never kept. */
    readonly maxEntryBytes: number,
  ) {}

  get(key: string): Buffer | undefined {
    const value = this.#entries.get(key);
    if (value && key !== this.#newest) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  /** Returns whether the value was kept. */
  set(key: string, value: Buffer): boolean {
    this.delete(key);
    if (value.length > this.maxEntryBytes || value.length > this.maxBytes) return false;
    this.#entries.set(key, value);
    this.#newest = key;
    this.#bytes += value.length;
    for (const [oldKey, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= old.length;
    }
    return true;
  }

  delete(key: string): void {
    const value = this.#entries.get(key);
    if (!value) return;
    if (key === this.#newest) this.#newest = undefined;
    this.#entries.delete(key);
    this.#bytes -= value.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}
