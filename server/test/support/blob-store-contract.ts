/**
 * The BlobStore contract, as a suite any implementation runs: `blobStoreContract(name, makeStore)`.
 * The local store runs it in src/storage/blob-store.spec.ts, the S3 store in s3-blob-store.spec.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobNotFound, type BlobStore } from '../../src/storage/blob-store.js';

export interface BlobStoreFixture {
  store: BlobStore;
  /** Where writes in progress go: must be empty once a put has finished or failed. */
  tempLeftovers(): Promise<string[]>;
  /** A local file to hand to putFile. */
  makeFile(content: Buffer): Promise<string>;
  cleanup(): Promise<void>;
}

export const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export async function bytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const h of it) out.push(h);
  return out.sort();
}

/** A source that sends some bytes, then fails, like a client that disconnects mid-upload. */
export function failingSource(chunks = 3): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent++ < chunks) this.push(randomBytes(64 * 1024));
      else this.destroy(new Error('client went away'));
    },
  });
}

export function blobStoreContract(name: string, makeStore: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let fx: BlobStoreFixture;
    let store: BlobStore;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it('put stores bytes under their SHA-256 and reports the size', async () => {
      const content = Buffer.from('<h1>你好</h1>');
      const result = await store.put(Readable.from([content]));
      expect(result).toEqual({ sha256: sha(content), size: content.length });
      expect(await store.stat(result.sha256)).toEqual({ size: content.length });
      expect(await bytes(await store.read(result.sha256))).toEqual(content);
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('put hashes a many-chunk stream and an empty one', async () => {
      const chunks = Array.from({ length: 40 }, () => randomBytes(32 * 1024));
      const whole = Buffer.concat(chunks);
      const big = await store.put(Readable.from(chunks));
      expect(big).toEqual({ sha256: sha(whole), size: whole.length });
      expect(sha(await bytes(await store.read(big.sha256)))).toBe(big.sha256);

      const empty = await store.put(Readable.from([]));
      expect(empty).toEqual({ sha256: sha(''), size: 0 });
      expect((await bytes(await store.read(empty.sha256))).length).toBe(0);
    });

    it('put is idempotent: the same bytes twice are one blob', async () => {
      const first = await store.put(Readable.from([Buffer.from('same')]));
      const second = await store.put(Readable.from([Buffer.from('sa'), Buffer.from('me')]));
      expect(second).toEqual(first);
      expect(await collect(store.list())).toEqual([first.sha256]);
      expect(await text(await store.read(first.sha256))).toBe('same');
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('putFile adopts a local file and consumes it', async () => {
      const content = randomBytes(10_000);
      const file = await fx.makeFile(content);
      await store.putFile(file, sha(content));
      expect(await bytes(await store.read(sha(content)))).toEqual(content);
      await expect(fs.access(file)).rejects.toThrow();
    });

    it('putFile of a hash already stored keeps the blob and still consumes the file', async () => {
      const content = Buffer.from('body { color: red }');
      await store.put(Readable.from([content]));
      const file = await fx.makeFile(content);
      await store.putFile(file, sha(content));
      await expect(fs.access(file)).rejects.toThrow();
      expect(await bytes(await store.read(sha(content)))).toEqual(content);
    });

    it('putBytes stores bytes under the given hash, leaving no temp file', async () => {
      const content = randomBytes(20_000);
      await store.putBytes(content, sha(content));
      expect(await bytes(await store.read(sha(content)))).toEqual(content);
      expect(await store.stat(sha(content))).toEqual({ size: content.length });
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('putBytes of a hash already stored keeps the blob, and twice at once stores it once', async () => {
      const content = Buffer.from('p { margin: 0 }');
      await store.put(Readable.from([content]));
      await store.putBytes(content, sha(content));
      const other = randomBytes(5_000);
      await Promise.all([store.putBytes(other, sha(other)), store.putBytes(other, sha(other))]);
      expect(await bytes(await store.read(sha(content)))).toEqual(content);
      expect(await bytes(await store.read(sha(other)))).toEqual(other);
      expect((await collect(store.list())).sort()).toEqual([sha(content), sha(other)].sort());
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('read returns byte ranges: first byte, last byte, middle, clamped end', async () => {
      const content = Buffer.from('0123456789abcdef');
      const { sha256 } = await store.put(Readable.from([content]));
      const range = async (start: number, end: number) =>
        (await bytes(await store.read(sha256, { start, end }))).toString();
      expect(await range(0, 0)).toBe('0');
      expect(await range(15, 15)).toBe('f');
      expect(await range(4, 9)).toBe('456789');
      expect(await range(10, 1000)).toBe('abcdef');
      await expect(store.read(sha256, { start: 16, end: 20 })).rejects.toBeInstanceOf(RangeError);
      await expect(store.read(sha256, { start: 5, end: 4 })).rejects.toBeInstanceOf(RangeError);
      await expect(store.read(sha256, { start: -1, end: 4 })).rejects.toBeInstanceOf(RangeError);
    });

    it('a missing blob: read throws BlobNotFound, stat is null, delete is fine', async () => {
      const missing = sha('never stored');
      await expect(store.read(missing)).rejects.toBeInstanceOf(BlobNotFound);
      await expect(store.read(missing, { start: 0, end: 1 })).rejects.toBeInstanceOf(BlobNotFound);
      expect(await store.stat(missing)).toBeNull();
      await expect(store.delete(missing)).resolves.toBeUndefined();
    });

    it('delete removes the blob and its variants', async () => {
      const { sha256 } = await store.put(Readable.from([Buffer.from('gone soon')]));
      await store.putVariant(sha256, 'gz', Readable.from([Buffer.from('zipped')]));
      await store.delete(sha256);
      expect(await store.stat(sha256)).toBeNull();
      expect(await store.statVariant(sha256, 'gz')).toBeNull();
      expect(await store.readVariant(sha256, 'gz')).toBeNull();
      expect(await collect(store.list())).toEqual([]);
    });

    it('an interrupted put stores nothing and leaves no temp file', async () => {
      await expect(store.put(failingSource())).rejects.toThrow('client went away');
      expect(await collect(store.list())).toEqual([]);
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('an interrupted put larger than one upload part (5 MiB) stores nothing either', async () => {
      await expect(store.put(failingSource(100))).rejects.toThrow('client went away');
      expect(await collect(store.list())).toEqual([]);
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('list yields every stored hash once, and no variants', async () => {
      const hashes: string[] = [];
      for (const body of ['a', 'b', 'c', 'd']) hashes.push((await store.put(Readable.from([body]))).sha256);
      await store.putVariant(hashes[0]!, 'br', Readable.from([Buffer.from('x')]));
      expect(await collect(store.list())).toEqual(hashes.sort());
    });

    it('variants are stored, read, sized and replaced per hash and name', async () => {
      const { sha256 } = await store.put(Readable.from([Buffer.from('x'.repeat(5000))]));
      expect(await store.readVariant(sha256, 'br')).toBeNull();
      expect(await store.statVariant(sha256, 'br')).toBeNull();
      await store.putVariant(sha256, 'br', Readable.from([Buffer.from('brotli bytes')]));
      await store.putVariant(sha256, 'gz', Readable.from([Buffer.from('gzip')]));
      expect(await store.statVariant(sha256, 'br')).toEqual({ size: 12 });
      expect(await text((await store.readVariant(sha256, 'gz'))!)).toBe('gzip');
      await store.putVariant(sha256, 'gz', Readable.from([Buffer.from('gzip v2')]));
      expect(await text((await store.readVariant(sha256, 'gz'))!)).toBe('gzip v2');
      expect(await store.stat(sha256)).toEqual({ size: 5000 });
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('a variant needs its blob', async () => {
      await expect(
        store.putVariant(sha('no such blob'), 'br', Readable.from([Buffer.from('x')])),
      ).rejects.toBeInstanceOf(BlobNotFound);
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('a failed variant write leaves nothing', async () => {
      const { sha256 } = await store.put(Readable.from([Buffer.from('base')]));
      await expect(store.putVariant(sha256, 'br', failingSource())).rejects.toThrow('client went away');
      expect(await store.statVariant(sha256, 'br')).toBeNull();
      expect(await fx.tempLeftovers()).toEqual([]);
    });

    it('every call refuses a malformed hash or variant name', async () => {
      const good = sha('x');
      const bad = [
        '../../etc/passwd',
        good.toUpperCase(),
        good.slice(1),
        `${good}0`,
        `${good.slice(0, 62)}/.`,
        '',
      ];
      for (const h of bad) {
        await expect(store.read(h)).rejects.toBeInstanceOf(TypeError);
        await expect(store.stat(h)).rejects.toBeInstanceOf(TypeError);
        await expect(store.delete(h)).rejects.toBeInstanceOf(TypeError);
        await expect(store.putFile('/nonexistent', h)).rejects.toBeInstanceOf(TypeError);
        await expect(store.putBytes(Buffer.from('x'), h)).rejects.toBeInstanceOf(TypeError);
        await expect(store.readVariant(h, 'br')).rejects.toBeInstanceOf(TypeError);
        await expect(store.statVariant(h, 'br')).rejects.toBeInstanceOf(TypeError);
        await expect(store.putVariant(h, 'br', Readable.from([]))).rejects.toBeInstanceOf(TypeError);
      }
      for (const v of ['../x', 'a/b', 'BR', '', 'x'.repeat(17), 'br.gz']) {
        await expect(store.readVariant(good, v)).rejects.toBeInstanceOf(TypeError);
        await expect(store.statVariant(good, v)).rejects.toBeInstanceOf(TypeError);
      }
    });
  });
}
