/** ContentDigest's streaming UTF-8 check agrees with a check of the whole, however it is cut. */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContentDigest, digestFile, HEAD_BYTES, IO_CHUNK_BYTES } from './digest.js';

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

  it('takes the head of data kept whole as a view of it, not a copy', () => {
    for (const bytes of [Buffer.from('站点'.repeat(5000)), Buffer.from('short'), Buffer.alloc(0)]) {
      const digest = new ContentDigest({ utf8: true, crc32: true, whole: bytes });
      digest.update(bytes);
      const facts = digest.finish();
      expect(facts.head.equals(bytes.subarray(0, HEAD_BYTES))).toBe(true);
      expect(facts.head.buffer).toBe(bytes.buffer);
      expect(facts.head.byteOffset).toBe(bytes.byteOffset);
      expect([facts.size, facts.utf8]).toEqual([bytes.length, true]);
    }
  });
});

describe('digestFile', () => {
  it('gives each file its own facts and head, one file after another through the one read and head buffer', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-digest-'));
    try {
      const contents = [
        Buffer.from('站点展厅 first file\n'.repeat(50)),
        Buffer.alloc(10, 0x42),
        // Larger than one read: its head is the first read's start, its hash every read's.
        Buffer.concat([Buffer.alloc(IO_CHUNK_BYTES + 5, 0x43), Buffer.from([0xff])]),
        Buffer.alloc(0),
      ];
      const facts = contents.map((bytes, i) => {
        const file = path.join(dir, String(i));
        fs.writeFileSync(file, bytes);
        const digested = digestFile(file, true);
        // The head lives in the thread's head buffer until the next call: read it now. A short
        // file after a long one gets its own length, not the longer file's bytes after it.
        return { ...digested, head: Buffer.from(digested.head) };
      });
      contents.forEach((bytes, i) => {
        expect(facts[i]!.sha256, String(i)).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(facts[i]!.size, String(i)).toBe(bytes.length);
        expect(facts[i]!.head.equals(bytes.subarray(0, HEAD_BYTES)), String(i)).toBe(true);
        expect(facts[i]!.utf8, String(i)).toBe(isUtf8(bytes));
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
