/**
 * /healthz and /readyz: ready when the database, its migrations, the blob store and (when
 * configured) Redis answer; 503 naming the part that does not, for each of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../src/app.js';
import { createTestApp, type TestApp, tempDir } from './helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const opened: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

async function testApp(): Promise<TestApp> {
  const t = await createTestApp();
  opened.push(t);
  return t;
}

/** A second app on a test app's database and data folder, with a Redis client to check. */
async function appWithRedis(t: TestApp, redis: Redis, webDist?: string): Promise<BuiltApp> {
  const built = await buildApp({ ...t.config, ...(webDist ? { webDist } : {}) }, { logger: false, redis });
  opened.push({ close: () => built.app.close() });
  return built;
}

/** A Redis client once its first connection attempt is over: connected, or refused for good. */
async function redisClient(url: string): Promise<Redis> {
  // No retries and no queue: once refused, a PING fails at once instead of waiting.
  const client = new Redis(url, {
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  opened.push({ close: async () => client.disconnect() });
  await new Promise((resolve) => {
    client.once('ready', resolve);
    client.once('end', resolve);
  });
  return client;
}

async function readyz(app: BuiltApp['app']) {
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

describe('health', () => {
  it('/healthz answers while the process runs', async () => {
    const t = await testApp();
    const res = await t.request({ url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is ready on a working install without Redis', async () => {
    const t = await testApp();
    const { status, body, headers } = await readyz(t.app);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok', storage: 'ok', redis: 'not configured', disk: 'ok' },
      // Facts, never a reason to be unready (the test apps run the render worker off).
      detail: { fastPath: 'on', render: 'off' },
    });
    expect(headers['cache-control']).toBe('no-store');
    // Outside /api: no rate limit counts it.
    expect(headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('checks Redis when one is configured, and is not taken by the web app fallback', async () => {
    const t = await testApp();
    const webDist = tempDir('sitehall-web-');
    fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>app</title>');
    const built = await appWithRedis(t, await redisClient(REDIS_URL), webDist);
    const { status, body, headers } = await readyz(built.app);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(status).toBe(200);
    expect(body.checks).toEqual({ database: 'ok', migrations: 'ok', storage: 'ok', redis: 'ok', disk: 'ok' });
    // The fallback still answers other client routes with the web app.
    const page = await built.app.inject({ method: 'GET', url: '/some/client/route' });
    expect(page.body).toContain('<title>app</title>');
    fs.rmSync(webDist, { recursive: true, force: true });
  });

  it('503 naming redis when Redis refuses connections', async () => {
    const t = await testApp();
    const built = await appWithRedis(t, await redisClient('redis://127.0.0.1:1'));
    const { status, body } = await readyz(built.app);
    expect(status).toBe(503);
    expect(body.status).toBe('unavailable');
    expect(body.failed).toEqual(['redis']);
    expect(body.checks).toMatchObject({ database: 'ok', storage: 'ok', redis: 'failed' });
  });

  it('503 naming the database when it is unreachable', async () => {
    const t = await testApp();
    await t.database.close();
    const { status, body } = await readyz(t.app);
    expect(status).toBe(503);
    expect(body.failed).toEqual(['database', 'migrations']);
    expect(body.checks).toMatchObject({ database: 'failed', storage: 'ok' });
  });

  it('503 naming migrations when the database lacks one', async () => {
    const t = await testApp();
    await sql`delete from kysely_migration where name = '002_showcase_search'`.execute(t.ctx.db);
    const { status, body } = await readyz(t.app);
    expect(status).toBe(503);
    expect(body.failed).toEqual(['migrations']);
    expect(body.checks).toMatchObject({ database: 'ok', migrations: 'failed', storage: 'ok' });
  });

  it('503 naming disk when free space on the data folder is below MIN_FREE_DISK_BYTES', async () => {
    const t = await createTestApp({ minFreeDiskBytes: Number.MAX_SAFE_INTEGER });
    opened.push(t);
    const { status, body } = await readyz(t.app);
    expect(status).toBe(503);
    expect(body.failed).toEqual(['disk']);
    expect(body.checks).toMatchObject({ database: 'ok', storage: 'ok', disk: 'failed' });
    // Turned off with 0.
    const off = await createTestApp({ minFreeDiskBytes: 0 });
    opened.push(off);
    expect((await readyz(off.app)).body.checks.disk).toBe('ok');
  });

  it('503 naming storage when the blob folder cannot be read', async () => {
    const t = await testApp();
    // A folder that loops onto itself: every lookup inside it fails with ELOOP, even for root.
    const blobs = path.join(t.dataDir, 'blobs');
    fs.rmSync(blobs, { recursive: true, force: true });
    fs.symlinkSync(blobs, blobs);
    const { status, body } = await readyz(t.app);
    expect(status).toBe(503);
    expect(body.failed).toEqual(['storage']);
    expect(body.checks).toMatchObject({ database: 'ok', migrations: 'ok', storage: 'failed' });
    fs.unlinkSync(blobs);
  });
});
