/** ContentDigest's streaming UTF-8 check agrees with a check of the whole, however it is cut. */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ContentDigest } from './digest.js';

const SAMPLES: Record<string, Buffer> = {
  'Chinese, emoji and accents': Buffer.from('站点展厅 abc 😀 é\n'.repeat(20)),
  'ends mid-character': Buffer.concat([Buffer.from('站点'.repeat(10)), Buffer.from([0xe4, 0xb8])]),
  'a lead byte without its continuation': Buffer.concat([Buffer.from('ab'), Buffer.from([0xe4, 0x41, 0x42])]),
  'overlong encoding': Buffer.from([0x41, 0xc0, 0x80, 0x41]),
  'UTF-16 surrogate': Buffer.from([0x41, 0xed, 0xa0, 0x80]),
  'stray continuation bytes': Buffer.from([0x41, 0x80, 0x80, 0x80, 0x80, 0x80]),
  'a four-byte character alone': Buffer.from('😀'),
};

describe('ContentDigest', () => {
  for (const [label, bytes] of Object.entries(SAMPLES)) {
    it(`checks UTF-8 across chunk boundaries: ${label}`, () => {
      for (let size = 1; size <= 9; size++) {
        const digest = new ContentDigest({ utf8: true, crc32: false });
        for (let i = 0; i < bytes.length; i += size) digest.update(bytes.subarray(i, i + size));
        const facts = digest.finish();
        expect({ size, utf8: facts.utf8 }).toEqual({ size, utf8: isUtf8(bytes) });
        expect(facts.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(facts.head.equals(bytes.subarray(0, 8192))).toBe(true);
      }
    });
  }
});
