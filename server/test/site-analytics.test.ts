/**
 * A site's analytics for its owner (docs/notifications.md "Owner analytics"): page views per path,
 * referring hosts and bytes served, counted on both serving paths (the Fastify route and the fast
 * path), written by the view flush, shown only to the owner and admins, and keeping no address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
