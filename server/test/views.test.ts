/**
 * View counting (DECISIONS.md "Serving sites"): an HTML page view of a live site counts one;
 * assets, bots, HEAD, prefetches, 404s and previews don't. Counts are written in batches, per
 * project and per day, and a graceful restart keeps them.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, liveProject, restartTestApp, SIMPLE_SITE, type TestApp } from './helpers.js';

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

describe('site views', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const visit = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
    t.request({ method, url, headers: { 'user-agent': BROWSER, ...headers } });

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

  it('flushes by itself every few seconds', async () => {
    const { id } = await liveProject(t);
    await visit(`/sites/${id}/`);
    await vi.waitFor(async () => expect((await stored(t, id)).total).toBe(1), {
      timeout: 8000,
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
      await t.request({ url: `/sites/${id}/`, headers: { 'user-agent': BROWSER } });
    }
    expect(t.ctx.services.views.pendingCount()).toBe(4);
    t = await restartTestApp(t);
    expect(await stored(t, id)).toEqual({ total: 4, days: [{ day: today(), views: 4 }] });
    // The restarted app serves and counts on top.
    await t.request({ url: `/sites/${id}/`, headers: { 'user-agent': BROWSER } });
    await t.ctx.services.views.flush();
    expect((await stored(t, id)).total).toBe(5);
  });
});
