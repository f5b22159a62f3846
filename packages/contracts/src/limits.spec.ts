import { describe, expect, it } from 'vitest';
import { formatBytes, formatKilobytes } from './limits.js';

describe('sizes as shown', () => {
  it('in KB whatever the size on the showcase and review screens (bytes / 1024)', () => {
    expect(formatKilobytes(224)).toBe('0.22 KB');
    expect(formatKilobytes(1024)).toBe('1 KB');
    expect(formatKilobytes(1536)).toBe('1.5 KB');
    expect(formatKilobytes(25 * 1024 * 1024)).toBe('25,600 KB');
    expect(formatKilobytes(0)).toBe('0 KB');
    expect(formatKilobytes(Number.NaN)).toBe('0 KB');
  });

  it('in B, KB, MB or GB elsewhere', () => {
    expect(formatBytes(224)).toBe('224 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MB');
  });
});
