import { WeightedLru } from '../domain/weighted-lru.js';

/**
 * A least-recently-used cache of buffers bounded by their total size in bytes, not their count:
 * a few large files and many small ones cost what they weigh (domain/weighted-lru.ts).
 */
export class ByteLru extends WeightedLru<string, Buffer> {
  constructor(maxBytes: number, maxEntryBytes: number) {
    super(maxBytes, maxEntryBytes, byteLength);
  }

  get maxBytes(): number {
    return this.maxWeight;
  }

  get bytes(): number {
    return this.weight;
  }
}

function byteLength(value: Buffer): number {
  return value.length;
}
