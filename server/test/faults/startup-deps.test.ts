/**
 * An instance started (a real process) while PostgreSQL or Redis can't be reached: it starts and
 * listens anyway, /healthz is 200, /readyz is 503 naming what is missing, requests that need the
 * database get 503 within 2 s, and once the dependency answers it migrates and becomes ready
 * without a restart (docs/decisions/faults.md "Database outages").
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrationNames } from '../../src/db/migrations/index.js';
import {
  ADMIN_PASSWORD,
  createTestApp,
  freshDatabase,
  multipart,
  tempDir,
  usingPostgres,
} from '../helpers.js';
import { type ChildServer, startChildServer } from '../support/children.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { startS3rver } from '../support/s3rver.js';
import {
  direct,
  eventually,
  expectUnavailable,
  expectUnavailablePage,
  proxiedDatabase,
  timed,
} from './support.js';
import { startTcpProxy } from './tcp-proxy.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function child(spec: Parameters<typeof startChildServer>[0]): Promise<ChildServer> {
  const c = await startChildServer(spec);
  cleanups.push(() => c.stop());
  return c;
}

function dataDir(): string {
  const dir = tempDir();
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const readyz = async (port: number) => {
  const res = await timed(port, '/readyz');
  return {
    status: res.status,
    body: JSON.parse(res.text) as { failed?: string[]; checks: Record<string, string> },
  };
};

describe.skipIf(!usingPostgres)('start while PostgreSQL is unreachable', () => {
  for (const fault of ['cut', 'blackhole'] as const) {
    it(`${fault}: starts, answers 503, then migrates and becomes ready without a restart`, async () => {
      const db = await proxiedDatabase();
      cleanups.push(() => db.close());
      db.proxy[fault]();
      const server = await child({ dataDir: dataDir(), database: db.database });
      const { port } = server;
      const pid = server.process.pid;

      expect((await timed(port, '/healthz')).status).toBe(200);
      const notReady = await readyz(port);
      expect(notReady.status).toBe(503);
      expect(notReady.body.failed).toEqual(expect.arrayContaining(['database', 'migrations']));
      expect(notReady.body.checks.storage).toBe('ok');
      expectUnavailable(await timed(port, '/api/projects/public'));
      expectUnavailable(
        await timed(port, '/api/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: 'whatever-123' }),
        }),
      );
      expectUnavailablePage(await timed(port, '/sites/1/'));

      db.proxy.restore();
      await eventually(async () => (await readyz(port)).status === 200, 20_000, 'ready after restore');
      const listed = await timed(port, '/api/projects/public');
      expect(listed.status).toBe(200);
      // Migrated by the same process, which never restarted.
      const applied = await direct(db.schema, async (c) =>
        (await c.query('select name from kysely_migration order by name')).rows.map((r) => r.name),
      );
      expect(applied).toEqual([...migrationNames]);
      expect(server.process.exitCode).toBeNull();
      expect(server.process.pid).toBe(pid);
    }, 240_000);
  }
});

describe('start while Redis is unreachable', () => {
  it('starts, /readyz names redis, and becomes ready once Redis answers', async (ctx) => {
    if (!(await redisReachable())) return ctx.skip();
    const target = new URL(testRedisUrl);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    cleanups.push(() => proxy.close());
    const prefix = uniqueRedisPrefix();
    cleanups.push(() => dropRedisPrefix(prefix));
    proxy.cut();
    const server = await child({
      dataDir: dataDir(),
      env: { REDIS_URL: `redis://${proxy.address}`, REDIS_PREFIX: prefix },
      ...(usingPostgres ? { database: (await freshSchema()).database } : {}),
    });
    const { port } = server;
    expect((await timed(port, '/healthz')).status).toBe(200);
    const notReady = await readyz(port);
    expect(notReady.status).toBe(503);
    expect(notReady.body.failed).toEqual(['redis']);

    proxy.restore();
    await eventually(async () => (await readyz(port)).status === 200, 20_000, 'ready after restore');
    expect(server.process.exitCode).toBeNull();
  }, 240_000);
});

// The bucket's outage is the subject, not the database under it: SQLite only (docs/decisions/tests.md
// "Files that run on one engine"); the PostgreSQL block above starts while the database is away.
describe.skipIf(usingPostgres)('start while S3 is unreachable', () => {
  for (const fault of ['cut', 'blackhole'] as const) {
    it(`${fault}: starts, serves what needs no storage, and uses the bucket once it answers`, async () => {
      const s3 = await startS3rver();
      cleanups.push(() => s3.close());
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
      cleanups.push(() => proxy.close());
      // A reference app makes the database and the first admin that the child then uses.
      const made = await createTestApp();
      await made.app.close();
      cleanups.push(() => made.close().catch(() => {}));
      proxy[fault]();
      const server = await child({
        dataDir: made.dataDir,
        database: made.config.database,
        env: { ...s3.env, S3_ENDPOINT: `http://${proxy.address}` },
      });
      const { port } = server;
      const pid = server.process.pid;

      expect((await timed(port, '/healthz')).status).toBe(200);
      const notReady = await readyz(port);
      expect(notReady.status).toBe(503);
      expect(notReady.body.failed).toEqual(['storage']);
      // What needs only the database is served: the showcase and signing in.
      expect((await timed(port, '/api/projects/public')).status).toBe(200);
      const login = await timed(port, '/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
      });
      expect(login.status).toBe(200);
      const auth = {
        authorization: `Bearer ${(JSON.parse(login.text) as { data: { token: string } }).data.token}`,
      };
      const upload = async () => {
        const { payload, headers } = await multipart({ project_name: '存储恢复' }, [
          { name: 'index.html', content: '<!doctype html><title>t</title><h1>存储恢复</h1>' },
        ]);
        return timed(port, '/api/projects/upload', {
          method: 'POST',
          headers: { ...headers, ...auth },
          body: payload,
        });
      };
      // What needs the bucket is a 503 at once, not a hang.
      const refused = await upload();
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.text).message).toBe('文件存储暂时不可用，请稍后重试');
      expect(refused.ms).toBeLessThan(2_000);

      proxy.restore();
      await eventually(async () => (await readyz(port)).status === 200, 20_000, 'ready after restore');
      const stored = await upload();
      expect(stored.status, stored.text).toBe(201);
      expect(server.process.exitCode).toBeNull();
      expect(server.process.pid).toBe(pid);
    }, 240_000);
  }

  it('a bucket that answers no (none by that name) still stops the start, in plain words', async () => {
    const s3 = await startS3rver();
    cleanups.push(() => s3.close());
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir(),
      LOG_LEVEL: 'silent',
      ...s3.env,
      S3_BUCKET: 'no-such-bucket',
    });
    await expect(buildApp(config, { logger: false })).rejects.toThrow(
      /S3 storage: bucket "no-such-bucket" .* cannot be used .*the bucket must exist/,
    );
  }, 240_000);
});

async function freshSchema() {
  const fresh = await freshDatabase();
  cleanups.push(fresh.drop);
  return fresh;
}
