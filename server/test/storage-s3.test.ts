/**
 * The whole app on S3-compatible storage (STORAGE=s3 against s3rver): an uploaded zip's files go
 * to the bucket and none to the data folder, the approved site is served from it with byte
 * ranges, small hot files come from the memory cache in front of it, and compressed variants are
 * stored beside the blobs in the bucket.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { S3BlobStore } from '../src/storage/s3-blob-store.js';
import {
  createTestApp,
  listenPort,
  listTree,
  makeZip,
  rawRequest,
  review,
  type TestApp,
  tempDir,
  uploadProject,
} from './helpers.js';
import { type LocalS3, startS3rver } from './support/s3rver.js';

const CSS = `body { color: #333; }\n${'.card { margin: 0 auto; padding: 1em; }\n'.repeat(250)}`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const BIG = Buffer.concat([PNG, randomBytes(2 * 1024 * 1024 + 123)]);
const SITE = {
  'index.html':
    '<!doctype html><html><head><link rel="stylesheet" href="css/style.css"></head><body><h1>存储在对象存储里的站点</h1></body></html>',
  'css/style.css': CSS,
  'media/big.png': BIG,
};

let s3: LocalS3;
let t: TestApp;
let id: number;
let port: number;

beforeAll(async () => {
  s3 = await startS3rver();
  // The configuration an operator writes, read as main.ts reads it.
  const { storage } = loadConfig({ ...s3.env, S3_PREFIX: 'sitehall' });
  t = await createTestApp({ storage });
  const owner = await t.createUser();
  const res = await uploadProject(t, owner.token, {
    name: '对象存储站点',
    files: [{ name: 'site.zip', content: await makeZip(SITE) }],
  });
  expect(res.statusCode, res.body).toBe(201);
  id = res.json().data.project.id;
  expect((await review(t, id, 'approve')).statusCode).toBe(200);
  port = await listenPort(t);
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

/** Open TCP connections from a client to 127.0.0.1:port (the kernel's table, /proc/net/tcp). */
function establishedTo(port: number): number {
  const ESTABLISHED = '01';
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[2] === remote && f[3] === ESTABLISHED).length;
}

async function bucketKeys(): Promise<string[]> {
  const store = t.ctx.store as S3BlobStore;
  const res = await store.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (res.Contents ?? []).map((o) => o.Key!).sort();
}

describe('STORAGE=s3', () => {
  it('stores the uploaded files in the bucket, under the prefix, and none in the data folder', async () => {
    expect(t.ctx.store).toBeInstanceOf(S3BlobStore);
    const blobs = (await bucketKeys()).filter((k) => k.startsWith('sitehall/blobs/'));
    expect(blobs).toHaveLength(3);
    expect(listTree(t.dataDir).filter((p) => p.startsWith('blobs/') && !p.startsWith('blobs/.tmp'))).toEqual(
      [],
    );
    expect(await bucketKeys()).not.toContainEqual(expect.stringMatching(/^sitehall\/tmp\//));
  });

  it('serves the approved site from the bucket', async () => {
    const page = await t.request({ url: `/sites/${id}/` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('存储在对象存储里的站点');
    const css = await t.request({ url: `/sites/${id}/css/style.css` });
    expect(css.body).toBe(CSS);
  });

  it('streams a large file whole and in byte ranges from S3', async () => {
    const url = `/sites/${id}/media/big.png`;
    const whole = await rawRequest(port, url);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(BIG.length));
    expect(whole.body.equals(BIG)).toBe(true);

    const middle = await rawRequest(port, url, { headers: { range: 'bytes=1000000-1000099' } });
    expect(middle.status).toBe(206);
    expect(middle.headers['content-range']).toBe(`bytes 1000000-1000099/${BIG.length}`);
    expect(middle.body.equals(BIG.subarray(1_000_000, 1_000_100))).toBe(true);

    const first = await rawRequest(port, url, { headers: { range: 'bytes=0-0' } });
    expect(first.status).toBe(206);
    expect(first.body.equals(BIG.subarray(0, 1))).toBe(true);

    const tail = await rawRequest(port, url, { headers: { range: 'bytes=-100' } });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(BIG.subarray(BIG.length - 100))).toBe(true);

    const past = await rawRequest(port, url, { headers: { range: `bytes=${BIG.length}-` } });
    expect(past.status).toBe(416);
  });

  it('answers ranges of small files too, from the memory cache', async () => {
    const url = `/sites/${id}/css/style.css`;
    const part = await t.request({ url, headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe(CSS.slice(0, 10));
    expect(part.headers['content-range']).toBe(`bytes 0-9/${CSS.length}`);
  });

  it('keeps hot small files in memory, in front of the bucket', async () => {
    const html = await t.request({ url: `/sites/${id}/` });
    const store = t.ctx.store as S3BlobStore;
    const row = await t.ctx.db
      .selectFrom('deployment_files')
      .select('sha256')
      .where('path', '=', 'index.html')
      .executeTakeFirstOrThrow();
    expect(t.ctx.services.siteFiles.memory.get(row.sha256)).toBeDefined();
    // With the object gone from the bucket, the page still comes from memory: no request reached S3.
    await store.client.send(
      new DeleteObjectCommand({
        Bucket: s3.bucket,
        Key: `sitehall/blobs/${row.sha256.slice(0, 2)}/${row.sha256}`,
      }),
    );
    const again = await t.request({ url: `/sites/${id}/` });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(html.body);
  });

  it('refuses to start, in plain words, when the bucket does not exist', async () => {
    const dataDir = tempDir();
    const config = loadConfig({
      ...s3.env,
      S3_BUCKET: 'no-such-bucket',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
    });
    const attempt = buildApp(config, { logger: false });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    fs.rmSync(dataDir, { recursive: true, force: true });
    await expect(attempt).rejects.toThrow(
      /S3 storage: bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ cannot be used/,
    );
  });

  it('closes its connections to the bucket when the app closes', async () => {
    // Its own bucket server, so only this app's connections are counted.
    const own = await startS3rver();
    try {
      const app = await createTestApp({ storage: loadConfig(own.env).storage });
      const s3Port = Number(new URL(own.endpoint).port);
      const res = await uploadProject(app, (await app.createUser()).token, {
        name: '连接测试',
        files: [{ name: 'index.html', content: '<!doctype html><h1>连接</h1>' }],
      });
      expect(res.statusCode, res.body).toBe(201);
      // Keep-alive connections stay open between requests...
      expect(establishedTo(s3Port)).toBeGreaterThan(0);
      await app.close();
      // ...and are closed with the app, not left for the process's exit.
      expect(establishedTo(s3Port)).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('stores compressed variants beside the blobs in the bucket', async () => {
    const url = `/sites/${id}/css/style.css`;
    const br = await t.request({ url, headers: { 'accept-encoding': 'br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(CSS);
    await t.ctx.services.siteFiles.idle();
    expect(await bucketKeys()).toContainEqual(
      expect.stringMatching(/^sitehall\/variants\/[0-9a-f]{64}\.br$/),
    );
  });
});
