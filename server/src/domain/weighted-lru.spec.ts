import { describe, expect, it } from 'vitest';
import { WeightedLru } from './weighted-lru.js';

describe('WeightedLru', () => {
  it('weighs each value as told, evicting the least recently used past its total', () => {
    // A version's files, weighed by their rows (services/deploys.ts).
    const lru = new WeightedLru<number, { rows: number }>(10, 10, (v) => v.rows);
    lru.set(1, { rows: 4 });
    lru.set(2, { rows: 4 });
    lru.get(1);
    lru.set(3, { rows: 4 });
    expect(lru.weight).toBe(8);
    expect(lru.get(2)).toBeUndefined();
    expect(lru.get(1)).toEqual({ rows: 4 });
    expect(lru.get(3)).toEqual({ rows: 4 });
  });

  it('keeps none heavier than its per-value limit, and counts a replaced value once', () => {
    const lru = new WeightedLru<number, { rows: number }>(10, 6, (v) => v.rows);
    expect(lru.set(1, { rows: 7 })).toBe(false);
    expect(lru.size).toBe(0);
    lru.set(1, { rows: 5 });
    lru.set(1, { rows: 3 });
    expect(lru.weight).toBe(3);
    lru.delete(1);
    expect(lru.weight).toBe(0);
  });
});
