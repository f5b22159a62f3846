import { describe, expect, it } from 'vitest';
import { ByteLru } from './byte-lru.js';

const buf = (n: number) => Buffer.alloc(n);

describe('ByteLru', () => {
  it('evicts least recently used entries to stay within its byte budget', () => {
    const lru = new ByteLru(100, 60);
    lru.set('a', buf(40));
    lru.set('b', buf(40));
    lru.get('a');
    lru.set('c', buf(40));
    expect(lru.bytes).toBe(80);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBeDefined();
    expect(lru.get('c')).toBeDefined();
  });

  it('keeps exact recency when the newest entry is asked again (a hot file)', () => {
    const lru = new ByteLru(100, 60);
    lru.set('a', buf(40));
    lru.set('b', buf(40));
    lru.get('b');
    lru.get('b');
    lru.get('a');
    lru.get('a');
    lru.set('c', buf(40));
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBeDefined();
    lru.delete('a');
    lru.get('c');
    lru.set('d', buf(40));
    lru.set('e', buf(40));
    expect(lru.get('c')).toBeUndefined();
    expect(lru.get('d')).toBeDefined();
  });

  it('refuses entries over the per-entry limit', () => {
    const lru = new ByteLru(100, 60);
    expect(lru.set('big', buf(61))).toBe(false);
    expect(lru.size).toBe(0);
    expect(lru.bytes).toBe(0);
  });

  it('counts a replaced entry once', () => {
    const lru = new ByteLru(100, 60);
    lru.set('a', buf(30));
    lru.set('a', buf(50));
    expect(lru.bytes).toBe(50);
    lru.delete('a');
    expect(lru.bytes).toBe(0);
    expect(lru.size).toBe(0);
  });

  it('keeps empty buffers', () => {
    const lru = new ByteLru(10, 10);
    lru.set('empty', buf(0));
    expect(lru.get('empty')?.length).toBe(0);
  });

  it('never exceeds the bound under churn', () => {
    const lru = new ByteLru(1000, 200);
    for (let i = 0; i < 500; i++) {
      lru.set(`k${i % 37}`, buf((i * 53) % 250));
      expect(lru.bytes).toBeLessThanOrEqual(1000);
    }
  });
});
