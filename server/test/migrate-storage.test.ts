/**
 * npm run migrate-storage, run as an operator would (tsx on its source): an install made on
 * SQLite and the local data folder is copied to an S3-compatible bucket (s3rver) and, with
 * --to-database, to a new PostgreSQL schema (TEST_DATABASE_URL); then the app started on the new
 * configuration serves the same sites to the same users. The source is always SQLite, so this file
 * runs once, in the SQLite project; the PostgreSQL half needs TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { S3BlobStore } from '../src/storage/s3-blob-store.js';
import {
  createTestApp,
  makeZip,
  review,
  type TestApp,
  tempDir,
  uploadProject,
  usingPostgres,
} from './helpers.js';
import { runCli } from './support/cli.js';
import { type LocalS3, startS3rver } from './support/s3rver.js';

const PG_URL = process.env.TEST_DATABASE_URL;

const CSS = `body { color: #333; }\n${'.card { margin: 0 auto; padding: 1em; }\n'.repeat(250)}`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const BIG = Buffer.concat([PNG, randomBytes(1536 * 1024)]);
const SITE = {
  'index.html': '<!doctype html><html><body><h1>搬家前的站点</h1></body></html>',
  'css/style.css': CSS,
  'img/big.png': BIG,
};

describe.skipIf(usingPostgres)('npm run migrate-storage', () => {
  let s3: LocalS3;
  let source: TestApp;
  let owner: { id: number; username: string; password: string; token: string };
  let liveId: number;
  let pendingId: number;
  const before: Record<string, string> = {};

  beforeAll(async () => {
    s3 = await startS3rver();
    // The old install: SQLite and the local data folder, whatever project this file runs in.
    source = await createTestApp({ database: { kind: 'sqlite', file: '' } });
    owner = await source.createUser({ username: 'moving_user' });
    const res = await uploadProject(source, owner.token, {
      name: '搬家项目',
      files: [{ name: 'site.zip', content: await makeZip(SITE) }],
    });
    liveId = res.json().data.project.id;
    expect((await review(source, liveId, 'approve')).statusCode).toBe(200);
    const pending = await uploadProject(source, owner.token, {
      name: '待审核项目',
      files: [{ name: 'index.html', content: '<h1>待审核</h1>' }],
    });
    pendingId = pending.json().data.project.id;
    // A compressed variant, made on first request and stored beside its blob.
    await source.request({ url: `/sites/${liveId}/css/style.css`, headers: { 'accept-encoding': 'br' } });
    await source.ctx.services.siteFiles.idle();
    for (const p of ['', 'css/style.css'])
      before[p] = (await source.request({ url: `/sites/${liveId}/${p}` })).body;
    // Stopped, as the guide says, before migrating; its data stays.
    await source.app.close();
  });
  afterAll(async () => {
    fs.rmSync(source?.dataDir ?? '/nonexistent', { recursive: true, force: true });
    await s3?.close();
  });

  function migrate(env: Record<string, string>, ...args: string[]) {
    return runCli('migrate-storage.ts', args, source.config, env);
  }

  it('refuses to run with nothing to do, or with a target that is not PostgreSQL', async () => {
    const [nothing, badUrl, noBucket] = await Promise.all([
      migrate({ STORAGE: 'local' }),
      migrate({ STORAGE: 'local' }, '--to-database', 'mysql://x'),
      migrate({ STORAGE: 's3' }),
    ]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('STORAGE=s3');
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('--to-database must be a postgres://');
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr).toContain('S3_BUCKET');
  }, 120_000);

  it('copies every blob and variant to the bucket, and a second run skips them all', async () => {
    const first = await migrate(s3.env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('4/4 (100%)');
    expect(first.stdout).toMatch(/4 copied, 0 already there, 1 compressed variants/);

    const storage = loadConfig(s3.env).storage;
    if (storage.kind !== 's3') throw new Error('s3.env must configure S3 storage');
    const store = S3BlobStore.fromConfig(storage);
    const hashes: string[] = [];
    for await (const h of store.list()) hashes.push(h);
    expect(hashes).toHaveLength(4);
    const local = fs.readdirSync(path.join(source.dataDir, 'blobs'), { recursive: true }) as string[];
    expect(
      local
        .filter((p) => /[0-9a-f]{64}$/.test(p))
        .map((p) => p.slice(-64))
        .sort(),
    ).toEqual(hashes.sort());
    expect(local.some((p) => p.endsWith('.br'))).toBe(true);

    const again = await migrate(s3.env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/0 copied, 4 already there, 0 compressed variants/);
    store.client.destroy();
  }, 120_000);

  describe.skipIf(!PG_URL)('with --to-database (PostgreSQL)', () => {
    let schema: string;
    let targetUrl: string;
    let built: BuiltApp | undefined;
    let newDataDir: string;

    beforeAll(async () => {
      schema = `m_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`create schema ${schema}`);
      await client.end();
      const url = new URL(PG_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      targetUrl = url.toString();
      newDataDir = tempDir();
    });
    afterAll(async () => {
      await built?.app.close();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
      fs.rmSync(newDataDir, { recursive: true, force: true });
    });

    it('copies the database; the app on PostgreSQL and S3 serves the same sites to the same users', async () => {
      const run = await migrate(s3.env, '--to-database', targetUrl);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/users: 2 rows/);
      expect(run.stdout).toMatch(/deployment_files: 4 rows/);

      // The new configuration: another (empty) data folder, PostgreSQL, the bucket.
      const config = loadConfig(
        {
          ...s3.env,
          NODE_ENV: 'test',
          DATA_DIR: newDataDir,
          LOG_LEVEL: 'silent',
          WEB_DIST: `${newDataDir}/no-web`,
          SITES_PORT: '0',
        },
        { database: { kind: 'postgres', url: PG_URL!, schema } },
      );
      built = await buildApp(config, { logger: false });
      const { app } = built;
      for (const [p, body] of Object.entries(before)) {
        const res = await app.inject({ url: `/sites/${liveId}/${p}` });
        expect(res.statusCode).toBe(200);
        expect(res.body).toBe(body);
      }
      const big = await app.inject({ url: `/sites/${liveId}/img/big.png` });
      expect(big.rawPayload.equals(BIG)).toBe(true);

      const login = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: owner.username, password: owner.password },
      });
      expect(login.statusCode, login.body).toBe(200);
      const token = login.json().data.token as string;
      const mine = await app.inject({
        url: '/api/projects/my',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(mine.statusCode).toBe(200);
      const names = JSON.stringify(mine.json());
      expect(names).toContain('搬家项目');
      expect(names).toContain('待审核项目');

      // The showcase indexes the copied live project, and new rows get new ids.
      const showcase = await app.inject({ url: `/api/projects/public?search=${encodeURIComponent('搬家')}` });
      expect(showcase.statusCode).toBe(200);
      expect(showcase.json().data.projects.map((p: { id: number }) => p.id)).toEqual([liveId]);
      const form = new FormData();
      form.append('project_name', '搬家后的项目');
      form.append('files', new Blob([Buffer.from('<h1>新</h1>')]), 'index.html');
      const res = new Response(form);
      const upload = await app.inject({
        method: 'POST',
        url: '/api/projects/upload',
        headers: { authorization: `Bearer ${token}`, 'content-type': res.headers.get('content-type')! },
        payload: Buffer.from(await res.arrayBuffer()),
      });
      expect(upload.statusCode, upload.body).toBe(201);
      expect(upload.json().data.project.id).toBeGreaterThan(Math.max(liveId, pendingId));

      // A second copy into the now non-empty database is refused, changing nothing.
      const again = await migrate({ STORAGE: 'local' }, '--to-database', targetUrl);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('not empty');
    }, 180_000);
  });
});
