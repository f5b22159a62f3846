/**
 * View counting (docs/product.md "Serving sites"): an HTML page view of a live site counts one;
 * assets, bots, HEAD, byte ranges, prefetches, 404s and previews don't; one visitor (address and User-Agent)
 * counts once per project per 30 minutes, in memory or shared through Redis. Counts are written in
 * batches, per project and per day, and a graceful restart keeps them.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedis, firstAttempt } from '../src/cluster/redis.js';
import { createViewCounter } from '../src/services/views.js';
import { LocalBlobStore } from '../src/storage/index.js';
import {
  createTestApp,
  listenPort,
  liveProject,
  restartTestApp,
  SIMPLE_SITE,
  type TestApp,
} from './helpers.js';
import { FaultyBlobStore } from './support/faulty-blob-store.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from './support/redis.js';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36';

async function stored(t: TestApp, id: number) {
  const project = await t.ctx.db
    .selectFrom('projects')
    .select('view_count')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const days = await t.ctx.db
    .selectFrom('project_daily_views')
    .select(['day', 'views'])
    .where('project_id', '=', id)
    .execute();
  return {
    total: Number(project.view_count),
    days: days.map((d) => ({ day: d.day, views: Number(d.views) })),
  };
}

const today = () => new Date().toISOString().slice(0, 10);

describe('a view counts only when the page was sent', () => {
  it('a page whose file cannot be read (cut off, storage away) counts nothing; served, it counts', async () => {
    let store!: FaultyBlobStore;
    const t = await createTestApp(
      {},
      {
        store: (config) => {
          store = new FaultyBlobStore(LocalBlobStore.inDataDir(config.dataDir));
          return store;
        },
      },
    );
    try {
      const page = `<!doctype html><title>浏览</title>${'<p>访问统计</p>'.repeat(4000)}`;
      const { id } = await liveProject(t, [{ name: 'index.html', content: page }]);
      const port = await listenPort(t);
      const row = await t.ctx.db
        .selectFrom('deployment_files')
        .select('sha256')
        .where('path', '=', 'index.html')
        .executeTakeFirstOrThrow();
      const get = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/sites/${id}/`, {
          headers: { 'user-agent': BROWSER },
        });
        return { status: res.status, body: await res.text().catch(() => null) };
      };
      // Never read yet (not in memory): the read breaks after the headers and a few bytes.
      store.breakAfter(row.sha256, 1000);
      const before = t.ctx.services.views.pendingCount();
      const broken = await get();
      expect(store.failedReads).toBeGreaterThan(0);
      expect(broken.body === null || broken.body.length < page.length).toBe(true);
      expect(t.ctx.services.views.pendingCount()).toBe(before);

      store.heal();
      const served = await get();
      expect(served).toEqual({ status: 200, body: page });
      await expect.poll(() => t.ctx.services.views.pendingCount()).toBe(before + 1);
    } finally {
      await t.close();
    }
  });
});

describe('site views', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  // Each call a different visitor (address), unless `ip` says which: a visitor counts once.
  let visitors = 0;
  const visit = (url: string, headers: Record<string, string> = {}, method = 'GET', ip?: string) =>
    t.request({
      method,
      url,
      headers: { 'user-agent': BROWSER, ...headers },
      ip: ip ?? `10.20.${Math.floor(++visitors / 250)}.${visitors % 250}`,
    });

  it('counts HTML page views only, in memory, and writes them in one batch', async () => {
    const { id } = await liveProject(t, [
      ...SIMPLE_SITE,
      { name: 'about.html', content: '<h1>关于</h1>' },
      { name: 'docs/index.html', content: '<h1>文档</h1>' },
    ]);
    await t.ctx.services.views.flush();
    const writes = vi.spyOn(t.ctx.db, 'transaction');

    // Views: the root, a page, a folder index, a revalidated page (304 is still a visit).
    await visit(`/sites/${id}/`);
    await visit(`/sites/${id}/about.html`);
    await visit(`/sites/${id}/docs/`);
    const etag = (await visit(`/sites/${id}/`)).headers.etag as string;
    expect((await visit(`/sites/${id}/`, { 'if-none-match': etag })).statusCode).toBe(304);
    // Not views: assets, redirects, misses, HEAD, prefetches, bots, no user agent.
    await visit(`/sites/${id}/css/style.css`);
    await visit(`/sites/${id}`);
    await visit(`/sites/${id}/docs`);
    await visit(`/sites/${id}/missing.html`);
    await visit(`/sites/${id}/`, {}, 'HEAD');
    // A byte of the page (206) is not the page.
    expect((await visit(`/sites/${id}/`, { range: 'bytes=0-0' })).statusCode).toBe(206);
    await visit(`/sites/${id}/`, { 'sec-purpose': 'prefetch' });
    await visit(`/sites/${id}/`, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' });
    await visit(`/sites/${id}/`, { 'user-agent': 'curl/8.5.0' });
    await visit(`/sites/${id}/`, { 'user-agent': '' });

    expect(t.ctx.services.views.pendingCount()).toBe(5);
    // Nothing was written per request.
    expect(writes).not.toHaveBeenCalled();
    expect((await stored(t, id)).total).toBe(0);

    await t.ctx.services.views.flush();
    expect(writes).toHaveBeenCalledTimes(1);
    writes.mockRestore();
    expect(await stored(t, id)).toEqual({ total: 5, days: [{ day: today(), views: 5 }] });
    expect(t.ctx.services.views.pendingCount()).toBe(0);

    // The next batch adds to the same day.
    await visit(`/sites/${id}/about.html`);
    await t.ctx.services.views.flush();
    expect(await stored(t, id)).toEqual({ total: 6, days: [{ day: today(), views: 6 }] });
  });

  it('shows the counts as the project’s view count, to the owner and in the showcase', async () => {
    const { id, owner } = await liveProject(t, SIMPLE_SITE, { name: '热门站点' });
    for (let i = 0; i < 3; i++) await visit(`/sites/${id}/`);
    await t.ctx.services.views.flush();
    const mine = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project;
    expect(mine.viewCount ?? mine.access_count).toBe(3);
    const card = (await t.request({ url: '/api/projects/public?search=热门站点' })).json().data.projects[0];
    expect(card.viewCount).toBe(3);
  });

  it('drops counts of a project deleted before the flush, and still writes the others', async () => {
    const a = await liveProject(t, SIMPLE_SITE);
    const b = await liveProject(t, SIMPLE_SITE);
    await visit(`/sites/${a.id}/`);
    await visit(`/sites/${b.id}/`);
    await t.request({ method: 'DELETE', url: `/api/projects/${a.id}`, token: a.owner.token });
    await t.ctx.services.views.flush();
    expect(await stored(t, b.id)).toEqual({ total: 1, days: [{ day: today(), views: 1 }] });
    const orphans = await t.ctx.db
      .selectFrom('project_daily_views')
      .selectAll()
      .where('project_id', '=', a.id)
      .execute();
    expect(orphans).toEqual([]);
  });

  it('counts each view on its UTC day, across midnight and when the clock is set back', async () => {
    const { id } = await liveProject(t, SIMPLE_SITE);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-03-01T23:59:59.500Z'));
      await visit(`/sites/${id}/`);
      vi.setSystemTime(new Date('2026-03-02T00:00:00.200Z'));
      await visit(`/sites/${id}/`);
      await visit(`/sites/${id}/index.html`);
      vi.setSystemTime(new Date('2026-02-28T12:00:00.000Z'));
      await visit(`/sites/${id}/`);
    } finally {
      vi.useRealTimers();
    }
    await t.ctx.services.views.flush();
    const { total, days } = await stored(t, id);
    expect(total).toBe(4);
    expect(days.sort((a, b) => a.day.localeCompare(b.day))).toEqual([
      { day: '2026-02-28', views: 1 },
      { day: '2026-03-01', views: 1 },
      { day: '2026-03-02', views: 2 },
    ]);
  });

  it('tells a bot from a browser on every view, whichever came before it', async () => {
    const { id } = await liveProject(t, SIMPLE_SITE);
    const agents = [BROWSER, 'Googlebot/2.1', BROWSER, BROWSER, 'curl/8.5.0', '', BROWSER, 'Googlebot/2.1'];
    for (const agent of agents) await visit(`/sites/${id}/`, { 'user-agent': agent });
    await t.ctx.services.views.flush();
    expect((await stored(t, id)).total).toBe(4);
  });

  it('counts one visitor (address and User-Agent) once per project per 30 minutes', async () => {
    const a = await liveProject(t, [...SIMPLE_SITE, { name: 'about.html', content: '<h1>关于</h1>' }]);
    const b = await liveProject(t, SIMPLE_SITE);
    await t.ctx.services.views.flush();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2030-05-01T08:00:00Z'));
      // Scripted reloads: twenty views, one visitor, any page of the site.
      for (let i = 0; i < 20; i++)
        await visit(`/sites/${a.id}/${i % 2 ? 'about.html' : ''}`, {}, 'GET', '10.30.0.1');
      // Another project, another browser, another address: each a visitor of its own.
      await visit(`/sites/${b.id}/`, {}, 'GET', '10.30.0.1');
      await visit(`/sites/${a.id}/`, { 'user-agent': `${BROWSER} Edg/140.0` }, 'GET', '10.30.0.1');
      await visit(`/sites/${a.id}/`, {}, 'GET', '10.30.0.2');
      // Within the window: still not counted again.
      vi.setSystemTime(new Date('2030-05-01T08:29:59Z'));
      await visit(`/sites/${a.id}/`, {}, 'GET', '10.30.0.1');
      // After it: one more.
      vi.setSystemTime(new Date('2030-05-01T08:30:01Z'));
      await visit(`/sites/${a.id}/`, {}, 'GET', '10.30.0.1');
      await visit(`/sites/${a.id}/`, {}, 'GET', '10.30.0.1');
    } finally {
      vi.useRealTimers();
    }
    await t.ctx.services.views.flush();
    expect((await stored(t, a.id)).total).toBe(4);
    expect((await stored(t, b.id)).total).toBe(1);
  });

  it('tells visitors apart by X-Forwarded-For only with TRUST_PROXY', async () => {
    const behindProxy = await createTestApp({ trustProxy: true });
    try {
      const { id } = await liveProject(behindProxy, SIMPLE_SITE);
      for (const client of ['203.0.113.1', '203.0.113.1', '203.0.113.2', '203.0.113.3, 10.0.0.1']) {
        await behindProxy.request({
          url: `/sites/${id}/`,
          headers: { 'user-agent': BROWSER, 'x-forwarded-for': client },
        });
      }
      await behindProxy.ctx.services.views.flush();
      expect((await stored(behindProxy, id)).total).toBe(3);
    } finally {
      await behindProxy.close();
    }
    // Without it the header is the client's word: one peer, one visitor.
    const { id } = await liveProject(t, SIMPLE_SITE);
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      await visit(`/sites/${id}/`, { 'x-forwarded-for': client }, 'GET', '10.31.0.1');
    }
    await t.ctx.services.views.flush();
    expect((await stored(t, id)).total).toBe(1);
  });

  it('flushes by itself every few seconds', async () => {
    const { id } = await liveProject(t);
    await visit(`/sites/${id}/`);
    await vi.waitFor(async () => expect((await stored(t, id)).total).toBe(1), {
      timeout: 60_000,
      interval: 200,
    });
  });
});

describe('views across a graceful restart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps every counted view: closing the app writes what is still in memory', async () => {
    const { id } = await liveProject(t);
    for (let i = 0; i < 4; i++) {
      await t.request({ url: `/sites/${id}/`, headers: { 'user-agent': BROWSER }, ip: `10.40.0.${i}` });
    }
    expect(t.ctx.services.views.pendingCount()).toBe(4);
    t = await restartTestApp(t);
    expect(await stored(t, id)).toEqual({ total: 4, days: [{ day: today(), views: 4 }] });
    // The restarted app serves and counts on top.
    await t.request({ url: `/sites/${id}/`, headers: { 'user-agent': BROWSER }, ip: '10.40.1.1' });
    await t.ctx.services.views.flush();
    expect((await stored(t, id)).total).toBe(5);
  });
});

const hasRedis = await redisReachable();

describe.skipIf(!hasRedis)('views with REDIS_URL: visitors shared by the instances', () => {
  let t: TestApp;
  const prefix = uniqueRedisPrefix();
  const clients: Redis[] = [];
  /** A connected client: commands fail at once while disconnected (no offline queue). */
  const redis = async () => {
    const r = createRedis({ redisUrl: testRedisUrl, redisPrefix: prefix })!;
    r.on('error', () => {});
    clients.push(r);
    await firstAttempt(r);
    await r.ping();
    return r;
  };
  beforeAll(async () => {
    t = await createTestApp({ redisUrl: testRedisUrl, redisPrefix: prefix });
  });
  afterAll(async () => {
    await t.close();
    for (const r of clients) r.disconnect();
    await dropRedisPrefix(prefix);
  });

  it('counts a visitor once whichever instance it reaches, with one pipeline per turn', async () => {
    const { id } = await liveProject(t, SIMPLE_SITE);
    // Two more instances' counters on the same database and Redis.
    const a = createViewCounter(t.ctx.db, { redis: await redis() });
    const bClient = await redis();
    const b = createViewCounter(t.ctx.db, { redis: bClient });
    const pipelines = vi.spyOn(bClient, 'pipeline');
    a.count(id, { ip: '10.50.0.1', userAgent: BROWSER });
    await a.flush();
    // B sees the same visitor: not counted; three new ones in one turn: counted, in one pipeline.
    b.count(id, { ip: '10.50.0.1', userAgent: BROWSER });
    b.count(id, { ip: '10.50.0.2', userAgent: BROWSER });
    b.count(id, { ip: '10.50.0.3', userAgent: BROWSER });
    b.count(id, { ip: '10.50.0.1', userAgent: `${BROWSER} Firefox/140.0` });
    await b.flush();
    expect(pipelines).toHaveBeenCalledTimes(1);
    expect((await stored(t, id)).total).toBe(4);
    // The app itself, wired to the same Redis, has seen them all too.
    await t.request({ url: `/sites/${id}/`, headers: { 'user-agent': BROWSER }, ip: '10.50.0.2' });
    await t.request({ url: `/sites/${id}/`, headers: { 'user-agent': BROWSER }, ip: '10.50.0.9' });
    await t.ctx.services.views.flush();
    expect((await stored(t, id)).total).toBe(5);
    const keys = await clients[0]!.keys(`${prefix}views:seen:${id}:*`);
    expect(keys).toHaveLength(5);
    expect(await clients[0]!.ttl(keys[0]!.slice(prefix.length))).toBeGreaterThan(29 * 60);
  });

  it('counts the view when Redis cannot answer (fails open)', async () => {
    const { id } = await liveProject(t, SIMPLE_SITE);
    const gone = await redis();
    await gone.ping();
    gone.disconnect();
    const counter = createViewCounter(t.ctx.db, { redis: gone });
    counter.count(id, { ip: '10.51.0.1', userAgent: BROWSER });
    counter.count(id, { ip: '10.51.0.2', userAgent: BROWSER });
    // The same visitor again is still known to this instance.
    counter.count(id, { ip: '10.51.0.1', userAgent: BROWSER });
    await counter.flush();
    expect((await stored(t, id)).total).toBe(2);
  });
});
