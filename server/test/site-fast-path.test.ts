/**
 * The /sites fast path (serve/fast-path.ts) answers hot files before Fastify. Whatever it answers
 * must be what the Fastify route answers: the same status, headers and bytes, request by request
 * (compared here against app.inject, which never reaches the fast path), and the same page views.
 * What it does not answer falls through untouched.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  listenPort,
  liveProject,
  rawRequest,
  review,
  type TestApp,
  uploadProject,
} from './helpers.js';
import { CSS, PAGE } from './support/site-files.js';
import { getRequest, Wire } from './support/wire.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36';

/** Headers that say something about the connection or the moment, not about the answer. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
function answerHeaders(headers: IncomingHttpHeaders | Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([name]) => !TRANSPORT.has(name))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

describe('the /sites fast path', () => {
  let t: TestApp;
  let id: number;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ id } = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'docs/index.html', content: '<h1>文档</h1>' },
      { name: 'css/style.css', content: CSS },
      { name: 'img/logo.png', content: PNG },
      { name: 'notes.md', content: '# 笔记' },
      { name: 'js/app.js', content: 'console.log(1);' },
    ]));
    port = await listenPort(t);
  });
  afterAll(() => t.close());

  const served = () => t.fastPath!.served;

  /** The same request through Fastify (inject) and over a socket, which the fast path must answer. */
  async function compare(path: string, headers: Record<string, string> = {}) {
    const url = `/sites/${id}/${path}`;
    // First through Fastify, which loads the body and makes the compressed variants.
    await rawRequest(port, url, { headers });
    await t.ctx.services.siteFiles.idle();
    const viaFastify = await t.request({ url, headers });
    const before = served();
    const viaFastPath = await rawRequest(port, url, { headers });
    expect(served(), `${url} ${JSON.stringify(headers)} took the fast path`).toBe(before + 1);
    expect(viaFastPath.status, url).toBe(viaFastify.statusCode);
    expect(answerHeaders(viaFastPath.headers), url).toEqual(answerHeaders(viaFastify.headers));
    expect(viaFastPath.body.equals(viaFastify.rawPayload), url).toBe(true);
    return viaFastPath;
  }

  it.each([
    ['', {}],
    ['index.html', {}],
    ['index.html?v=2', {}],
    ['index.html', { 'accept-encoding': 'gzip, deflate, br, zstd' }],
    ['index.html', { 'accept-encoding': 'gzip' }],
    ['docs/', {}],
    ['css/style.css', { 'accept-encoding': 'br' }],
    ['css/style.css', {}],
    ['img/logo.png', { 'accept-encoding': 'gzip, br' }],
    ['notes.md', {}],
    ['js/app.js', { 'accept-encoding': 'gzip, br' }],
  ])('answers %s %j as the route does', async (path, headers: Record<string, string>) => {
    const res = await compare(path, headers);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers 304 to a current ETag or date, as the route does, and 200 to a stale one', async () => {
    const first = await rawRequest(port, `/sites/${id}/index.html`, { headers: { 'accept-encoding': 'br' } });
    const etag = first.headers.etag as string;
    const lastModified = first.headers['last-modified'] as string;
    expect((await compare('index.html', { 'accept-encoding': 'br', 'if-none-match': etag })).status).toBe(
      304,
    );
    expect((await compare('index.html', { 'if-modified-since': lastModified })).status).toBe(304);
    // The br variant's tag does not match the plain bytes.
    expect((await compare('index.html', { 'if-none-match': etag })).status).toBe(200);
    expect((await compare('css/style.css', { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('leaves ranges, HEAD, misses, redirects, previews and other methods to the route', async () => {
    await compare('index.html');
    const before = served();
    const cases: Array<[string, { method?: string; headers?: Record<string, string> }, number]> = [
      [`/sites/${id}/index.html`, { headers: { range: 'bytes=0-9' } }, 206],
      [`/sites/${id}/index.html`, { method: 'HEAD' }, 200],
      [`/sites/${id}/missing.html`, {}, 404],
      [`/sites/${id}/docs`, {}, 302],
      [`/sites/${id}`, {}, 302],
      [`/sites/${id}/%2e%2e/index.html`, {}, 404],
      ['/sites/999999/index.html', {}, 404],
      [`/sites/${id}/index.html`, { method: 'POST' }, 405],
      ['/preview/not-a-token/index.html', {}, 404],
    ];
    const notFound = new Set<string>();
    for (const [url, opts, status] of cases) {
      const res = await rawRequest(port, url, opts);
      expect(res.status, url).toBe(status);
      expect(res.headers['content-security-policy'], url).toContain('sandbox');
      if (status === 404) {
        // The platform's own 404 is one small page, never the API's JSON.
        expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
        // A preview link that opens nothing has a page of its own (previews.test.ts).
        if (url.startsWith('/sites/')) notFound.add(res.body.toString());
      }
    }
    expect([...notFound]).toHaveLength(1);
    expect([...notFound][0]).toMatch(/^<!doctype html>.*页面不存在/);
    expect(served()).toBe(before);
  });

  it('counts an HTML page view as the route does, and not assets or prefetches', async () => {
    await t.ctx.services.views.flush();
    const views = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('projects')
            .select('view_count')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).view_count,
      );
    const start = await views();
    const before = served();
    const get = (path: string, headers: Record<string, string> = {}) =>
      rawRequest(port, `/sites/${id}/${path}`, { headers: { 'user-agent': BROWSER, ...headers } });
    await get('');
    // Another visitor (the same one again would count once per 30 minutes).
    await get('index.html', { 'user-agent': `${BROWSER} Edg/140.0` });
    await get('index.html');
    await get('css/style.css');
    await get('img/logo.png');
    await get('index.html', { 'sec-purpose': 'prefetch' });
    await get('index.html', { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' });
    expect(served()).toBe(before + 7);
    await t.ctx.services.views.flush();
    expect(await views()).toBe(start + 2);
  });

  it('answers a URL it has seen with the new version once that goes live, never the old bytes', async () => {
    const owner = await t.createUser();
    const v1 = await uploadProject(t, owner.token, {
      name: '版本项目',
      files: [
        { name: 'index.html', content: '<h1>第一版</h1>' },
        { name: 'app.js', content: 'console.log("v1");' },
      ],
    });
    const projectId = v1.json().data.project.id as number;
    expect((await review(t, projectId, 'approve')).statusCode).toBe(200);
    const get = async (path: string) => {
      const res = await rawRequest(port, `/sites/${projectId}/${path}`, {
        headers: { 'user-agent': BROWSER },
      });
      return { status: res.status, text: res.body.toString(), etag: res.headers.etag };
    };
    // Seen twice: the second answer comes from the fast path's memory of the URL.
    await get('app.js');
    const before = served();
    const first = await get('app.js');
    expect(served()).toBe(before + 1);
    expect(first.text).toBe('console.log("v1");');

    const v2 = await uploadProject(t, owner.token, {
      projectId,
      files: [
        { name: 'index.html', content: '<h1>第二版</h1>' },
        { name: 'app.js', content: 'console.log("v2");' },
      ],
    });
    expect(v2.statusCode).toBe(200);
    // Still pending review: the live version is unchanged.
    expect((await get('app.js')).text).toBe('console.log("v1");');
    expect((await review(t, projectId, 'approve')).statusCode).toBe(200);
    const after = await get('app.js');
    expect(after.text).toBe('console.log("v2");');
    expect(after.etag).not.toBe(first.etag);
    const fast = served();
    expect((await get('app.js')).text).toBe('console.log("v2");');
    expect(served()).toBe(fast + 1);

    // Taken down: the same URL is a 404 at once, from the route.
    const down = await review(t, projectId, 'takedown', '测试下架');
    expect(down.statusCode, down.body).toBe(200);
    const gone = await get('app.js');
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('页面不存在，或该站点尚未发布。');
    expect(served()).toBe(fast + 1);
  });

  it('stops when the app closes, so Fastify answers 503 while it drains', async () => {
    const other = await createTestApp();
    await listenPort(other);
    const fastPath = other.fastPath!;
    await other.close();
    type Serve = NonNullable<TestApp['fastPath']>['serve'];
    const req = { method: 'GET', url: '/sites/1/', headers: {} } as Parameters<Serve>[0];
    expect(fastPath.serve(req, {} as Parameters<Serve>[1])).toBe(false);
  });
});

describe('page views on the fast paths behind a proxy (TRUST_PROXY)', () => {
  it('count a visitor once, told apart by X-Forwarded-For, on a kept-alive connection and on Node’s', async () => {
    const t = await createTestApp({ trustProxy: true });
    try {
      const { id } = await liveProject(t, [{ name: 'index.html', content: PAGE }]);
      const port = await listenPort(t);
      const nodePath = (client: string) =>
        rawRequest(port, `/sites/${id}/`, {
          headers: { 'user-agent': BROWSER, 'x-forwarded-for': client, connection: 'close' },
        });
      // Loaded into memory by the route first (counted: 203.0.113.1).
      expect((await nodePath('203.0.113.1')).status).toBe(200);
      const page = (client: string) =>
        getRequest(`/sites/${id}/`, { 'user-agent': BROWSER, 'x-forwarded-for': `${client}, 10.0.0.1` });
      const wire = await Wire.connect(port);
      const answered = t.fastPath!.connections.answered;
      // The connection fast path: one new visitor, two repeats.
      for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.2']) {
        wire.send(page(client));
        expect((await wire.answer()).status).toBe(200);
      }
      expect(t.fastPath!.connections.answered).toBe(answered + 3);
      wire.socket.destroy();
      // Node's request path (a request the connection path hands over): one new, one repeat.
      const served = t.fastPath!.served;
      for (const client of ['203.0.113.3', '203.0.113.1']) expect((await nodePath(client)).status).toBe(200);
      expect(t.fastPath!.served).toBe(served + 2);
      await t.ctx.services.views.flush();
      const row = await t.ctx.db
        .selectFrom('projects')
        .select('view_count')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(Number(row.view_count)).toBe(3);
    } finally {
      await t.close();
    }
  });
});

describe.each([
  ['a separate sites origin', false],
  ['a host per project', true],
])('the /sites fast path with %s', (_name, subdomains) => {
  let t: TestApp;
  let id: number;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ sitesOrigin: 'http://sites.example.test', sitesSubdomains: subdomains });
    ({ id } = await liveProject(t, [
      { name: 'index.html', content: PAGE },
      { name: 'css/style.css', content: CSS },
    ]));
    port = await listenPort(t);
  });
  afterAll(() => t.close());

  const served = () => t.fastPath!.served;
  /** Where the site lives: its own host, or /sites/{id}/ on the sites host. */
  const siteHost = () => (subdomains ? `p${id}.sites.example.test` : 'sites.example.test');
  const sitePath = (path: string) => (subdomains ? `/${path}` : `/sites/${id}/${path}`);

  it.each([
    ['', {}],
    ['css/style.css', {}],
    ['css/style.css', { 'accept-encoding': 'gzip, br' }],
    ['index.html?v=3', {}],
  ])('answers %s %j on the sites host as the route does, without the sandbox', async (path, extra) => {
    const headers: Record<string, string> = { host: siteHost(), ...extra };
    // First through the route (loads the body, makes the variants), then the comparison.
    await rawRequest(port, sitePath(path), { headers });
    await t.ctx.services.siteFiles.idle();
    const viaFastify = await t.request({ url: sitePath(path), headers });
    const before = served();
    const viaFastPath = await rawRequest(port, sitePath(path), { headers });
    expect(served()).toBe(before + 1);
    expect(viaFastPath.status).toBe(200);
    expect(viaFastPath.status).toBe(viaFastify.statusCode);
    expect(answerHeaders(viaFastPath.headers)).toEqual(answerHeaders(viaFastify.headers));
    expect(viaFastPath.body.equals(viaFastify.rawPayload)).toBe(true);
    expect(viaFastPath.headers['content-security-policy']).toBeUndefined();
    expect(viaFastPath.headers['access-control-allow-origin']).toBe('*');
  });

  it('leaves the app host’s redirects and the sites host’s own answers to the route', async () => {
    const path = 'css/style.css';
    await rawRequest(port, sitePath(path), { headers: { host: siteHost() } });
    const before = served();
    // The app host sends /sites over to the sites origin.
    const fromApp = await rawRequest(port, `/sites/${id}/${path}`, { headers: { host: '127.0.0.1' } });
    expect(fromApp.status).toBe(302);
    expect(fromApp.headers.location).toBe(`http://${siteHost()}${sitePath(path)}`);
    // With a host per project, the sites host moves /sites/{id}/ there.
    const onSitesHost = await rawRequest(port, `/sites/${id}/${path}`, {
      headers: { host: 'sites.example.test' },
    });
    expect(onSitesHost.status).toBe(subdomains ? 302 : 200);
    // Nothing but sites on the sites host.
    expect((await rawRequest(port, '/api/projects/public', { headers: { host: siteHost() } })).status).toBe(
      404,
    );
    expect(served()).toBe(before + (subdomains ? 0 : 1));
  });
});
