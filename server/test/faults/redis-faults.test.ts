/**
 * Redis outages (docs/decisions/faults.md "Redis outages"): two instances on one database reach Redis
 * through a TCP proxy this test controls, which cuts the link (connections reset, new ones
 * refused) or blackholes it (connections stay open and silent). Throughout, every API request
 * answers within 2 s, rate limits let requests through, the login throttle still counts (locally),
 * a change on one instance shows on the other within the short cache lifetime, and the process
 * stays up with no unhandled error. After the restore, without a restart: /readyz is 200 again,
 * the counters are shared again, invalidations arrive over pub/sub again, and what could not be
 * published during the outage is published then. A server started while Redis is unreachable
 * starts, says which part is missing, serves, and joins once Redis answers.
 */

import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../../src/app.js';
import { UNHEARD_MAX_AGE_MS } from '../../src/domain/cache-lifetime.js';
import {
  createTestApp,
  freshDatabase,
  loginAttempt,
  SIMPLE_SITE,
  type TestApp,
  tempDir,
  uploadProject,
} from '../helpers.js';
import { type ChildServer, startChildServer } from '../support/children.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const hasRedis = await redisReachable();
const target = new URL(testRedisUrl);
const redisTarget = { host: target.hostname, port: Number(target.port || 6379) };
/** The requirement: no API request waits more than this on Redis. */
const BOUND_MS = 2_000;
/**
 * What each request took with Redis healthy, in this run: on a loaded runner a request can take
 * seconds of CPU alone (an argon2 hash), which is not waiting on Redis. A request during a fault
 * may take the bound on top of twice that; one that waited for a dead Redis (timeouts of 10 s and
 * more, or forever) still fails.
 */
const healthyMs = new Map<string, number>();
const within = (name: string) => BOUND_MS + 2 * (healthyMs.get(name) ?? 0);

const unhandled: unknown[] = [];
const collect = (err: unknown) => unhandled.push(err);

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

function inject(
  app: BuiltApp['app'],
  opts: { method?: string; url: string; token?: string; body?: unknown; ip?: string },
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: (opts.method ?? 'GET') as 'GET',
    url: opts.url,
    ...(opts.ip ? { remoteAddress: opts.ip } : {}),
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
}

describe.skipIf(!hasRedis)('Redis outages, two instances through a proxy', () => {
  const prefix = uniqueRedisPrefix();
  let proxy: TcpProxy;
  let a: TestApp;
  let b: BuiltApp;
  let admin = '';
  /** A client straight to Redis (not through the proxy) listening to the instances' channel. */
  let listener: Redis;
  const heard: string[] = [];
  let ipCounter = 0;
  /** A client address of its own, so the per-IP login budget of one step doesn't spill over. */
  const freshIp = () => `10.9.0.${++ipCounter}`;

  const maxFiles = async (app: BuiltApp['app']) =>
    (await inject(app, { url: '/api/config/public' })).json().data.limits.max_files_per_upload as number;
  const setMaxFiles = (n: number) =>
    inject(a.app, {
      method: 'PUT',
      url: '/api/admin/config',
      token: admin,
      body: { max_files_per_upload: n },
    });

  /**
   * Every request a visitor, a user and an uploader make: each answers, within the bound. A user of
   * its own: failures counted in an instance's memory during an outage keep counting after it.
   */
  async function everyRequestAnswers(opts: { measureHealthy?: boolean } = {}) {
    const ip = freshIp();
    const user = { username: '', password: '', token: '' };
    // In this order: the first requests after the fault are the ones that meet it first.
    const checks: Array<[string, () => Promise<LightMyRequestResponse>, number]> = [
      ['showcase', () => inject(a.app, { url: '/api/projects/public' }), 200],
      ['showcase on B', () => inject(b.app, { url: '/api/projects/public' }), 200],
      ['public config', () => inject(a.app, { url: '/api/config/public' }), 200],
      ['an admin registers a user', () => register(user), 201],
      ['right password', () => loginAttempt(a, user.username, user.password, { ip }), 200],
      ['wrong password', () => loginAttempt(a, user.username, 'wrong-password', { ip }), 401],
      ['my projects', () => inject(a.app, { url: '/api/projects/my', token: user.token }), 200],
      ['upload', () => uploadProject(a, user.token, { name: '断网上传', files: SIMPLE_SITE }), 201],
      ['healthz', () => inject(a.app, { url: '/healthz' }), 200],
    ];
    for (const [name, call, status] of checks) {
      const { result, ms } = await timed(call);
      if (name === 'right password') user.token = result.json().data.token;
      expect({ name, status: result.statusCode }).toEqual({ name, status });
      if (opts.measureHealthy) healthyMs.set(name, Math.max(ms, healthyMs.get(name) ?? 0));
      else expect(ms, `${name} took ${Math.round(ms)} ms`).toBeLessThan(within(name));
    }
    if (opts.measureHealthy) return;
    // The account's failure above is cleared by the next right password: five more lock it.
    const locked = await timed(async () => {
      for (let i = 0; i < 5; i++) await loginAttempt(a, user.username, 'wrong-password', { ip });
      return loginAttempt(a, user.username, user.password, { ip });
    });
    // Counted in memory while Redis is away: still throttled, and fast.
    expect(locked.result.statusCode).toBe(429);
    expect(locked.ms).toBeLessThan(6 * within('wrong password'));
    // The API rate limit lets requests through uncounted: the whole budget stays left.
    const limitIp = freshIp();
    for (let i = 0; i < 3; i++) {
      const res = await inject(a.app, { url: '/api/config/public', ip: limitIp });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect(res.headers['x-ratelimit-remaining']).toBe('600');
    }
  }

  async function readyz(app: BuiltApp['app']) {
    const res = await inject(app, { url: '/readyz' });
    return { status: res.statusCode, body: res.json() as { failed?: string[] } };
  }

  /** Registers a new user through A's API and writes its name and password into `into`. */
  async function register(into: { username: string; password: string }) {
    const res = await inject(a.app, {
      method: 'POST',
      url: '/api/auth/register',
      token: admin,
      body: { username: `u_${Math.random().toString(36).slice(2, 10)}`, role: 'user' },
    });
    if (res.statusCode === 201) {
      const data = res.json().data as { password: string; user: { username: string } };
      into.username = data.user.username;
      into.password = data.password;
    }
    return res;
  }

  async function newUser() {
    const user = { username: '', password: '' };
    expect((await register(user)).statusCode).toBe(201);
    return user;
  }

  beforeAll(async () => {
    process.on('unhandledRejection', collect);
    process.on('uncaughtException', collect);
    proxy = await startTcpProxy(redisTarget);
    const redisUrl = `redis://${proxy.address}`;
    a = await createTestApp({ redisUrl, redisPrefix: prefix });
    b = await buildApp({ ...a.config }, { logger: false });
    admin = await a.adminToken();
    listener = new Redis(testRedisUrl);
    listener.on('error', () => {});
    listener.on('message', (_ch: string, text: string) => heard.push(text));
    await listener.subscribe(`${prefix}invalidate`);
  });

  afterAll(async () => {
    process.off('unhandledRejection', collect);
    process.off('uncaughtException', collect);
    await b?.app.close();
    await a?.close();
    listener?.disconnect();
    await proxy?.close();
    await dropRedisPrefix(prefix);
  });

  it('before any fault: counters and invalidations are shared', async () => {
    // Both instances subscribe once their start is done; a loaded runner may still be on it.
    expect(await waitFor(async () => (await readyz(a.app)).status === 200, 60_000)).toBe(true);
    expect(await waitFor(async () => (await readyz(b.app)).status === 200, 60_000)).toBe(true);
    await expectShared();
    await everyRequestAnswers({ measureHealthy: true });
    healthyMs.set('readyz', (await timed(() => readyz(a.app))).ms);
  });

  it('cut: every request answers within 2 s, /readyz names redis, changes show within the short lifetime', async () => {
    proxy.cut();
    try {
      await everyRequestAnswers();
      const ready = await timed(() => readyz(a.app));
      expect(ready.result).toEqual({ status: 503, body: expect.objectContaining({ failed: ['redis'] }) });
      expect(ready.ms).toBeLessThan(within('readyz'));
      expect((await readyz(b.app)).body.failed).toEqual(['redis']);
      // Changes on A can't be published; B re-reads its copies within the short lifetime.
      heard.length = 0;
      await changesOnAShowOnB(UNHEARD_MAX_AGE_MS + 10_000);
    } finally {
      proxy.restore();
    }
    // Back without a restart: ready again, and the change A could not publish goes out now.
    expect(await waitFor(async () => (await readyz(a.app)).status === 200, 60_000)).toBe(true);
    expect(await waitFor(async () => (await readyz(b.app)).status === 200, 60_000)).toBe(true);
    expect(await waitFor(async () => heard.some((m) => m.includes('"settings"')), 60_000)).toBe(true);
  });

  it('after the cut: counters are shared and invalidations arrive over pub/sub again', async () => {
    await expectShared();
  });

  it('blackhole: every request answers within 2 s, /readyz names redis soon', async () => {
    proxy.blackhole();
    try {
      await everyRequestAnswers();
      // The silent connection is noticed (heartbeat, socket timeout): 503 naming redis, each answer quick.
      const noticed = await waitFor(async () => {
        const r = await timed(() => readyz(a.app));
        expect(r.ms).toBeLessThan(within('readyz') + 500);
        return r.result.status === 503 && r.result.body.failed?.[0] === 'redis';
      }, 30_000);
      expect(noticed).toBe(true);
      await changesOnAShowOnB(UNHEARD_MAX_AGE_MS + 10_000);
    } finally {
      proxy.restore();
    }
    expect(await waitFor(async () => (await readyz(a.app)).status === 200, 60_000)).toBe(true);
    expect(await waitFor(async () => (await readyz(b.app)).status === 200, 60_000)).toBe(true);
  });

  it('after the blackhole: counters are shared and invalidations arrive over pub/sub again', async () => {
    await expectShared();
  });

  it('Redis restarting (connections dropped) is rejoined at once', async () => {
    const clients = [a.ctx.redis!, b.ctx.redis!];
    const dropped = clients.map((c) => new Promise((resolve) => c.once('close', resolve)));
    proxy.dropConnections();
    await Promise.all(dropped);
    for (const app of [a.app, b.app])
      expect(await waitFor(async () => (await readyz(app)).status === 200, 60_000)).toBe(true);
    await expectShared();
  });

  it('the process lived through it all with no unhandled error', () => {
    expect(unhandled).toEqual([]);
  });

  /**
   * A settings change and a site going live on A both show on B within `ms`; returns how long
   * they took. B has read both first, so its cached copies are what must be replaced.
   */
  async function changesOnAShowOnB(ms: number): Promise<number> {
    const before = await maxFiles(b.app);
    const upload = await uploadProject(a, admin, { name: '上线测试', files: SIMPLE_SITE });
    expect(upload.statusCode).toBe(201);
    const id = upload.json().data.project.id as number;
    const site = async () => (await inject(b.app, { url: `/sites/${id}/` })).statusCode;
    expect(await site()).toBe(404);
    const changedAt = Date.now();
    expect((await setMaxFiles(before + 1)).statusCode).toBe(200);
    const approve = { action: 'approve' };
    const url = `/api/admin/projects/${id}/review`;
    expect((await inject(a.app, { method: 'POST', url, token: admin, body: approve })).statusCode).toBe(200);
    expect(await waitFor(async () => (await maxFiles(b.app)) === before + 1, ms)).toBe(true);
    expect(await waitFor(async () => (await site()) === 200, ms)).toBe(true);
    return Date.now() - changedAt;
  }

  /**
   * Failures on A lock the account on B (shared counters), and changes on A show on B well within
   * the short lifetime: B is subscribed again (with its subscription up, B keeps the settings until
   * told and a live pointer for a minute, so only a message explains the quick change).
   */
  async function expectShared() {
    const victim = await newUser();
    // One address fails on A and then tries on B: the (account, address) count is shared. (Failures
    // spread over many addresses only slow the account down; they never lock it.)
    const guesser = freshIp();
    for (let i = 0; i < 5; i++) {
      expect((await loginAttempt(a, victim.username, 'wrong-password', { ip: guesser })).statusCode).toBe(
        401,
      );
    }
    const onB = await inject(b.app, {
      method: 'POST',
      url: '/api/auth/login',
      body: { username: victim.username, password: victim.password },
      ip: guesser,
    });
    expect(onB.statusCode).toBe(429);
    // The API rate limit counts in Redis again: a request on B sees the one made on A.
    const limitIp = freshIp();
    const remaining = async (app: BuiltApp['app']) =>
      Number(
        (await inject(app, { url: '/api/config/public', ip: limitIp })).headers['x-ratelimit-remaining'],
      );
    const onA = await remaining(a.app);
    expect(await remaining(b.app)).toBe(onA - 1);
    expect(await changesOnAShowOnB(1_500)).toBeLessThan(UNHEARD_MAX_AGE_MS);
  }
});

describe.skipIf(!hasRedis)('custom domains while Redis is away, two instances through a proxy', () => {
  const prefix = uniqueRedisPrefix();
  let proxy: TcpProxy;
  let a: TestApp;
  let b: BuiltApp;

  beforeAll(async () => {
    proxy = await startTcpProxy(redisTarget);
    a = await createTestApp({
      redisUrl: `redis://${proxy.address}`,
      redisPrefix: prefix,
      sitesOrigin: 'http://sites.example.test',
      sitesSubdomains: true,
      mail: {
        from: 'hall@example.test',
        publicUrl: 'http://hall.example.test',
        pollMs: 5_000,
        retryBaseMs: 30_000,
        maxAttempts: 8,
      },
    });
    b = await buildApp({ ...a.config }, { logger: false });
  });
  afterAll(async () => {
    await b?.app.close();
    await a?.close();
    await proxy?.close();
    await dropRedisPrefix(prefix);
  });

  // A domain removed on one instance during an outage was served on the other, and its TLS ask
  // allowed, until Redis came back: the served map was the one cache without the short lifetime.
  it('a domain removed or verified on one instance shows on the other within the short lifetime', async () => {
    expect(
      await waitFor(async () => (await inject(b.app, { url: '/readyz' })).statusCode === 200, 60_000),
    ).toBe(true);
    const owner = await a.createUser();
    const upload = await uploadProject(a, owner.token, { name: '域名站点', files: SIMPLE_SITE });
    const id = upload.json().data.project.id as number;
    const admin = await a.adminToken();
    const url = `/api/admin/projects/${id}/review`;
    expect(
      (await inject(a.app, { method: 'POST', url, token: admin, body: { action: 'approve' } })).statusCode,
    ).toBe(200);
    const rowOf = async (domain: string) =>
      (
        await a.ctx.db
          .insertInto('custom_domains')
          .values({
            project_id: id,
            domain,
            token: `sitehall-verify=${domain}`,
            verified_at: new Date().toISOString(),
            approved_at: null,
            approved_by: null,
            created_by: owner.id,
            created_at: new Date().toISOString(),
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const removed = await rowOf('www.gone-soon.test');
    await a.ctx.services.customDomains.reload();
    await b.ctx.services.customDomains.reload();
    const served = async (app: BuiltApp['app'], host: string) =>
      (await app.inject({ url: '/', headers: { host } })).body.includes('<h1>') &&
      (await inject(app, { url: `/api/tls/ask?domain=${host}` })).statusCode === 200;
    expect(await served(b.app, 'www.gone-soon.test')).toBe(true);

    proxy.cut();
    try {
      expect(await waitFor(async () => !b.ctx.cluster.bus.listening(), 10_000)).toBe(true);
      const gone = await inject(a.app, {
        method: 'DELETE',
        url: `/api/projects/${id}/domains/${removed}`,
        token: owner.token,
      });
      expect(gone.statusCode).toBe(200);
      expect(await served(a.app, 'www.gone-soon.test')).toBe(false);
      expect(
        await waitFor(async () => !(await served(b.app, 'www.gone-soon.test')), UNHEARD_MAX_AGE_MS + 3_000),
      ).toBe(true);
      // One verified meanwhile (an admin's approval publishes the same way) shows too.
      await rowOf('www.new-one.test');
      await a.ctx.services.customDomains.reload();
      expect(await waitFor(() => served(b.app, 'www.new-one.test'), UNHEARD_MAX_AGE_MS + 3_000)).toBe(true);
    } finally {
      proxy.restore();
    }
  }, 120_000);
});

describe.skipIf(!hasRedis)('an instance started while Redis is unreachable', () => {
  const children: ChildServer[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of children) await c.stop();
    for (const c of cleanups) await c();
  });

  for (const fault of ['cut', 'blackhole'] as const) {
    it(`starts with Redis ${fault === 'cut' ? 'refusing' : 'silent'}, serves, and joins once it answers`, async () => {
      const proxy = await startTcpProxy(redisTarget);
      const prefix = uniqueRedisPrefix();
      const { database, drop } = await freshDatabase();
      const dataDir = tempDir();
      cleanups.push(async () => {
        await proxy.close();
        await drop();
        await dropRedisPrefix(prefix);
      });
      proxy[fault]();
      const child = await startChildServer({
        dataDir,
        ...(database.kind === 'postgres' ? { database } : {}),
        env: { REDIS_URL: `redis://${proxy.address}`, REDIS_PREFIX: prefix },
      });
      children.push(child);
      const base = `http://127.0.0.1:${child.port}`;
      const get = async (path: string) => {
        const res = await fetch(base + path);
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      const notReady = await get('/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.body.failed).toEqual(['redis']);
      const signIn = () =>
        fetch(`${base}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }),
        });
      // Serving meanwhile: the showcase and a sign-in (an unknown name: 401), each within the bound.
      for (const [call, status] of [
        [() => fetch(`${base}/api/projects/public`), 200],
        [signIn, 401],
      ] as const) {
        const { result, ms } = await timed(call);
        expect(result.status).toBe(status);
        expect(ms).toBeLessThan(BOUND_MS);
      }

      proxy.restore();
      expect(await waitFor(async () => (await get('/readyz')).status === 200, 60_000)).toBe(true);
      // The same process, not a restart.
      expect(child.process.exitCode).toBeNull();
      expect(child.process.signalCode).toBeNull();
      // It counts in Redis now: the throttle's keys appear under its prefix.
      expect((await signIn()).status).toBe(401);
      const direct = new Redis(testRedisUrl);
      try {
        expect(await direct.keys(`${prefix}throttle:*`)).not.toEqual([]);
      } finally {
        direct.disconnect();
      }
    }, 240_000);
  }
});
