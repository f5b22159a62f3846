/**
 * A site's analytics for its owner (docs/notifications.md "Owner analytics"): page views per path,
 * referring hosts and bytes served, counted on both serving paths (the Fastify route and the fast
 * path), written by the view flush, shown only to the owner and admins, and keeping no address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DAY_KEYS } from '../src/services/site-analytics.js';
import { createTestApp, listenPort, liveProject, type TestApp } from './helpers.js';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';
const PAGE = `<!doctype html><title>首页</title><p>${'内容'.repeat(500)}</p>`;
const ABOUT = '<!doctype html><title>关于</title><p>关于我们</p>';
const CSS = `body{color:#333}${' '.repeat(2000)}`;

describe('owner analytics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('counts pages, other sites that referred, and bytes, on the route and the fast path, without addresses', async () => {
    const { id, owner } = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'about.html', content: ABOUT },
      { name: 'style.css', content: CSS },
    ]);
    const get = (url: string, headers: Record<string, string>, ip: string) =>
      t.request({ url, headers: { 'user-agent': BROWSER, ...headers }, ip });
    // Through the route (inject): a page from a search engine, the same page from inside the
    // site (no referral), another page, a stylesheet, a bot.
    expect(
      (await get(`/sites/${id}/`, { referer: 'https://www.Search.example/q?x=1' }, '203.0.113.9')).statusCode,
    ).toBe(200);
    await get(
      `/sites/${id}/`,
      { referer: `http://localhost/sites/${id}/about.html`, host: 'localhost' },
      '203.0.113.10',
    );
    await get(`/sites/${id}/about.html`, { referer: 'https://blog.example/post' }, '203.0.113.11');
    await get(`/sites/${id}/style.css`, {}, '203.0.113.9');
    await t.request({
      url: `/sites/${id}/about.html`,
      headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' },
    });

    // Through a real port: once the page is in memory the fast path answers it, and counts too.
    const port = await listenPort(t);
    const fetchPage = () =>
      fetch(`http://127.0.0.1:${port}/sites/${id}/`, {
        headers: { 'user-agent': BROWSER, referer: 'https://www.search.example/' },
      }).then((r) => r.arrayBuffer());
    await fetchPage();
    await t.ctx.services.siteFiles.idle();
    const before = t.fastPath?.served ?? 0;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/sites/${id}/`, {
        headers: { 'user-agent': BROWSER, referer: 'https://www.search.example/' },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    expect(t.fastPath?.served ?? 0).toBeGreaterThan(before);
    await t.ctx.services.views.flush();

    const res = await t.request({ url: `/api/projects/${id}/analytics`, token: owner.token });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.top_pages).toEqual([
      { path: 'index.html', views: 5 },
      { path: 'about.html', views: 1 },
    ]);
    expect(data.referrers).toEqual([
      { host: 'www.search.example', views: 4 },
      { host: 'blog.example', views: 1 },
    ]);
    const pageBytes = Buffer.byteLength(PAGE);
    const today = new Date().toISOString().slice(0, 10);
    expect(data.days).toHaveLength(30);
    const day = data.days.at(-1);
    expect(day.day).toBe(today);
    // Five answers of the page (maybe compressed: no more than its size each), the about page
    // twice (visitor and bot), the stylesheet once.
    expect(day.bytes).toBeGreaterThan(Buffer.byteLength(ABOUT) * 2);
    expect(day.bytes).toBeLessThanOrEqual(pageBytes * 5 + Buffer.byteLength(ABOUT) * 2 + CSS.length);
    expect(data.total_bytes).toBe(day.bytes);
    // Views per day are the visitor-counted views (one per visitor per 30 minutes).
    expect(day.views).toBe(4);
    expect(data.total_views).toBe(4);

    // Nothing of a visitor's address or browser is kept.
    const stored = JSON.stringify(
      await Promise.all(
        (['project_daily_pages', 'project_daily_referrers', 'project_daily_bytes'] as const).map((table) =>
          t.ctx.db.selectFrom(table).selectAll().execute(),
        ),
      ),
    );
    for (const secret of ['203.0.113', '127.0.0.1', 'Mozilla', 'q?x=1', '/post'])
      expect(stored).not.toContain(secret);
  });

  it('counts a single-page app’s routes as its pages, on the route and the fast path', async () => {
    // An app answered by the SPA fallback, and one whose own _redirects rewrites its routes.
    const fallback = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'app.js', content: 'history.pushState({}, "", "/users/42")' },
    ]);
    const on = await t.request({
      method: 'PUT',
      url: `/api/projects/${fallback.id}`,
      token: fallback.owner.token,
      body: { spa_fallback: true },
    });
    expect(on.statusCode, on.body).toBe(200);
    const rewritten = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'about.html', content: ABOUT },
      { name: '_redirects', content: '/*  /index.html  200\n' },
    ]);
    const port = await listenPort(t);
    const visit = async (id: number, path: string, times = 1) => {
      for (let i = 0; i < times; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/sites/${id}/${path}`, {
          headers: { 'user-agent': BROWSER },
        });
        expect(res.status, path).toBe(200);
        await res.arrayBuffer();
      }
    };
    // Three times each: the first through the route, the later ones through the fast path once
    // index.html is in memory (both count the same).
    const before = t.fastPath?.served ?? 0;
    for (const { id } of [fallback, rewritten]) {
      await visit(id, '');
      await t.ctx.services.siteFiles.idle();
      await visit(id, 'users/42', 3);
      await visit(id, 'settings/', 2);
    }
    await visit(rewritten.id, 'about.html');
    // A file the fallback leaves alone, and a script: no page.
    expect((await fetch(`http://127.0.0.1:${port}/sites/${fallback.id}/missing.css`)).status).toBe(404);
    await visit(fallback.id, 'app.js');
    expect(t.fastPath?.served ?? 0).toBeGreaterThan(before);
    await t.ctx.services.views.flush();
    const topPages = async (id: number, token: string) =>
      (await t.request({ url: `/api/projects/${id}/analytics`, token })).json().data.top_pages;
    const routes = [
      { path: 'users/42', views: 3 },
      { path: 'settings/', views: 2 },
      { path: 'index.html', views: 1 },
    ];
    expect(await topPages(fallback.id, fallback.owner.token)).toEqual(routes);
    // A real file is its own page, even where a rule could rewrite everything.
    expect(await topPages(rewritten.id, rewritten.owner.token)).toEqual([
      ...routes.slice(0, 2),
      { path: 'about.html', views: 1 },
      { path: 'index.html', views: 1 },
    ]);
  });

  it('keeps at most MAX_DAY_KEYS pages and referring hosts of a site’s day, the views still counted', async () => {
    const { id, owner } = await liveProject(t);
    const views = t.ctx.services.views;
    const visitor = (i: number) => ({ ip: `198.51.100.${i % 250}`, userAgent: `${BROWSER} ${i}` });
    // A page and a host every visitor of the day had, then made-up ones past the limit, in two
    // flushes: the second finds the day full.
    views.count(id, visitor(0), { path: 'index.html', referer: 'https://real.example/', host: undefined });
    await views.flush();
    for (let i = 1; i <= MAX_DAY_KEYS + 5; i++)
      views.count(id, visitor(i), {
        path: `made-up/${i}`,
        referer: `https://h${i}.example/`,
        host: undefined,
      });
    views.count(id, visitor(0), { path: 'index.html', referer: 'https://real.example/', host: undefined });
    await views.flush();
    for (let i = 1; i <= 3; i++)
      views.count(id, visitor(i), {
        path: `later/${i}`,
        referer: `https://later${i}.example/`,
        host: undefined,
      });
    views.count(id, visitor(0), { path: 'index.html', referer: 'https://real.example/', host: undefined });
    await views.flush();
    const rows = async (table: 'project_daily_pages' | 'project_daily_referrers') =>
      t.ctx.db.selectFrom(table).selectAll().where('project_id', '=', id).execute();
    const pages = await rows('project_daily_pages');
    const hosts = await rows('project_daily_referrers');
    expect(pages).toHaveLength(MAX_DAY_KEYS);
    expect(hosts).toHaveLength(MAX_DAY_KEYS);
    // What the day held goes on counting; nothing of the third flush was new room.
    expect(pages.find((r) => r.path === 'index.html')?.views).toBe(3);
    expect(hosts.find((r) => r.host === 'real.example')?.views).toBe(3);
    expect(pages.some((r) => r.path.startsWith('later/'))).toBe(false);
    const data = (await t.request({ url: `/api/projects/${id}/analytics`, token: owner.token })).json().data;
    expect(data.top_pages[0]).toEqual({ path: 'index.html', views: 3 });
    expect(data.total_views).toBeGreaterThan(MAX_DAY_KEYS);
  });

  it('shows a project’s numbers to its owner and admins only', async () => {
    const { id } = await liveProject(t);
    const other = await t.createUser();
    const foreign = await t.request({ url: `/api/projects/${id}/analytics`, token: other.token });
    expect(foreign.statusCode).toBe(404);
    expect((await t.request({ url: `/api/projects/${id}/analytics` })).statusCode).toBe(401);
    const admin = await t.request({ url: `/api/projects/${id}/analytics`, token: await t.adminToken() });
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data).toMatchObject({ top_pages: [], referrers: [], total_views: 0, total_bytes: 0 });
  });

  it('keeps counting for the other projects when one was deleted before the flush', async () => {
    const a = await liveProject(t);
    const b = await liveProject(t);
    for (const p of [a, b])
      await t.request({
        url: `/sites/${p.id}/`,
        headers: { 'user-agent': BROWSER, referer: 'https://x.example/' },
      });
    expect(
      (await t.request({ method: 'DELETE', url: `/api/projects/${a.id}`, token: a.owner.token })).statusCode,
    ).toBe(200);
    await t.ctx.services.views.flush();
    const res = await t.request({ url: `/api/projects/${b.id}/analytics`, token: b.owner.token });
    expect(res.json().data.referrers).toEqual([{ host: 'x.example', views: 1 }]);
  });
});
