/**
 * The BlobStore contract on S3BlobStore against a real S3-compatible server (s3rver, started here),
 * and what is particular to object storage: the key layout, multipart uploads, temp objects.
 * Each test gets its own key prefix in one bucket, so tests never see each other's objects.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTcpProxy } from '../../test/faults/tcp-proxy.js';
import {
  type BlobStoreFixture,
  blobStoreContract,
  bytes,
  collect,
  failingSource,
  sha,
} from '../../test/support/blob-store-contract.js';
import { type LocalS3, startS3rver } from '../../test/support/s3rver.js';
import { BlobNotFound, type StoreEvent } from './blob-store.js';
import { createS3Client, S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';
import { StorageUnavailable } from './s3-guard.js';

let s3: LocalS3;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.close();
});

async function s3Fixture(
  opts: S3BlobStoreOptions = {},
): Promise<BlobStoreFixture & { store: S3BlobStore; prefix: string; keys(): Promise<string[]> }> {
  const prefix = `t-${randomBytes(6).toString('hex')}/`;
  const client = createS3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  });
  // These tests are about what the store does, not when it counts as down: a loaded runner may take
  // over a second to answer the guard's HeadBucket, so its bound is generous here (the outage
  // tests below make their own stores with the product's bound).
  const store = new S3BlobStore(client, s3.bucket, prefix, { probeMs: 15_000, ...opts });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sitehall-s3-files-'));
  return {
    store,
    prefix,
    tempLeftovers: () => store.tempKeys(),
    makeFile: async (content) => {
      const file = path.join(dir, `staged-${randomBytes(4).toString('hex')}`);
      await fs.writeFile(file, content);
      return file;
    },
    /** Every key under this fixture's prefix, without the prefix. */
    keys: async () => {
      const res = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
      return (res.Contents ?? []).map((o) => o.Key!.slice(prefix.length)).sort();
    },
    cleanup: async () => {
      await fs.rm(dir, { recursive: true, force: true });
      client.destroy();
    },
  };
}

blobStoreContract('S3BlobStore (s3rver)', () => s3Fixture());

/** The names of the S3 commands the store sends from now on, in order. */
function recordCommands(store: S3BlobStore): string[] {
  const sent: string[] = [];
  store.client.middlewareStack.add(
    (next, context) => (args) => {
      // Not the guard's HeadBucket: it asks whenever a call has waited long for its answer (a
      // loaded runner's PutObject did, and a CI run recorded it among the store's own calls).
      if (context.commandName !== 'HeadBucketCommand') sent.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return sent;
}

describe('S3BlobStore specifics', () => {
  let fx: Awaited<ReturnType<typeof s3Fixture>>;
  beforeEach(async () => {
    fx = await s3Fixture();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it('lays objects out as blobs/<aa>/<hash> and variants/<hash>.<name> under the prefix', async () => {
    const { sha256 } = await fx.store.put(Readable.from([Buffer.from('layout')]));
    await fx.store.putVariant(sha256, 'br', Readable.from([Buffer.from('v')]));
    expect(await fx.keys()).toEqual([`blobs/${sha256.slice(0, 2)}/${sha256}`, `variants/${sha256}.br`]);
  });

  it('list ignores foreign keys under blobs/ and pages through many objects', async () => {
    const put = (key: string) =>
      fx.store.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${fx.prefix}${key}`, Body: 'x' }));
    const real = sha('real');
    await put('blobs/README');
    await put(`blobs/zz/${real}`); // wrong fan-out folder
    await put(`blobs/${real.slice(0, 2)}/notes.txt`);
    const hashes: string[] = [];
    // More than one ListObjectsV2 page (1000 keys).
    for (let i = 0; i < 1005; i++) hashes.push(sha(`blob ${i}`));
    for (let i = 0; i < hashes.length; i += 25) {
      await Promise.all(hashes.slice(i, i + 25).map((h) => put(`blobs/${h.slice(0, 2)}/${h}`)));
    }
    expect(await collect(fx.store.list())).toEqual(hashes.sort());
  }, 120_000);

  it('a multipart upload: a 12 MB blob streams in parts and reads back whole and in ranges', async () => {
    const content = randomBytes(12 * 1024 * 1024);
    const chunks = Array.from({ length: 12 }, (_, i) =>
      content.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024),
    );
    const { sha256, size } = await fx.store.put(Readable.from(chunks));
    expect(size).toBe(content.length);
    expect(sha(await bytes(await fx.store.read(sha256)))).toBe(sha(content));
    const tail = await bytes(
      await fx.store.read(sha256, { start: content.length - 10, end: content.length + 99 }),
    );
    expect(tail).toEqual(content.subarray(content.length - 10));
    expect(await fx.tempLeftovers()).toEqual([]);
  }, 240_000);

  it('an interrupted multipart put asks the server to abort the upload', async () => {
    const sent = recordCommands(fx.store);
    await expect(fx.store.put(failingSource(100))).rejects.toThrow('client went away');
    expect(sent).toContain('CreateMultipartUploadCommand');
    expect(sent).toContain('AbortMultipartUploadCommand');
    expect(sent).not.toContain('CompleteMultipartUploadCommand');
    expect(await fx.keys()).toEqual([]);
  }, 240_000);

  it('putFile streams a small file in one PutObject and a large one in parts', async () => {
    const sent = recordCommands(fx.store);
    const small = randomBytes(100_000);
    await fx.store.putFile(await fx.makeFile(small), sha(small));
    expect(sent).toEqual(['HeadObjectCommand', 'PutObjectCommand']);
    sent.length = 0;
    const large = randomBytes(6 * 1024 * 1024);
    await fx.store.putFile(await fx.makeFile(large), sha(large));
    expect(sent).toContain('CreateMultipartUploadCommand');
    expect(sent).toContain('CompleteMultipartUploadCommand');
    expect(sha(await bytes(await fx.store.read(sha(large))))).toBe(sha(large));
    expect(await bytes(await fx.store.read(sha(small)))).toEqual(small);
  }, 240_000);

  it('beyond the CopyObject limit, put streams the temp object to its final key instead', async () => {
    const small = await s3Fixture({ maxCopyObjectBytes: 1000 });
    try {
      const content = randomBytes(50_000);
      const { sha256 } = await small.store.put(Readable.from([content]));
      expect(await bytes(await small.store.read(sha256))).toEqual(content);
      expect(await small.keys()).toEqual([`blobs/${sha256.slice(0, 2)}/${sha256}`]);
    } finally {
      await small.cleanup();
    }
  });

  it('putFile of a missing local file fails and stores nothing', async () => {
    const missing = path.join(os.tmpdir(), `sitehall-none-${randomBytes(4).toString('hex')}`);
    await expect(fx.store.putFile(missing, sha('x'))).rejects.toThrow();
    await expect(fx.store.read(sha('x'))).rejects.toBeInstanceOf(BlobNotFound);
    expect(await fx.keys()).toEqual([]);
  });

  it('a read cut off by the network fails as a stream error, never as a short clean end', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    proxy.cutAfter(300 * 1024);
    const client = createS3Client({
      endpoint: `http://127.0.0.1:${proxy.port}`,
      region: s3.region,
      bucket: s3.bucket,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    const cutOff = new S3BlobStore(client, s3.bucket, fx.prefix);
    try {
      const content = randomBytes(2 * 1024 * 1024);
      const { sha256 } = await fx.store.put(Readable.from([content]));
      await expect(bytes(await cutOff.read(sha256))).rejects.toThrow();
      await expect(bytes(await cutOff.read(sha256, { start: 1000, end: 1_500_000 }))).rejects.toThrow();
      expect(proxy.cuts).toBe(2);
      proxy.cutAfter(null);
      expect((await bytes(await cutOff.read(sha256))).equals(content)).toBe(true);
    } finally {
      client.destroy();
      await proxy.close();
    }
  });

  it('putFile of a file that fails while it is read: that error, nothing stored, the process up', async () => {
    // A folder stats fine and opens, then every read fails (EISDIR): the read error of a file
    // small enough for one PutObject, whose body the SDK pipes without listening to it.
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'sitehall-unreadable-'));
    try {
      await expect(fx.store.putFile(folder, sha('unreadable'))).rejects.toMatchObject({ code: 'EISDIR' });
      await expect(fx.store.read(sha('unreadable'))).rejects.toBeInstanceOf(BlobNotFound);
      expect(await fx.keys()).toEqual([]);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('when the store cannot be reached, put fails with the 503 error (the cause kept), and putFile keeps the local file', async () => {
    const client = createS3Client({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      bucket: 'nowhere',
      accessKeyId: 'a',
      secretAccessKey: 'b',
      forcePathStyle: true,
    });
    const down = new S3BlobStore(client, 'nowhere');
    try {
      const failed = await down.put(Readable.from([randomBytes(1000)])).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(StorageUnavailable);
      expect(failed).toMatchObject({ kind: 'unavailable', message: '文件存储暂时不可用，请稍后重试' });
      expect(String((failed as StorageUnavailable).storeError)).toMatch(/ECONNREFUSED/);
      const file = await fx.makeFile(Buffer.from('kept'));
      await expect(down.putFile(file, sha('kept'))).rejects.toBeInstanceOf(StorageUnavailable);
      expect(await fs.readFile(file, 'utf8')).toBe('kept');
    } finally {
      await down.close();
    }
  });

  it('removeStaleTemp removes only temp objects older than the limit', async () => {
    await fx.store.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: `${fx.prefix}tmp/left-by-a-crash`, Body: 'x' }),
    );
    const { sha256 } = await fx.store.put(Readable.from([Buffer.from('kept')]));
    // Nothing is an hour old yet; after a second, a one-second limit makes the leftover stale.
    expect(await fx.store.removeStaleTemp()).toBe(0);
    expect(await fx.store.tempKeys()).toEqual([`${fx.prefix}tmp/left-by-a-crash`]);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // LastModified has 1 s resolution
    expect(await fx.store.removeStaleTemp(1000)).toBe(1);
    expect(await fx.keys()).toEqual([`blobs/${sha256.slice(0, 2)}/${sha256}`]);
  });
});

describe('S3BlobStore when the store stops answering', () => {
  it('fails a call within 2 s instead of waiting, then at once; says down and up once each; works again after', async () => {
    const port = Number(new URL(s3.endpoint).port);
    const proxy = await startTcpProxy({ host: '127.0.0.1', port });
    const client = createS3Client({
      endpoint: `http://${proxy.address}`,
      region: s3.region,
      bucket: s3.bucket,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    const store = new S3BlobStore(client, s3.bucket, `t-${randomBytes(6).toString('hex')}/`);
    const events: StoreEvent['kind'][] = [];
    store.reportTo((event) => events.push(event.kind));
    try {
      expect(await store.stat('a'.repeat(64))).toBeNull();
      proxy.blackhole();
      // Connections are accepted and left silent: only the guard's question finds that out.
      let started = performance.now();
      await expect(store.stat('b'.repeat(64))).rejects.toBeInstanceOf(StorageUnavailable);
      expect(performance.now() - started).toBeLessThan(2_000);
      started = performance.now();
      await expect(store.read('b'.repeat(64))).rejects.toBeInstanceOf(StorageUnavailable);
      await expect(store.stat('b'.repeat(64))).rejects.toBeInstanceOf(StorageUnavailable);
      expect(performance.now() - started).toBeLessThan(50);
      expect(store.guard.down).toBe(true);
      proxy.restore();
      const until = Date.now() + 10_000;
      while (store.guard.down && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(await store.stat('c'.repeat(64))).toBeNull();
      expect(events).toEqual(['down', 'up']);
    } finally {
      await store.close();
      await proxy.close();
    }
  }, 240_000);

  it('a missing key or a refusal (no such bucket) is an answer, not an outage', async () => {
    const config = {
      endpoint: s3.endpoint,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    };
    const store = new S3BlobStore(createS3Client({ ...config, bucket: s3.bucket }), s3.bucket, 'missing/');
    const refused = new S3BlobStore(
      createS3Client({ ...config, bucket: 'no-such-bucket' }),
      'no-such-bucket',
    );
    try {
      expect(await store.stat('d'.repeat(64))).toBeNull();
      await expect(store.read('d'.repeat(64))).rejects.toBeInstanceOf(BlobNotFound);
      const error = await refused.put(Readable.from([Buffer.from('x')])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(StorageUnavailable);
      expect(store.guard.down).toBe(false);
      expect(refused.guard.down).toBe(false);
    } finally {
      await store.close();
      await refused.close();
    }
  });

  it('a store that refuses the platform’s own keys (403: revoked, rotated) is the 503, without counting as down', async () => {
    const wrongKeys = new S3BlobStore(
      createS3Client({
        endpoint: s3.endpoint,
        region: s3.region,
        accessKeyId: 'REVOKEDKEY',
        secretAccessKey: `${s3.secretAccessKey}-rotated`,
        forcePathStyle: true,
        bucket: s3.bucket,
      }),
      s3.bucket,
      'refused/',
      { probeMs: 15_000 },
    );
    try {
      for (const call of [
        () => wrongKeys.read('d'.repeat(64)),
        () => wrongKeys.put(Readable.from([Buffer.from('x')])),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StorageUnavailable);
        expect((error as StorageUnavailable).message).toBe('文件存储暂时不可用，请稍后重试');
        expect(
          ((error as Error).cause as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode,
        ).toBe(403);
      }
      // A refusal is an answer: the store is there, and its calls are still made.
      expect(wrongKeys.guard.down).toBe(false);
    } finally {
      await wrongKeys.close();
    }
  });
});
