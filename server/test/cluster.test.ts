/**
 * Three real server processes on one PostgreSQL schema, one Redis (under a prefix of their own)
 * and one S3-compatible bucket (s3rver), each with a data folder of its own (staging only): any
 * instance takes any request. Runs in the PostgreSQL project when Redis is
 * reachable; under CI=true a missing Redis fails the run instead of skipping it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { type BlobStore, openBlobStore } from '../src/storage/index.js';
import { ADMIN_PASSWORD, makeZip, multipart, tempDir, usingPostgres } from './helpers.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from './support/redis.js';
import { type LocalS3, startS3rver } from './support/s3rver.js';

const enabled = usingPostgres && (await redisReachable());
/** Ports of this test's three instances (A, B, C). */
const PORTS = [3252, 3253, 3254] as const;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36';

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
}

describe.skipIf(!enabled)('three instances on one PostgreSQL, Redis and blob store', () => {
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `cluster_${randomBytes(6).toString('hex')}`;
  const prefix = uniqueRedisPrefix();
  /** Each instance's own DATA_DIR (upload staging); the setup app's is the first. */
  const dataDirs: string[] = [];
  let dataDir = '';
  let s3: LocalS3 | undefined;
  const database: Config['database'] = { kind: 'postgres', url, schema };
  let env: Record<string, string> = {};
  const instances: Instance[] = [];
  const orphan = 'an orphan blob left by a crash before its rows were written';
  let orphanHash = '';
  let adminToken = '';
  let projectId = 0;
  /** Page views sent with a browser's user agent to a live page: what the counts must add up to. */
  let viewsSent = 0;

  async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`set search_path to ${schema}`);
      return (await c.query<T>(text, values)).rows;
    } finally {
      await c.end();
    }
  }

  function start(name: string, port: number, ownDir: string): Promise<Instance> {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', path.join(import.meta.dirname, 'support/child-server.ts')],
      {
        env: {
          ...process.env,
          SITEHALL_TEST_CONFIG: JSON.stringify({ dataDir: ownDir, database, port, env, viewFlushMs: 200 }),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /PORT (\d+)/.exec(out);
        if (m) resolve({ name, url: `http://127.0.0.1:${m[1]}`, child });
      });
      child.on('exit', (code) => reject(new Error(`instance ${name} exited ${code}`)));
    });
  }

  async function stop(i: Instance): Promise<void> {
    if (i.child.exitCode !== null) return;
    const exited = new Promise((r) => i.child.once('exit', r));
    i.child.kill('SIGTERM');
    await exited;
  }

  async function api(i: Instance, method: string, route: string, body?: unknown, token?: string) {
    const res = await fetch(`${i.url}/api${route}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: { token: string; password: string }; message?: string },
    };
  }

  async function login(i: Instance, username: string, password: string) {
    return api(i, 'POST', '/auth/login', { username, password });
  }

  /**
   * A page of the project's site from one instance, as a browser asks for it: each call a new
   * visitor (its own User-Agent), unless `visitor` names one (a visitor counts once per 30 minutes).
   */
  let visitors = 0;
  async function page(i: Instance, file = '', visitor?: string) {
    const agent = `${BROWSER} visitor/${visitor ?? ++visitors}`;
    const res = await fetch(`${i.url}/sites/${projectId}/${file}`, { headers: { 'user-agent': agent } });
    const text = await res.text();
    if (res.status === 200 && (file === '' || file.endsWith('.html')) && !visitor) viewsSent++;
    return { status: res.status, text };
  }

  /** The store the instances share, opened directly (an app would sweep it on start). */
  function sharedStore(): Promise<BlobStore> {
    return openBlobStore(loadConfig({ DATA_DIR: dataDir, ...env }));
  }

  const a = () => instances[0]!;
  const b = () => instances[1]!;
  const c = () => instances[2]!;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();

    // The first admin and a crash's leftover, made by a one-off app on the shared database and
    // store before the instances start.
    dataDirs.push(...[0, 1, 2, 3].map(() => tempDir('sitehall-cluster-')));
    dataDir = dataDirs[0]!;
    s3 = await startS3rver();
    env = { REDIS_URL: testRedisUrl, REDIS_PREFIX: prefix, ...s3.env };
    const config = loadConfig(
      {
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        WEB_DIST: `${dataDir}/no-web`,
        SITES_PORT: '0',
        ...s3.env,
      },
      { database },
    );
    const setup = await buildApp(config, { logger: false });
    await setup.ctx.services.accounts.ensureFirstAdmin(ADMIN_PASSWORD);
    const store = await sharedStore();
    orphanHash = (await store.put(Readable.from([Buffer.from(orphan)]))).sha256;
    expect(await store.stat(orphanHash)).not.toBeNull();
    await setup.app.close();

    // All three start at once.
    instances.push(...(await Promise.all(PORTS.map((port, n) => start('ABC'[n]!, port, dataDirs[n + 1]!)))));
    adminToken = (await login(a(), 'admin', ADMIN_PASSWORD)).body.data!.token;
  });

  afterAll(async () => {
    await Promise.all(instances.map(stop));
    if (!enabled) return;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    await dropRedisPrefix(prefix);
    await s3?.close();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ran the startup sweep once although the instances started together', async () => {
    const [lease] = await sql<{ runs: number }>(`select runs from job_leases where name = 'orphan-sweep'`);
    expect(lease?.runs).toBe(1);
    // And that one run removed the orphan from the shared store.
    expect(await (await sharedStore()).stat(orphanHash)).toBeNull();
  });

  it('takes an upload on A, a review on B, and serves the site from C', async () => {
    const user = (
      await api(b(), 'POST', '/auth/register', { username: 'cluster_user', role: 'user' }, adminToken)
    ).body.data!;
    const token = (await login(c(), 'cluster_user', user.password)).body.data!.token;
    const zip = await makeZip({
      'index.html': '<!doctype html><title>集群</title><h1>三台实例</h1>',
      'about.html': '<!doctype html><title>关于</title>',
      'app.css': 'h1 { color: teal }',
    });
    const { payload, headers } = await multipart({ project_name: '集群项目' }, [
      { name: 'site.zip', content: zip },
    ]);
    const uploaded = await fetch(`${a().url}/api/projects/upload`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: payload,
    });
    expect(uploaded.status).toBe(201);
    projectId = ((await uploaded.json()) as { data: { project: { id: number } } }).data.project.id;

    expect(await page(c())).toMatchObject({ status: 404 });
    const approved = await api(
      b(),
      'POST',
      `/admin/projects/${projectId}/review`,
      { action: 'approve' },
      adminToken,
    );
    expect(approved.status).toBe(200);
    // C had cached "not live" a moment ago; B's approval reached it.
    await expect.poll(async () => (await page(c())).status, { timeout: 30_000, interval: 20 }).toBe(200);
    expect((await page(c())).text).toContain('三台实例');
    expect(await page(c(), 'app.css')).toEqual({ status: 200, text: 'h1 { color: teal }' });
  });

  it('shows a settings change made on A in the public config of B and C once told (their cache never expires by itself)', async () => {
    const publicLimit = async (i: Instance) => {
      const res = await fetch(`${i.url}/api/config/public`);
      return ((await res.json()) as { data: { limits: { max_files_per_upload: number } } }).data.limits
        .max_files_per_upload;
    };
    // B and C have the settings cached.
    const before = await publicLimit(b());
    expect(await publicLimit(c())).toBe(before);
    const changed = await fetch(`${a().url}/api/admin/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ max_files_per_upload: before + 7 }),
    });
    expect(changed.status).toBe(200);
    await expect
      .poll(async () => [await publicLimit(b()), await publicLimit(c())], { timeout: 30_000, interval: 20 })
      .toEqual([before + 7, before + 7]);
  });

  it('counts views served by all three so that they add up exactly', async () => {
    // Every instance serves a different number of views.
    for (const [i, n] of [
      [a(), 7],
      [b(), 5],
      [c(), 4],
    ] as const) {
      for (let k = 0; k < n; k++) expect((await page(i, k % 2 ? 'about.html' : '')).status).toBe(200);
      // Assets and bots don't count.
      await page(i, 'app.css');
      await fetch(`${i.url}/sites/${projectId}/`, { headers: { 'user-agent': 'curl/8.0' } });
    }
    // One visitor reloading on every instance counts once: they share who was seen (Redis).
    for (const i of [a(), b(), c(), a(), b(), c()]) expect((await page(i, '', 'reloader')).status).toBe(200);
    viewsSent++;
    const total = async () =>
      Number(
        (await sql<{ n: number }>('select view_count as n from projects where id = $1', [projectId]))[0]!.n,
      );
    // Each instance flushes its own batch every 200 ms.
    await expect.poll(total, { timeout: 60_000, interval: 100 }).toBe(viewsSent);
    const daily = await sql<{ n: string }>(
      'select sum(views) as n from project_daily_views where project_id = $1',
      [projectId],
    );
    expect(Number(daily[0]!.n)).toBe(viewsSent);
  });

  it('takes a site down on C and A and B answer 404 once told, well before their cached pointers’ minute is out', async () => {
    // A and B have the live site cached.
    expect((await page(a())).status).toBe(200);
    expect((await page(b())).status).toBe(200);
    const takenDown = await api(
      c(),
      'POST',
      `/admin/projects/${projectId}/review`,
      { action: 'takedown', comment: '集群下架测试' },
      adminToken,
    );
    expect(takenDown.status).toBe(200);
    await expect
      .poll(async () => [(await page(a())).status, (await page(b())).status], {
        timeout: 30_000,
        interval: 20,
      })
      .toEqual([404, 404]);
  });

  it('throttles failed sign-ins spread over all three instances as one', async () => {
    await api(b(), 'POST', '/auth/register', { username: 'throttled_user', role: 'user' }, adminToken);
    // Five failures (the per-account limit), spread A, B, C, A, B: no instance saw more than two.
    for (const i of [a(), b(), c(), a(), b()]) {
      expect((await login(i, 'throttled_user', 'wrong-password')).status).toBe(401);
    }
    const sixth = await login(c(), 'throttled_user', 'wrong-password');
    expect(sixth.status).toBe(429);
    expect((await login(a(), 'throttled_user', 'wrong-password')).status).toBe(429);
  });

  it('counts API requests to every instance against one rate limit', async () => {
    const redis = new Redis(testRedisUrl, { keyPrefix: prefix });
    try {
      const [key] = await redis.keys(`${prefix}rate-limit:*`);
      expect(key).toBeDefined();
      const counted = async () => Number(await redis.get(key!.slice(prefix.length)));
      // The window is a minute; should it end between the two reads on a slow machine, look again.
      let [before, after] = [0, -1];
      for (let attempt = 0; attempt < 2 && after < before; attempt++) {
        before = await counted();
        for (const i of [a(), b(), c()]) expect((await fetch(`${i.url}/api/config/public`)).status).toBe(200);
        after = await counted();
      }
      expect(after).toBe(before + 3);
    } finally {
      redis.disconnect();
    }
  });

  it('loses no view when the instances stop: their last flushes add up exactly too', async () => {
    await Promise.all(instances.map(stop));
    const [row] = await sql<{ n: number }>('select view_count as n from projects where id = $1', [projectId]);
    expect(Number(row!.n)).toBe(viewsSent);
  });
});
