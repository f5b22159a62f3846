/**
 * OneInflater: one raw-inflate state for all of an archive's small entries, reset between them,
 * must give each entry exactly what inflating it alone gives, and refuse as inflateRawSync did.
 */
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IO_CHUNK_BYTES } from './digest.js';
import { Refusal } from './refusal.js';
import { OneInflater } from './zip-archive.js';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof Refusal ? err.reason : err;
  }
  return 'no refusal';
};

describe('OneInflater', () => {
  it('reuses one zlib state on this Node (its internals are there)', () => {
    // A Node that changed them would inflate each entry alone: slower, never wrong.
    expect(OneInflater.available).toBe(true);
  });

  it('inflates entry after entry as each inflates alone, damaged ones between them refused', () => {
    const inflater = new OneInflater();
    const texts = Array.from({ length: 40 }, (_, i) =>
      Buffer.from(`<p>第 ${i} 页 ${'站点展厅 '.repeat(i * 37)}</p>`.repeat(1 + (i % 5))),
    );
    // A block of type 3, which deflate does not have.
    const invalid = Buffer.from([0xff, 0xff, 0xff, 0xff]);
    const long = Buffer.from('x'.repeat(5000));
    for (const [i, text] of texts.entries()) {
      const compressed = deflateRawSync(text);
      const out = inflater.inflate(compressed, text.length, i % 2 === 0);
      expect(out.equals(inflateRawSync(compressed))).toBe(true);
      if (i === 10) expect(refusal(() => inflater.inflate(invalid, 100, false))).toBe('corrupt');
      if (i === 20) {
        // The input ends before the stream does.
        const cut = deflateRawSync(long).subarray(0, 10);
        expect(refusal(() => inflater.inflate(cut, long.length, false))).toBe('corrupt');
      }
      if (i === 30) {
        // More output than declared stops at one byte past it.
        expect(refusal(() => inflater.inflate(deflateRawSync(long), 4999, false))).toBe('sizeMismatch');
        expect(refusal(() => inflater.inflate(deflateRawSync(long), 0, true))).toBe('sizeMismatch');
      }
    }
    // Fewer bytes than declared are returned as they are (the caller compares the size).
    expect(inflater.inflate(deflateRawSync(long), 6000, false).length).toBe(5000);
    expect(inflater.inflate(deflateRawSync(Buffer.alloc(0)), 0, false).length).toBe(0);
    inflater.close();
  });

  it('gives a kept entry bytes of its own, and a written one a view the next entry reuses', () => {
    const inflater = new OneInflater();
    const a = Buffer.from('a'.repeat(3000));
    const b = Buffer.from('b'.repeat(3000));
    const kept = inflater.inflate(deflateRawSync(a), a.length, true);
    const view = inflater.inflate(deflateRawSync(a), a.length, false);
    inflater.inflate(deflateRawSync(b), b.length, false);
    expect(kept.equals(a)).toBe(true);
    expect(view.equals(b)).toBe(true);
    // Larger than the shared output: a buffer of its own.
    const big = randomBytes(IO_CHUNK_BYTES + 500);
    const bigOut = inflater.inflate(deflateRawSync(big), big.length, false);
    inflater.inflate(deflateRawSync(b), b.length, false);
    expect(bigOut.equals(big)).toBe(true);
    inflater.close();
  });
});
