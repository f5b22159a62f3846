import { describe, expect, it } from 'vitest';
import { RecentVisitors, visitorHash } from './view-visitors.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0';

describe('visitorHash', () => {
  it('tells the parts apart, including where one ends and the next begins', () => {
    const hashes = new Set([
      visitorHash(1, '10.0.0.1', UA),
      visitorHash(2, '10.0.0.1', UA),
      visitorHash(1, '10.0.0.2', UA),
      visitorHash(1, '10.0.0.1', `${UA} Edg`),
      visitorHash(1, 'ab', 'c'),
      visitorHash(1, 'a', 'bc'),
    ]);
    expect(hashes.size).toBe(6);
    expect(visitorHash(1, '10.0.0.1', UA)).toBe(visitorHash(1, '10.0.0.1', UA));
    expect(Number.isSafeInteger(visitorHash(7, '::1', UA))).toBe(true);
  });

  it('spreads 100,000 visitors without a collision', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 100_000; i++)
      seen.add(visitorHash(i % 50, `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, UA));
    expect(seen.size).toBe(100_000);
  });
});

describe('RecentVisitors', () => {
  it('says first once per window, and again after it', () => {
    const recent = new RecentVisitors(1_000, 10);
    expect(recent.firstVisit(42, 0)).toBe(true);
    expect(recent.firstVisit(42, 999)).toBe(false);
    expect(recent.firstVisit(42, 1_000)).toBe(true);
    expect(recent.firstVisit(42, 1_500)).toBe(false);
  });

  it('stays within its bound, forgetting the oldest visitors first', () => {
    const recent = new RecentVisitors(60_000, 3);
    for (const v of [1, 2, 3, 4]) expect(recent.firstVisit(v, 0)).toBe(true);
    expect(recent.size).toBe(3);
    // 1 was forgotten (counted again); 2, 3 and 4 are still remembered.
    expect(recent.firstVisit(1, 1)).toBe(true);
    expect(recent.firstVisit(4, 1)).toBe(false);
    for (let v = 100; v < 10_000; v++) recent.firstVisit(v, 2);
    expect(recent.size).toBe(3);
  });

  it('forgets the oldest tenth at once when full, and stays cheap with many visitors', () => {
    const recent = new RecentVisitors(60_000, 1_000);
    for (let v = 0; v <= 1_000; v++) recent.firstVisit(v, 0);
    expect(recent.size).toBe(901);
    expect(recent.firstVisit(99, 1)).toBe(true);
    expect(recent.firstVisit(100, 1)).toBe(false);
    // 400,000 new visitors through a full map of 100,000: linear, not slowed by what it forgot.
    const big = new RecentVisitors();
    const started = performance.now();
    for (let v = 0; v < 400_000; v++) big.firstVisit(v, 0);
    expect(big.size).toBeLessThanOrEqual(100_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('keeps a visitor seen again after its window as the newest', () => {
    const recent = new RecentVisitors(10, 2);
    recent.firstVisit(1, 0);
    recent.firstVisit(2, 5);
    // 1's window ended: it counts again and moves behind 2.
    expect(recent.firstVisit(1, 20)).toBe(true);
    recent.firstVisit(3, 21);
    // The bound dropped 2, the oldest, not 1.
    expect(recent.firstVisit(1, 22)).toBe(false);
  });
});
