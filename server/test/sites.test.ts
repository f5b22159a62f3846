/**
 * /sites/{id}/{path}: what a visitor of a live site gets — the right file and type, redirects,
 * the site's own 404, validators, ranges, compression — and what nobody gets: a site that is not
 * live, a path outside the site, the platform's origin.
 */
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SITE_SANDBOX_CSP } from '../src/serve/index.js';
import {
  createTestApp,
  listenPort,
  liveProject,
  makeZip,
  rawRequest,
  review,
  type TestApp,
  uploadProject,
} from './helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const INDEX = `<!doctype html><html><head><meta charset="utf-8"><title>首页</title></head><body>${'<p>站点展厅的首页内容。</p>'.repeat(80)}</body></html>`;
const CSS = `body { color: #333; }\n${'.card { margin: 0 auto; padding: 1em; }\n'.repeat(250)}`;
const BIG = Buffer.concat([PNG, randomBytes(2 * 1024 * 1024)]);

const SITE: Record<string, string | Buffer> = {
  'index.html': INDEX,
  'about.html': '<h1>关于</h1>',
  'docs/index.html': '<h1>文档</h1>',
  'css/style.css': CSS,
  'js/app.js': 'console.log("hi");',
  'js/mod.mjs': 'export const a = 1;',
  'data.json': '{"a":1}',
  'img/logo.png': PNG,
  'img/icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
  'big.png': BIG,
  'notes.md': '# 笔记',
  'table.csv': 'a,b\n1,2\n',
  'feed.xml': '<?xml version="1.0"?><feed/>',
  'readme.txt': '说明',
  'app.webmanifest': '{"name":"站点"}',
  '中文/页面.html': '<h1>中文页面</h1>',
  'café.html': '<h1>café</h1>',
  '한글.html': '<h1>한글</h1>',
  'a b.html': '<h1>space</h1>',
};

async function liveZipSite(t: TestApp, files: Record<string, string | Buffer>) {
  const owner = await t.createUser();
  const res = await uploadProject(t, owner.token, {
    name: '静态站点',
    files: [{ name: 'site.zip', content: await makeZip(files) }],
  });
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  const id = res.json().data.project.id as number;
  expect((await review(t, id, 'approve')).statusCode).toBe(200);
  return { id, owner };
}

describe('serving live sites', () => {
  let t: TestApp;
  let id: number;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ id } = await liveZipSite(t, SITE));
    port = await listenPort(t);
  });
  afterAll(() => t.close());

  it('serves the index at the root and redirects the root without its slash', async () => {
    const res = await t.request({ url: `/sites/${id}/` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(INDEX);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const bare = await t.request({ url: `/sites/${id}?from=card` });
    expect(bare.statusCode).toBe(302);
    expect(new URL(bare.headers.location as string, `http://h/sites/${id}?from=card`).href).toBe(
      `http://h/sites/${id}/?from=card`,
    );
  });

  it('serves a folder’s index.html and adds a folder’s missing slash', async () => {
    const dir = await t.request({ url: `/sites/${id}/docs/` });
    expect(dir.statusCode).toBe(200);
    expect(dir.body).toBe('<h1>文档</h1>');
    const noSlash = await t.request({ url: `/sites/${id}/docs?x=1` });
    expect(noSlash.statusCode).toBe(302);
    expect(new URL(noSlash.headers.location as string, `http://h/sites/${id}/docs`).pathname).toBe(
      `/sites/${id}/docs/`,
    );
    expect(noSlash.headers.location).toContain('?x=1');
  });

  it.each([
    ['about.html', 'text/html; charset=utf-8', false],
    ['css/style.css', 'text/css; charset=utf-8', false],
    ['js/app.js', 'text/javascript; charset=utf-8', false],
    ['js/mod.mjs', 'text/javascript; charset=utf-8', false],
    ['data.json', 'application/json; charset=utf-8', false],
    ['app.webmanifest', 'application/manifest+json; charset=utf-8', false],
    ['img/logo.png', 'image/png', false],
    ['img/icon.svg', 'image/svg+xml; charset=utf-8', false],
    ['readme.txt', 'text/plain; charset=utf-8', false],
    // Not web content: downloaded, never rendered by some other viewer.
    ['notes.md', 'text/markdown; charset=utf-8', true],
    ['table.csv', 'text/csv; charset=utf-8', true],
    ['feed.xml', 'application/xml; charset=utf-8', true],
  ])('%s is %s (download: %s)', async (path, type, download) => {
    const res = await t.request({ url: `/sites/${id}/${path}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    if (download) expect(res.headers['content-disposition']).toMatch(/^attachment; filename="/);
    else expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.rawPayload.equals(Buffer.from(SITE[path]!))).toBe(true);
  });

  it('finds Chinese, NFC-stored and spaced names, also from NFD requests', async () => {
    const cases: Array<[string, string]> = [
      [`/sites/${id}/${encodeURIComponent('中文')}/${encodeURIComponent('页面.html')}`, '<h1>中文页面</h1>'],
      [`/sites/${id}/caf%C3%A9.html`, '<h1>café</h1>'],
      [`/sites/${id}/cafe%CC%81.html`, '<h1>café</h1>'],
      [`/sites/${id}/${encodeURIComponent('한글'.normalize('NFD'))}.html`, '<h1>한글</h1>'],
      [`/sites/${id}/a%20b.html`, '<h1>space</h1>'],
    ];
    for (const [url, body] of cases) {
      const res = await rawRequest(port, url);
      expect(res.status, url).toBe(200);
      expect(res.body.toString()).toBe(body);
    }
  });

  it('serves the site’s own 404.html with status 404, else a plain Chinese 404', async () => {
    const plain = await t.request({ url: `/sites/${id}/nope.html` });
    expect(plain.statusCode).toBe(404);
    expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(plain.body).toContain('页面不存在');
    const { id: other } = await liveZipSite(t, {
      'index.html': '<h1>home</h1>',
      '404.html': '<h1>自己的 404</h1>',
    });
    const own = await t.request({ url: `/sites/${other}/missing/page` });
    expect(own.statusCode).toBe(404);
    expect(own.body).toBe('<h1>自己的 404</h1>');
    expect(own.headers.etag).toBeUndefined();
  });

  it('sends a strong ETag from the content hash, Last-Modified, and 304 when they match', async () => {
    const res = await t.request({ url: `/sites/${id}/css/style.css` });
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const row = await t.ctx.db
      .selectFrom('deployment_files')
      .select('sha256')
      .where('path', '=', 'css/style.css')
      .executeTakeFirstOrThrow();
    expect(etag).toBe(`"${row.sha256.slice(0, 32)}"`);
    const lastModified = res.headers['last-modified'] as string;
    expect(Date.parse(lastModified)).toBeGreaterThan(0);

    const again = await t.request({ url: `/sites/${id}/css/style.css`, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const weak = await t.request({
      url: `/sites/${id}/css/style.css`,
      headers: { 'if-none-match': `W/${etag}` },
    });
    expect(weak.statusCode).toBe(304);
    const since = await t.request({
      url: `/sites/${id}/css/style.css`,
      headers: { 'if-modified-since': lastModified },
    });
    expect(since.statusCode).toBe(304);
    // Not an HTTP-date (RFC 9110 §5.6.7), however far ahead: ignored, the file sent.
    for (const notADate of ['2099-01-01', '2099', 'Sun, 1 Jan 2099 00:00:00 GMT']) {
      const made = await rawRequest(port, `/sites/${id}/css/style.css`, {
        headers: { 'if-modified-since': notADate },
      });
      expect(made.status, notADate).toBe(200);
    }
    const stale = await t.request({
      url: `/sites/${id}/css/style.css`,
      headers: { 'if-none-match': '"0000"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('lets browsers revalidate HTML and cache assets briefly', async () => {
    expect((await t.request({ url: `/sites/${id}/` })).headers['cache-control']).toBe('no-cache');
    expect((await t.request({ url: `/sites/${id}/img/logo.png` })).headers['cache-control']).toBe(
      'public, max-age=300',
    );
  });

  it('answers single byte ranges with 206, past the end with 416, several with the whole file', async () => {
    const url = `/sites/${id}/css/style.css`;
    const part = await t.request({ url, headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe(CSS.slice(0, 10));
    expect(part.headers['content-range']).toBe(`bytes 0-9/${CSS.length}`);
    expect(part.headers['content-encoding']).toBeUndefined();
    const suffix = await t.request({ url, headers: { range: 'bytes=-5' } });
    expect(suffix.statusCode).toBe(206);
    expect(suffix.body).toBe(CSS.slice(-5));
    const past = await t.request({ url, headers: { range: `bytes=${CSS.length + 10}-` } });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${CSS.length}`);
    // A refusal gets no lifetime: a shared cache must not answer the next plain GET with it.
    expect(past.headers['cache-control']).toBeUndefined();
    const several = await t.request({ url, headers: { range: 'bytes=0-1,5-6' } });
    expect(several.statusCode).toBe(200);
    expect(several.body).toBe(CSS);
    const staleIfRange = await t.request({ url, headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    expect(staleIfRange.statusCode).toBe(200);
  });

  it('answers 412 when If-Match or If-Unmodified-Since fails, on every path, before 304 and ranges', async () => {
    const url = `/sites/${id}/css/style.css`;
    const first = await rawRequest(port, url);
    const etag = first.headers.etag as string;
    const lastModified = first.headers['last-modified'] as string;
    const before = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    // Over a real connection (the fast paths hand these to the route) and through inject alike.
    for (const ask of [
      (headers: Record<string, string>) => rawRequest(port, url, { headers }).then((r) => r.status),
      (headers: Record<string, string>) => t.request({ url, headers }).then((r) => r.statusCode),
    ]) {
      expect(await ask({ 'if-match': etag })).toBe(200);
      expect(await ask({ 'if-match': '*' })).toBe(200);
      expect(await ask({ 'if-match': '"0000"' })).toBe(412);
      expect(await ask({ 'if-match': `W/${etag}` })).toBe(412);
      expect(await ask({ 'if-unmodified-since': lastModified })).toBe(200);
      expect(await ask({ 'if-unmodified-since': before })).toBe(412);
      expect(await ask({ 'if-match': '"0000"', 'if-none-match': etag })).toBe(412);
      expect(await ask({ 'if-match': etag, range: 'bytes=0-9' })).toBe(206);
      expect(await ask({ 'if-match': '"0000"', range: 'bytes=0-9' })).toBe(412);
    }
    const failed = await rawRequest(port, url, { headers: { 'if-match': '"0000"' } });
    expect(failed.body.length).toBe(0);
    expect(failed.headers.etag).toBe(etag);
    expect(failed.headers['cache-control']).toBeUndefined();
    // A 404 ignores preconditions (RFC 9110 §13.2.1).
    expect(
      (await rawRequest(port, `/sites/${id}/missing.css`, { headers: { 'if-match': '"0000"' } })).status,
    ).toBe(404);
  });

  it('streams a large file whole and in ranges', async () => {
    const whole = await rawRequest(port, `/sites/${id}/big.png`);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(BIG.length));
    expect(whole.body.equals(BIG)).toBe(true);
    const tail = await rawRequest(port, `/sites/${id}/big.png`, {
      headers: { range: `bytes=${BIG.length - 100}-` },
    });
    expect(tail.status).toBe(206);
    expect(tail.body.equals(BIG.subarray(BIG.length - 100))).toBe(true);
  });

  it('compresses text with brotli or gzip, once, and never images', async () => {
    const putVariant = vi.spyOn(t.ctx.store, 'putVariant');
    const url = `/sites/${id}/css/style.css`;
    const br = await t.request({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(CSS);
    expect(Number(br.headers['content-length'])).toBeLessThan(CSS.length / 5);
    expect(br.headers.etag).toMatch(/-br"$/);
    const gz = await t.request({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(CSS);
    const plain = await t.request({ url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');

    // Once: each variant is made one time, stored beside the blob, and reused as it is.
    for (let i = 0; i < 5; i++) {
      const again = await t.request({ url, headers: { 'accept-encoding': i % 2 ? 'gzip' : 'br' } });
      expect(again.rawPayload.equals(i % 2 ? gz.rawPayload : br.rawPayload)).toBe(true);
    }
    await t.ctx.services.siteFiles.idle();
    expect(putVariant.mock.calls.map((c) => c[1]).sort()).toEqual(['br', 'gz']);
    putVariant.mockRestore();

    const png = await t.request({ url: `/sites/${id}/img/logo.png`, headers: { 'accept-encoding': 'br' } });
    expect(png.headers['content-encoding']).toBeUndefined();
  });

  it('answers HEAD with the GET headers and no body', async () => {
    const get = await t.request({ url: `/sites/${id}/css/style.css` });
    const head = await t.request({ method: 'HEAD', url: `/sites/${id}/css/style.css` });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers.etag).toBe(get.headers.etag);
  });

  it('keeps hot small files in memory', async () => {
    await t.request({ url: `/sites/${id}/about.html` });
    const memory = t.ctx.services.siteFiles.memory;
    expect(memory.size).toBeGreaterThan(0);
    expect(memory.bytes).toBeLessThanOrEqual(memory.maxBytes);
    // The 2 MB file was streamed, not kept.
    expect(memory.bytes).toBeLessThan(BIG.length);
  });
});

describe('which projects are served', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Status, body and the headers a visitor could tell apart (everything but Date). */
  async function visit(url: string) {
    const res = await t.request({ url });
    const { date: _date, ...headers } = res.headers;
    return { status: res.statusCode, body: res.body, headers };
  }

  it('a project that is not live is the same 404 as one that does not exist', async () => {
    const missing = await visit('/sites/999999/');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('页面不存在');

    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, {
      files: [{ name: 'index.html', content: '<h1>待审核</h1>' }],
    });
    const pending = up.json().data.project.id as number;
    for (const url of [`/sites/${pending}/`, `/sites/${pending}/index.html`, `/sites/${pending}`]) {
      expect(await visit(url)).toEqual(missing);
    }

    await review(t, pending, 'reject', '不合适');
    expect(await visit(`/sites/${pending}/`)).toEqual(missing);

    for (const bad of ['/sites/abc/', '/sites/0/', '/sites/-1/', '/sites/1e3/', '/sites/99999999999/']) {
      expect(await visit(bad)).toEqual(missing);
    }
    for (const bare of ['/sites', '/sites/', '/preview', '/preview/']) {
      expect((await visit(bare)).status).toBe(404);
    }
  });

  it('goes offline at once when taken down or deleted, and follows approval of a new version', async () => {
    const { id, owner } = await liveProject(t, [{ name: 'index.html', content: 'v1' }]);
    expect((await visit(`/sites/${id}/`)).body).toBe('v1');
    await uploadProject(t, owner.token, { projectId: id, files: [{ name: 'index.html', content: 'v2' }] });
    expect((await visit(`/sites/${id}/`)).body).toBe('v1');
    await review(t, id, 'approve');
    expect((await visit(`/sites/${id}/`)).body).toBe('v2');
    await review(t, id, 'takedown', '违规');
    expect((await visit(`/sites/${id}/`)).status).toBe(404);

    const other = await liveProject(t, [{ name: 'index.html', content: 'bye' }]);
    expect((await visit(`/sites/${other.id}/`)).status).toBe(200);
    const del = await t.request({
      method: 'DELETE',
      url: `/api/projects/${other.id}`,
      token: other.owner.token,
    });
    expect(del.statusCode).toBe(200);
    expect((await visit(`/sites/${other.id}/`)).status).toBe(404);
  });

  it('a private live project stays reachable at its address (it is only unlisted)', async () => {
    const { id, owner } = await liveProject(t, [{ name: 'index.html', content: 'unlisted' }]);
    const res = await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { is_public: false },
    });
    expect(res.statusCode).toBe(200);
    expect((await visit(`/sites/${id}/`)).body).toBe('unlisted');
  });
});

describe('path traversal', () => {
  let t: TestApp;
  let port: number;
  let a: number;
  let b: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ id: a } = await liveZipSite(t, { 'index.html': 'A', 'sub/index.html': 'A-sub', 'sub/x.html': 'A-x' }));
    ({ id: b } = await liveZipSite(t, { 'index.html': 'B', 'secret.html': 'B-SECRET' }));
    port = await listenPort(t);
  });
  afterAll(() => t.close());

  // Every spelling of "leave this folder" is refused (never resolved), so none can reach another
  // project's files, the blob store, the database or the system. Sent byte for byte.
  const attempts = (a: number, b: number) => [
    `/sites/${a}/../${b}/secret.html`,
    `/sites/${a}/../../etc/passwd`,
    `/sites/${a}/sub/../../${b}/secret.html`,
    `/sites/${a}/%2e%2e/${b}/secret.html`,
    `/sites/${a}/%2E%2E/%2E%2E/etc/passwd`,
    `/sites/${a}/.%2e/${b}/secret.html`,
    `/sites/${a}/%2e./${b}/secret.html`,
    `/sites/${a}/..%2f${b}%2fsecret.html`,
    `/sites/${a}/%2e%2e%2f${b}%2fsecret.html`,
    `/sites/${a}/%2e%2e%5c${b}%5csecret.html`,
    `/sites/${a}/..\\${b}\\secret.html`,
    `/sites/${a}/sub\\..\\..\\${b}\\secret.html`,
    `/sites/${a}/..%5c${b}%5csecret.html`,
    `/sites/${a}/%252e%252e/${b}/secret.html`,
    `/sites/${a}/%c0%ae%c0%ae/${b}/secret.html`,
    `/sites/${a}/%c0%af${b}/secret.html`,
    `/sites/${a}/%e0%80%ae%e0%80%ae/${b}/secret.html`,
    `/sites/${a}/%u002e%u002e/${b}/secret.html`,
    `/sites/${a}/%ef%bc%8e%ef%bc%8e/${b}/secret.html`,
    `/sites/${a}/./index.html`,
    `/sites/${a}/sub/./x.html`,
    `/sites/${a}//etc/passwd`,
    `/sites/${a}/%2fetc%2fpasswd`,
    `/sites/${a}/%2f%2e%2e%2f${b}/secret.html`,
    `/sites/${a}/index.html%00.png`,
    `/sites/${a}/sub%00/x.html`,
    `/sites/${a}/%0d%0aSet-Cookie:%20x=1`,
    `/sites/${a}/..;/${b}/secret.html`,
    `/sites/${a}/sub/..`,
    `/sites/${a}/sub/%2e%2e`,
    `/sites/${a}/%`,
    `/sites/${a}/%zz`,
    `/sites/${a}/%e4%b8`,
    `/sites/../sites/${b}/secret.html`,
    `/sites/${a}%2f..%2f${b}/secret.html`,
    `/sites/%2e%2e/${b}/secret.html`,
    `/sites/${a}/../../sitehall.db`,
    `/sites/${a}/../../blobs/`,
    `/preview/..%2f..%2fsites/${b}/secret.html`,
    `/preview/../sites/${b}/secret.html`,
  ];

  it('refuses every form, with no file of any other place in the answer', async () => {
    for (const url of attempts(a, b)) {
      const res = await rawRequest(port, url);
      // 400 (the URL can't be decoded) or 404: never a file, never a redirect out.
      expect([400, 404], url).toContain(res.status);
      const body = res.body.toString();
      expect(body, url).not.toContain('B-SECRET');
      expect(body, url).not.toContain('root:');
      expect(body, url).not.toContain('SQLite format');
      expect(res.headers['set-cookie'], url).toBeUndefined();
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('still serves the plain forms of the same paths', async () => {
    expect((await rawRequest(port, `/sites/${b}/secret.html`)).body.toString()).toBe('B-SECRET');
    expect((await rawRequest(port, `/sites/${a}/sub/x.html`)).body.toString()).toBe('A-x');
  });
});

describe('isolation headers', () => {
  let t: TestApp;
  let port: number;
  let id: number;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ id } = await liveZipSite(t, {
      'index.html': INDEX,
      'docs/index.html': 'docs',
      'style.css': CSS,
      'notes.md': '# x',
    }));
    const owned = await liveZipSite(t, { 'index.html': 'p', '404.html': 'own 404' });
    const res = await t.request({
      method: 'POST',
      url: `/api/projects/${owned.id}/preview-token`,
      token: owned.owner.token,
    });
    token = res.json().data.token;
    port = await listenPort(t);
  });
  afterAll(() => t.close());

  type Case = [
    label: string,
    method: string,
    url: () => string,
    headers: Record<string, string>,
    status: number,
  ];
  const cases: Case[] = [
    ['page', 'GET', () => `/sites/${id}/`, {}, 200],
    ['asset', 'GET', () => `/sites/${id}/style.css`, {}, 200],
    ['compressed', 'GET', () => `/sites/${id}/style.css`, { 'accept-encoding': 'br' }, 200],
    ['download', 'GET', () => `/sites/${id}/notes.md`, {}, 200],
    ['HEAD', 'HEAD', () => `/sites/${id}/`, {}, 200],
    ['range', 'GET', () => `/sites/${id}/style.css`, { range: 'bytes=0-3' }, 206],
    ['not modified', 'GET', () => `/sites/${id}/style.css`, { 'if-none-match': '*' }, 304],
    ['unsatisfiable', 'GET', () => `/sites/${id}/style.css`, { range: 'bytes=999999-' }, 416],
    ['root redirect', 'GET', () => `/sites/${id}`, {}, 302],
    ['folder redirect', 'GET', () => `/sites/${id}/docs`, {}, 302],
    ['missing file', 'GET', () => `/sites/${id}/nope`, {}, 404],
    ['missing project', 'GET', () => '/sites/999999/', {}, 404],
    ['traversal', 'GET', () => `/sites/${id}/%2e%2e/x`, {}, 404],
    // The router itself refuses an overlong escape (frameworkErrors answers it).
    ['undecodable', 'GET', () => `/sites/${id}/%c0%ae`, {}, 400],
    ['bare prefix', 'GET', () => '/sites', {}, 404],
    // The router decodes '%73' to 's': the site route answers, with the site headers.
    ['encoded prefix', 'GET', () => `/%73ites/${id}/`, {}, 404],
    ['encoded preview prefix', 'GET', () => `/%70review/${token}/`, {}, 404],
    ['POST', 'POST', () => `/sites/${id}/`, {}, 405],
    ['PUT', 'PUT', () => `/sites/${id}/x`, {}, 405],
    ['DELETE', 'DELETE', () => `/sites/${id}/`, {}, 405],
    // Methods no route names at all answer the same.
    ['TRACE', 'TRACE', () => `/sites/${id}/`, {}, 405],
    ['PROPFIND', 'PROPFIND', () => `/sites/${id}/x`, {}, 405],
    ['preview PROPFIND', 'PROPFIND', () => `/preview/${token}/`, {}, 405],
    [
      'OPTIONS',
      'OPTIONS',
      () => `/sites/${id}/`,
      { origin: 'null', 'access-control-request-method': 'GET' },
      405,
    ],
    ['preview page', 'GET', () => `/preview/${token}/`, {}, 200],
    ['preview HEAD', 'HEAD', () => `/preview/${token}/`, {}, 200],
    ['preview root redirect', 'GET', () => `/preview/${token}`, {}, 302],
    ['preview not modified', 'GET', () => `/preview/${token}/`, { 'if-none-match': '*' }, 304],
    ['preview own 404', 'GET', () => `/preview/${token}/missing`, {}, 404],
    ['preview bad token', 'GET', () => '/preview/not-a-real-token-at-all-xx/', {}, 404],
    ['preview POST', 'POST', () => `/preview/${token}/`, {}, 405],
    ['preview bare', 'GET', () => '/preview', {}, 404],
  ];

  it.each(cases)('%s (%s): sandboxed', async (_label, method, url, headers, status) => {
    const res = await rawRequest(port, url(), { method, headers });
    expect(res.status).toBe(status);
    const csp = res.headers['content-security-policy'];
    expect(csp).toBe(SITE_SANDBOX_CSP);
    expect(csp).toMatch(/^sandbox /);
    expect(csp).not.toContain('allow-same-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    // Nothing of the platform's own policy leaks in (it would allow the app's origin).
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['set-cookie']).toBeUndefined();
    if (url().startsWith('/preview')) {
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['x-robots-tag']).toMatch(/noindex/);
    }
  });

  it('an error inside serving still carries the sandbox (a blob gone from the store)', async () => {
    const { id: broken } = await liveZipSite(t, { 'index.html': 'gone soon' });
    const row = await t.ctx.db
      .selectFrom('deployment_files')
      .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
      .select('sha256')
      .where('deployments.project_id', '=', broken)
      .executeTakeFirstOrThrow();
    await t.ctx.store.delete(row.sha256);
    const res = await rawRequest(port, `/sites/${broken}/`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
