/** The BlobStore contract (test/support/blob-store-contract.ts) on the local store, and its specifics. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BlobStoreFixture,
  blobStoreContract,
  bytes,
  collect,
  sha,
} from '../../test/support/blob-store-contract.js';
import { LocalBlobStore } from './local-blob-store.js';

async function localFixture(): Promise<BlobStoreFixture & { dir: string; store: LocalBlobStore }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sitehall-blobs-'));
  const store = LocalBlobStore.inDataDir(dir);
  return {
    dir,
    store,
    tempLeftovers: async () => fs.readdir(path.join(dir, 'blobs', '.tmp')).catch(() => []),
    makeFile: async (content) => {
      const file = path.join(dir, `staged-${randomBytes(4).toString('hex')}`);
      await fs.writeFile(file, content);
      return file;
    },
    cleanup: () => fs.rm(dir, { recursive: true, force: true }),
  };
}

blobStoreContract('LocalBlobStore', localFixture);

describe('LocalBlobStore specifics', () => {
  let fx: Awaited<ReturnType<typeof localFixture>>;
  beforeEach(async () => {
    fx = await localFixture();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it('lays blobs out as DATA_DIR/blobs/aa/bb/<hash> with variants beside them', async () => {
    const { sha256 } = await fx.store.put(Readable.from([Buffer.from('layout')]));
    await fx.store.putVariant(sha256, 'br', Readable.from([Buffer.from('v')]));
    const dir = path.join(fx.dir, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4));
    expect((await fs.readdir(dir)).sort()).toEqual([sha256, `${sha256}.br`]);
  });

  it('stores again into a folder removed under it (folders it made are remembered, not trusted)', async () => {
    const first = await fx.store.put(Readable.from([Buffer.from('first')]));
    // Its folder removed by hand while the server runs.
    const shard = path.join(fx.dir, 'blobs', first.sha256.slice(0, 2));
    await fs.rm(shard, { recursive: true, force: true });
    const again = await fx.store.put(Readable.from([Buffer.from('first')]));
    expect(again.sha256).toBe(first.sha256);
    expect((await bytes(await fx.store.read(first.sha256))).toString()).toBe('first');
    await fs.rm(shard, { recursive: true, force: true });
    const staged = await fx.makeFile(Buffer.from('first'));
    await fx.store.putFile(staged, first.sha256);
    expect((await bytes(await fx.store.read(first.sha256))).toString()).toBe('first');
  });

  it('sizes says what stat says of each hash, over many event-loop turns', async () => {
    const held = await Promise.all(
      Array.from({ length: 3 }, (_, i) => fx.store.put(Readable.from([Buffer.from('x'.repeat(i))]))),
    );
    const missing = Array.from({ length: 1200 }, (_, i) => sha(`missing ${i}`));
    // A folder where a fan-out folder should be a file (ENOTDIR on the way) reads as missing too.
    const odd = sha('odd');
    await fs.mkdir(path.join(fx.dir, 'blobs', odd.slice(0, 2)), { recursive: true });
    await fs.writeFile(path.join(fx.dir, 'blobs', odd.slice(0, 2), odd.slice(2, 4)), 'x');
    const sizes = await fx.store.sizes([...missing, ...held.map((h) => h.sha256), odd]);
    expect([...sizes]).toEqual(held.map((h) => [h.sha256, h.size]));
    for (const h of [...held.map((x) => x.sha256), missing[0]!, odd])
      expect((await fx.store.stat(h))?.size).toBe(sizes.get(h));
    await expect(fx.store.sizes(['../../etc/passwd'])).rejects.toThrow();
  });

  it('list ignores foreign files and folders', async () => {
    const { sha256 } = await fx.store.put(Readable.from([Buffer.from('real')]));
    await fs.writeFile(path.join(fx.dir, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), 'notes.txt'), 'x');
    await fs.mkdir(path.join(fx.dir, 'blobs', 'zz'), { recursive: true });
    await fs.writeFile(path.join(fx.dir, 'blobs', 'README'), 'x');
    expect(await collect(fx.store.list())).toEqual([sha256]);
  });

  it('putFile copies across file systems when rename cannot (EXDEV)', async () => {
    const shm = '/dev/shm';
    const other = await fs.stat(shm).catch(() => null);
    const here = await fs.stat(fx.dir);
    if (!other?.isDirectory() || other.dev === here.dev) return; // no second file system here
    const content = randomBytes(3000);
    const file = path.join(shm, `sitehall-${randomBytes(4).toString('hex')}`);
    await fs.writeFile(file, content);
    await fx.store.putFile(file, sha(content));
    expect(await bytes(await fx.store.read(sha(content)))).toEqual(content);
    await expect(fs.access(file)).rejects.toThrow();
    expect(await fx.tempLeftovers()).toEqual([]);
  });

  it('removeStaleTemp removes only old temp files', async () => {
    const tmp = path.join(fx.dir, 'blobs', '.tmp');
    await fs.mkdir(tmp, { recursive: true });
    await fs.writeFile(path.join(tmp, 'old'), 'x');
    await fs.writeFile(path.join(tmp, 'fresh'), 'x');
    const past = new Date(Date.now() - 2 * 3600_000);
    await fs.utimes(path.join(tmp, 'old'), past, past);
    expect(await fx.store.removeStaleTemp()).toBe(1);
    expect(await fs.readdir(tmp)).toEqual(['fresh']);
  });

  it('reads a large blob intact in big chunks', async () => {
    const content = randomBytes(5 * 1024 * 1024);
    const { sha256 } = await fx.store.put(Readable.from([content]));
    const stream = await fx.store.read(sha256);
    expect(stream.readableHighWaterMark).toBeGreaterThanOrEqual(64 * 1024);
    expect(sha(await bytes(stream))).toBe(sha256);
  });
});
