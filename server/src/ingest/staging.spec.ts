/** Staging names: what newStagingName makes, parseStagingName reads back, in both forms. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../test/support/temp-dirs.js';
import {
  FLUSH_AHEAD_BYTES,
  newStagingName,
  parseStagingName,
  receiveCounted,
  writeCounted,
} from './staging.js';

const INSTANCE = 'i_build-host_4242_0badc0de';

describe('staging names', () => {
  it('reads back the instance and the time of a name made after an instance', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const name = newStagingName(INSTANCE, at);
    expect(name.startsWith(`${INSTANCE}.`)).toBe(true);
    expect(parseStagingName(name)).toEqual({ owner: INSTANCE, madeAt: at });
  });

  it('reads back the time of a name made without an instance', () => {
    const at = Date.UTC(2025, 5, 6);
    const name = newStagingName(undefined, at);
    expect(name).not.toContain('.');
    expect(parseStagingName(name)).toEqual({ owner: null, madeAt: at });
  });

  it('gives no time for a name that does not say one', () => {
    expect(parseStagingName('notes.txt')).toEqual({ owner: 'notes', madeAt: 0 });
    expect(parseStagingName('')).toEqual({ owner: null, madeAt: 0 });
    expect(parseStagingName(`${INSTANCE}.%%-x`)).toEqual({ owner: INSTANCE, madeAt: 0 });
  });

  it('makes a different name each time', () => {
    const names = new Set(Array.from({ length: 50 }, () => newStagingName(INSTANCE, 1)));
    expect(names.size).toBe(50);
  });
});

describe('writeCounted', () => {
  const file = () => path.join(tempDir('staging-spec-'), 'f');

  it('writes the bytes and takes their facts, asking admit before each chunk', async () => {
    const target = file();
    const seen: [number, number][] = [];
    const facts = await writeCounted(Readable.from([Buffer.from('héllo '), Buffer.from('world')]), target, {
      utf8: true,
      admit: async (size, chunk) => {
        seen.push([size, chunk]);
      },
    });
    expect(fs.readFileSync(target, 'utf8')).toBe('héllo world');
    expect(facts.size).toBe(12);
    expect(facts.utf8).toBe(true);
    expect(facts.sha256).toBe(createHash('sha256').update('héllo world').digest('hex'));
    expect(seen).toEqual([
      [7, 7],
      [12, 5],
    ]);
  });

  it('stops at the chunk admit refuses, with admit’s error', async () => {
    const refused = new Error('too large');
    await expect(
      writeCounted(Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), file(), {
        utf8: false,
        admit: (size) => {
          if (size > 15) throw refused;
        },
      }),
    ).rejects.toBe(refused);
  });

  describe('flushing ahead', () => {
    afterEach(() => vi.restoreAllMocks());
    /** 3.5 flushes' worth of bytes in 64 KB chunks, each a turn of the event loop apart. */
    async function* arriving(): AsyncGenerator<Buffer> {
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let sent = 0; sent < 3.5 * FLUSH_AHEAD_BYTES; sent += chunk.length) {
        await new Promise((r) => setImmediate(r));
        yield chunk;
      }
    }

    /**
     * The real fdatasync, watched: the file's size at each flush, and the most flushes running at
     * once.
     */
    function watchFlushes() {
      const seen = { flushed: [] as number[], running: 0, most: 0 };
      const fdatasync = fs.fdatasync;
      vi.spyOn(fs, 'fdatasync').mockImplementation(((
        fd: number,
        done: (err: NodeJS.ErrnoException | null) => void,
      ) => {
        seen.running++;
        seen.most = Math.max(seen.most, seen.running);
        seen.flushed.push(fs.fstatSync(fd).size);
        fdatasync(fd, (err) => {
          seen.running--;
          done(err);
        });
      }) as typeof fs.fdatasync);
      return seen;
    }

    it('flushes a file that will be a blob to disk as it grows, one flush at a time, and writes it whole', async () => {
      const target = file();
      const seen = watchFlushes();
      const { flushed } = seen;
      const facts = await writeCounted(Readable.from(arriving()), target, { utf8: true, flushAhead: true });
      expect(facts.size).toBe(fs.statSync(target).size);
      expect(facts.size).toBeGreaterThanOrEqual(3.5 * FLUSH_AHEAD_BYTES);
      // Each flush came after FLUSH_AHEAD_BYTES more were written; none overlapped another.
      expect(flushed.length).toBeGreaterThanOrEqual(1);
      expect(flushed.length).toBeLessThanOrEqual(3);
      for (const [i, size] of flushed.entries())
        expect(size).toBeGreaterThanOrEqual((i + 1) * FLUSH_AHEAD_BYTES);
      expect(seen.most).toBe(1);
      expect(seen.running).toBe(0);
    });

    it('flushes a digest deploy’s large file as it arrives, after the bytes kept in memory', async () => {
      const { flushed } = watchFlushes();
      const target = file();
      const received = await receiveCounted(Readable.from(arriving()), {
        utf8: true,
        inMemory: 1024 * 1024,
        file: async () => target,
      });
      expect(received.file).toBe(target);
      expect(received.facts.size).toBe(fs.statSync(target).size);
      expect(flushed.length).toBeGreaterThanOrEqual(1);
      for (const [i, size] of flushed.entries())
        expect(size).toBeGreaterThanOrEqual((i + 1) * FLUSH_AHEAD_BYTES);
    });

    it('never flushes without flushAhead (an archive’s staging copy)', async () => {
      const spy = vi.spyOn(fs, 'fdatasync');
      const target = file();
      const facts = await writeCounted(Readable.from(arriving()), target, { utf8: true });
      expect(facts.size).toBe(fs.statSync(target).size);
      expect(spy).not.toHaveBeenCalled();
    });
  });
});

describe('receiveCounted', () => {
  const dir = () => tempDir('staging-spec-');
  const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

  it('keeps a source that fits in memory, one buffer, and makes no file', async () => {
    let asked = false;
    const got = await receiveCounted(Readable.from([Buffer.from('héllo '), Buffer.from('world')]), {
      utf8: true,
      inMemory: 100,
      file: async () => {
        asked = true;
        return path.join(dir(), 'f');
      },
    });
    expect(asked).toBe(false);
    expect(got.file).toBeUndefined();
    expect(got.bytes?.toString()).toBe('héllo world');
    expect(got.facts).toMatchObject({ size: 12, utf8: true, sha256: sha('héllo world') });
  });

  it('writes a larger source to the file it asks for, the bytes read before it included', async () => {
    const chunks = Array.from({ length: 20 }, (_, i) => Buffer.alloc(1000, 97 + i));
    const target = path.join(dir(), 'f');
    const seen: number[] = [];
    const got = await receiveCounted(Readable.from(chunks), {
      utf8: false,
      inMemory: 2_500,
      file: async () => target,
      admit: (size) => {
        seen.push(size);
      },
    });
    const all = Buffer.concat(chunks);
    expect(got.bytes).toBeUndefined();
    expect(got.file).toBe(target);
    expect(fs.readFileSync(target)).toEqual(all);
    expect(got.facts).toMatchObject({ size: 20_000, sha256: sha(all) });
    // Every chunk was admitted once, in order, whether it arrived before or after the spill.
    expect(seen).toEqual(chunks.map((_, i) => (i + 1) * 1000));
  });

  it('stops at the chunk admit refuses, in memory or in the file, and destroys the source', async () => {
    const refused = new Error('too large');
    for (const inMemory of [1_000_000, 5]) {
      const source = Readable.from([Buffer.alloc(10), Buffer.alloc(10), Buffer.alloc(10)]);
      await expect(
        receiveCounted(source, {
          utf8: false,
          inMemory,
          file: async () => path.join(dir(), 'f'),
          admit: (size) => {
            if (size > 15) throw refused;
          },
        }),
      ).rejects.toBe(refused);
      expect(source.destroyed).toBe(true);
    }
  });

  it('ends with the abort’s reason when the signal aborts while the source is silent', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.from('first'));
    const abort = new AbortController();
    const received = receiveCounted(source, {
      utf8: true,
      inMemory: 100,
      file: async () => path.join(dir(), 'f'),
      signal: abort.signal,
    });
    const reason = new Error('client gone');
    setImmediate(() => abort.abort(reason));
    await expect(received).rejects.toBe(reason);
    expect(source.destroyed).toBe(true);
  });
});
