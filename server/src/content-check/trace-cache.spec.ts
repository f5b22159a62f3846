/**
 * The process's trace cache (trace-cache.ts TraceCache): traces kept as text within a byte
 * budget, the least recently read going first (second chance).
 */
import { describe, expect, it } from 'vitest';
import { TraceCache } from './trace-cache.js';

/** An entry's cost in the cache: its key and text as UTF-16, and 200 bytes besides. */
const cost = (key: string, trace: string) => 2 * (key.length + trace.length) + 200;

describe('TraceCache', () => {
  it('gives back the text it was given, until it is deleted or replaced', () => {
    const cache = new TraceCache();
    cache.set('a', '{"events":[]}');
    expect(cache.get('a')).toBe('{"events":[]}');
    cache.set('a', '{"events":[1]}');
    expect(cache.get('a')).toBe('{"events":[1]}');
    expect(cache.size).toBe(1);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps within its budget, the oldest unread traces going first', () => {
    const text = 'x'.repeat(100);
    // Room for three entries, not four.
    const cache = new TraceCache(3 * cost('k0', text) + 10);
    for (const key of ['k0', 'k1', 'k2']) cache.set(key, text);
    expect(cache.size).toBe(3);
    // k0 was read since it was kept: k1, the oldest unread, makes room for k3.
    expect(cache.get('k0')).toBe(text);
    cache.set('k3', text);
    expect(cache.size).toBe(3);
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k0')).toBe(text);
    expect(cache.get('k2')).toBe(text);
    expect(cache.get('k3')).toBe(text);
  });

  it('makes room when every trace was read (each read one is passed over once)', () => {
    const text = 'y'.repeat(100);
    const cache = new TraceCache(3 * cost('k0', text) + 10);
    for (const key of ['k0', 'k1', 'k2']) cache.set(key, text);
    for (const key of ['k0', 'k1', 'k2']) cache.get(key);
    cache.set('k3', text);
    // All three were passed over once, unmarked, and then the oldest of them went.
    expect(cache.size).toBe(3);
    expect(cache.get('k0')).toBeUndefined();
    expect(['k1', 'k2', 'k3'].map((k) => cache.get(k))).toEqual([text, text, text]);
  });

  it('keeps nothing larger than its whole budget', () => {
    const cache = new TraceCache(1000);
    cache.set('small', 'z'.repeat(10));
    cache.set('huge', 'z'.repeat(1000));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBe('z'.repeat(10));
  });
});
