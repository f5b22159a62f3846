/**
 * A site's own routing (docs/product.md "A site's own routing"): `_redirects` and `_headers` checked
 * at upload (a bad line is a 400 naming it, nothing kept) and applied by every serving path (the
 * route, the fast path on a real port, previews); the owner's SPA fallback and clean URLs switches;
 * and what a hostile rule file can't do (docs/security.md "A site's routing files").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenSitesPort } from '../src/lifecycle.js';
import { SITE_SANDBOX_CSP } from '../src/serve/site-headers.js';
import {
  createTestApp,
  expectFailure,
  freePort,
  liveProject,
  projectRowCounts,
  rawRequest,
  review,
  type TestApp,
  type UploadFile,
  uploadProject,
} from './helpers.js';

const PAGE = (title: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

const REDIRECTS = [
  '# 旧地址',
  '/old.html        /new.html             301',
  '/blog/:year/:slug /posts/:year-:slug.html 302',
  '/docs/*          /manual/:splat         301',
  '/app/*           /app/index.html        200',
  '/gone/*          /gone.html             404',
  '/go/*            /:splat                302',
  '/away            https://example.com/welcome 302',
].join('\n');

const HEADERS = [
  '/assets/*',
  '  Cache-Control: public, max-age=31536000, immutable',
  '/*',
  '  Cross-Origin-Opener-Policy: same-origin',
  '  Cross-Origin-Embedder-Policy: require-corp',
  '/data.bin',
  '  Content-Type: application/wasm',
  '/game.data.gz',
  '  Content-Type: application/octet-stream',
  '  Content-Encoding: gzip',
  '/index.html',
  '  X-Content-Type-Options: nosniff',
].join('\n');

const SITE: UploadFile[] = [
  { name: 'index.html', content: PAGE('首页') },
  { name: 'new.html', content: PAGE('新页面') },
  { name: 'old.html', content: PAGE('旧页面') },
  { name: 'posts/2024-hello.html', content: PAGE('文章') },
  { name: 'manual/a/b.html', content: PAGE('手册') },
  { name: 'app/index.html', content: PAGE('应用') },
  { name: 'gone.html', content: PAGE('已删除') },
  { name: 'assets/app.js', content: 'console.log("app");' },
  { name: 'data.bin', content: Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) },
  {
    name: 'game.data.gz',
    content: Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  },
  { name: '_redirects', content: REDIRECTS },
];

describe('rules a site declares, served', () => {
  let t: TestApp;
  let sitesPort: number;
  let id: number;
  let owner: { token: string };
  const get = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(sitesPort, `/sites/${id}/${path}`, { headers });

  beforeAll(async () => {
    sitesPort = await freePort();
    t = await createTestApp({ sitesPort });
    await listenSitesPort(t, t.config);
    // _headers with the wrong header list first: the allow-list line is refused.
    ({ id, owner } = await liveProject(t, [
      ...SITE,
      {
        name: '_headers',
        content: HEADERS.replace(
          '/index.html\n  X-Content-Type-Options: nosniff',
          // A page is revalidated whatever the site asks; an encoding is only for a file stored
          // compressed (.gz, .br): app.js is sent as it is stored, as the content check read it.
          '/index.html\n  Cache-Control: public, max-age=600\n/assets/app.js\n  Content-Encoding: gzip',
        ),
      },
    ]));
  });
  afterAll(() => t.close());

  const resolved = (res: { headers: Record<string, unknown> }, path: string) =>
    new URL(res.headers.location as string, `http://sites.test/sites/${id}/${path}`).href;

  it('redirects with the status, splats and placeholders a rule names, inside the site', async () => {
    const moved = await get('old-path-is-missing');
    expect(moved.status).toBe(404);
    // A file shadows its unforced rule: old.html exists, so it is served.
    expect((await get('old.html')).status).toBe(200);
    const blog = await get('blog/2024/hello?ref=x');
    expect(blog.status).toBe(302);
    expect(resolved(blog, 'blog/2024/hello?ref=x')).toBe(
      `http://sites.test/sites/${id}/posts/2024-hello.html?ref=x`,
    );
    const docs = await get('docs/a/b.html');
    expect(docs.status).toBe(301);
    expect(resolved(docs, 'docs/a/b.html')).toBe(`http://sites.test/sites/${id}/manual/a/b.html`);
    const away = await get('away');
    expect(away.status).toBe(302);
    expect(away.headers.location).toBe('https://example.com/welcome');
  });

  it('serves a 200 rewrite’s file for the address asked, and a 404 rule’s file with 404', async () => {
    for (let i = 0; i < 2; i++) {
      // Twice: the second answer comes from the fast path's memory.
      const deep = await get('app/users/3/settings');
      expect(deep.status).toBe(200);
      expect(deep.body.toString()).toBe(PAGE('应用'));
    }
    const gone = await get('gone/anything');
    expect(gone.status).toBe(404);
    expect(gone.body.toString()).toBe(PAGE('已删除'));
  });

  it('never serves the routing files themselves', async () => {
    expect((await get('_redirects')).status).toBe(404);
    expect((await get('_headers')).status).toBe(404);
  });

  it('a splat can’t send a visitor off the site (no //host, no scheme)', async () => {
    for (const path of ['go/evil.example', 'go/https:/evil.example', 'go/%2F%2Fevil.example']) {
      const res = await get(path);
      if (res.status === 302) {
        expect(new URL(resolved(res, path)).origin, path).toBe('http://sites.test');
        expect(resolved(res, path).startsWith(`http://sites.test/sites/${id}/`), path).toBe(true);
      } else expect(res.status, path).toBe(404);
    }
  });

  it('puts the site’s headers on its files, by the route and the fast path alike', async () => {
    for (let i = 0; i < 2; i++) {
      const js = await get('assets/app.js');
      expect(js.status).toBe(200);
      expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(js.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(js.headers['cross-origin-embedder-policy']).toBe('require-corp');
      expect(js.headers['content-encoding']).toBeUndefined();
      expect(js.body.toString()).toBe('console.log("app");');
      // The platform's own stay: nosniff and the CORS origin.
      expect(js.headers['x-content-type-options']).toBe('nosniff');
      expect(js.headers['access-control-allow-origin']).toBe('*');
      const page = await get('');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
    }
    const wasm = await get('data.bin');
    expect(wasm.headers['content-type']).toBe('application/wasm');
    // A download-only file keeps its attachment and nosniff whatever type it is given.
    expect(wasm.headers['content-disposition']).toMatch(/^attachment/);
    const gz = await get('game.data.gz', { 'accept-encoding': 'gzip, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/octet-stream');
    expect(gz.body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('applies the same rules in a preview, sandbox kept, COOP and COEP left out', async () => {
    const made = await t.request({
      method: 'POST',
      url: `/api/projects/${id}/preview-token`,
      token: owner.token,
    });
    const previewUrl = made.json().data.preview_url as string;
    const path = new URL(previewUrl, 'http://x').pathname;
    const deep = await rawRequest(sitesPort, `${path}app/users/3`);
    expect(deep.status).toBe(200);
    expect(deep.body.toString()).toBe(PAGE('应用'));
    expect(deep.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expect(deep.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(deep.headers['cache-control']).toBe('private, no-store');
    const js = await rawRequest(sitesPort, `${path}assets/app.js`);
    expect(js.headers['cache-control']).toBe('private, no-store');
    const docs = await rawRequest(sitesPort, `${path}docs/x.html`);
    expect(docs.status).toBe(301);
    expect(new URL(docs.headers.location as string, `http://s${path}docs/x.html`).pathname).toBe(
      `${path}manual/x.html`,
    );
  });

  it('shows the owner and the reviewer the rules, and the diff of a new version’s rules', async () => {
    const detail = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    expect(detail.json().data.project.routing.rules.redirects).toBe(REDIRECTS);
    const next = await uploadProject(t, owner.token, {
      projectId: id,
      files: [
        ...SITE.filter((f) => f.name !== '_redirects'),
        { name: '_redirects', content: '/x /new.html 302' },
      ],
    });
    expect(next.statusCode).toBe(200);
    const review = await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() });
    const data = review.json().data;
    expect(data.project.routing.rules.redirects).toBe('/x /new.html 302');
    expect(data.diff.site_rules.live.redirects).toBe(REDIRECTS);
    expect(data.diff.site_rules.newest).toEqual({ redirects: '/x /new.html 302', headers: null });
  });
});

describe('the owner’s routing switches', () => {
  let t: TestApp;
  let sitesPort: number;
  beforeAll(async () => {
    sitesPort = await freePort();
    t = await createTestApp({ sitesPort });
    await listenSitesPort(t, t.config);
  });
  afterAll(() => t.close());

  it('SPA fallback and clean URLs are off by default, and the owner turns them on and off', async () => {
    const { id, owner } = await liveProject(t, [
      { name: 'index.html', content: PAGE('单页应用') },
      { name: 'about.html', content: PAGE('关于') },
      { name: 'guide/intro.html', content: PAGE('入门') },
    ]);
    const get = (path: string) => rawRequest(sitesPort, `/sites/${id}/${path}`);
    const set = (body: Record<string, boolean>, token = owner.token) =>
      t.request({ method: 'PUT', url: `/api/projects/${id}`, token, body });
    expect((await get('dashboard/settings')).status).toBe(404);
    expect((await get('about')).status).toBe(404);

    const other = await t.createUser();
    expect((await set({ spa_fallback: true }, other.token)).statusCode).toBe(404);
    expect((await get('dashboard/settings')).status).toBe(404);

    const on = await set({ spa_fallback: true, clean_urls: true });
    expect(on.statusCode).toBe(200);
    expect(on.json().data.project.routing).toMatchObject({ spa_fallback: true, clean_urls: true });
    const deep = await get('dashboard/settings');
    expect(deep.status).toBe(200);
    expect(deep.body.toString()).toBe(PAGE('单页应用'));
    expect((await get('about')).body.toString()).toBe(PAGE('关于'));
    expect((await get('guide/intro')).body.toString()).toBe(PAGE('入门'));

    expect((await set({ spa_fallback: false, clean_urls: false })).statusCode).toBe(200);
    expect((await get('dashboard/settings')).status).toBe(404);
    expect((await get('about')).status).toBe(404);
  });

  it('the SPA fallback can be set with an upload, and with a new version of a live site', async () => {
    const owner = await t.createUser();
    const files = [{ name: 'index.html', content: PAGE('路由应用') }];
    const bad = await uploadProject(t, owner.token, { name: '开关', files, fields: { spa_fallback: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('开关的值只能是 true 或 false');
    const up = await uploadProject(t, owner.token, {
      name: '路由应用',
      files,
      fields: { spa_fallback: 'true' },
    });
    expect(up.statusCode, up.body).toBe(201);
    const id = up.json().data.project.id as number;
    expect(up.json().data.project.routing).toMatchObject({ spa_fallback: true });
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    const get = (path: string) => rawRequest(sitesPort, `/sites/${id}/${path}`);
    expect((await get('users/42')).status).toBe(200);
    // A new version that turns it off: the live site answers by the switch at once.
    const next = await uploadProject(t, owner.token, {
      projectId: id,
      files,
      fields: { spa_fallback: 'false' },
    });
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().data.project.routing).toMatchObject({ spa_fallback: false });
    expect((await get('users/42')).status).toBe(404);
  });
});

describe('rule files checked at upload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const refused: [string, UploadFile, RegExp][] = [
    [
      'a bad status',
      { name: '_redirects', content: '/a /b 301\n/c /d 999' },
      /^_redirects 第 2 行：状态码 “999”/,
    ],
    [
      'an open redirect through a placeholder host',
      { name: '_redirects', content: '/go/:host https://:host/ 302' },
      /^_redirects 第 1 行：.*域名必须固定/,
    ],
    [
      'a rewrite to another site',
      { name: '_redirects', content: '/api/* https://api.example.com/:splat 200' },
      /^_redirects 第 1 行：200 和 404 规则/,
    ],
    [
      'a splat in the middle',
      { name: '_redirects', content: '# c\n\n/a*b/(x+)+ /c 301' },
      /^_redirects 第 3 行：\* 只能/,
    ],
    [
      'a protocol-relative target',
      { name: '_redirects', content: '/a //evil.example/ 301' },
      /^_redirects 第 1 行：/,
    ],
    [
      'a cookie',
      { name: '_headers', content: '/*\n  Set-Cookie: a=b' },
      /^_headers 第 2 行：不允许设置响应头 Set-Cookie/,
    ],
    [
      'a weaker CSP route: HSTS',
      { name: '_headers', content: '/*\n  Strict-Transport-Security: max-age=0' },
      /^_headers 第 2 行：不允许/,
    ],
    [
      'HTML by header',
      { name: '_headers', content: '/notes.txt\n  Content-Type: text/html' },
      /^_headers 第 2 行：Content-Type/,
    ],
    [
      // <script src="notes.txt"> runs it (nosniff passes a JavaScript type), hidden from the content check.
      'a script type by header on a text file',
      { name: '_headers', content: '/notes.txt\n  Content-Type: text/x-javascript' },
      /^_headers 第 2 行：Content-Type/,
    ],
    [
      'a script type by header on a download-only file',
      {
        name: '_headers',
        content: '/*\n  Cache-Control: no-cache\n/LICENSE\n  Content-Type: application/x-javascript',
      },
      /^_headers 第 4 行：Content-Type/,
    ],
    [
      // Firefox applies a stylesheet a Link header names, from any host, unseen by the content
      // check and the render (outside review r5).
      'a stylesheet by a Link header',
      {
        name: '_headers',
        content:
          '/*\n  Link: </a.css>; rel=preload\n/blog/*\n  Link: <https://evil.example/k.css>; REL="alternate Stylesheet"',
      },
      /^_headers 第 4 行：Link 响应头不能引入样式表/,
    ],
    [
      'a header before any path',
      { name: '_headers', content: '  Cache-Control: no-cache' },
      /^_headers 第 1 行：/,
    ],
    ['a huge file', { name: '_redirects', content: '/a /b 301\n'.repeat(8000) }, /^_redirects：文件太大/],
  ];

  for (const [what, file, message] of refused) {
    it(`refuses ${what}, naming the line, and keeps nothing`, async () => {
      const user = await t.createUser();
      const before = await projectRowCounts(t);
      const res = await uploadProject(t, user.token, {
        files: [{ name: 'index.html', content: PAGE('首页') }, file],
      });
      const body = expectFailure(res, 400);
      expect(body.message).toMatch(message);
      expect(await projectRowCounts(t)).toEqual(before);
    });
  }

  it('checks a zip’s rule files the same way', async () => {
    const { makeZip } = await import('./helpers.js');
    const user = await t.createUser();
    const res = await uploadProject(t, user.token, {
      files: [
        {
          name: 'site.zip',
          content: await makeZip({ 'site/index.html': PAGE('首页'), 'site/_redirects': '/a' }),
        },
      ],
    });
    expect(expectFailure(res, 400).message).toMatch(/^_redirects 第 1 行：/);
  });
});

describe('root-absolute requests of a site on the sites port (base: "/")', () => {
  let t: TestApp;
  let sitesPort: number;
  let id: number;
  beforeAll(async () => {
    sitesPort = await freePort();
    t = await createTestApp({ sitesPort });
    await listenSitesPort(t, t.config);
    ({ id } = await liveProject(t, [
      { name: 'index.html', content: '<script type="module" src="/assets/app.js"></script>' },
      { name: 'assets/app.js', content: 'document.body.append("ok");' },
    ]));
  });
  afterAll(() => t.close());

  const ask = (path: string, headers: Record<string, string>) => rawRequest(sitesPort, path, { headers });

  it('sends a request from one of the site’s pages back under that site’s prefix', async () => {
    const host = `127.0.0.1:${sitesPort}`;
    const res = await ask('/assets/app.js?v=1', {
      host,
      referer: `http://${host}/sites/${id}/`,
      'sec-fetch-site': 'same-origin',
    });
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe(`/sites/${id}/assets/app.js?v=1`);
    expect(res.headers.vary).toMatch(/Referer/);
    const followed = await ask(res.headers.location as string, { host });
    expect(followed.body.toString()).toBe('document.body.append("ok");');
  });

  it('rescues nothing else: no Referer, another host, a cross-site request, a page outside a site', async () => {
    const host = `127.0.0.1:${sitesPort}`;
    for (const headers of [
      { host } as Record<string, string>,
      { host, referer: `http://evil.example/sites/${id}/` },
      { host, referer: `http://${host}/sites/${id}/`, 'sec-fetch-site': 'cross-site' },
      { host, referer: `http://${host}/other/` },
      { host, referer: 'not a url' },
    ]) {
      expect((await ask('/assets/app.js', headers)).status, JSON.stringify(headers)).toBe(404);
    }
    // Nor another method, nor a protocol-relative path.
    const post = await rawRequest(sitesPort, '/assets/app.js', {
      method: 'POST',
      headers: { host, referer: `http://${host}/sites/${id}/` },
    });
    expect(post.status).toBe(404);
    expect((await ask('//evil.example/x', { host, referer: `http://${host}/sites/${id}/` })).status).not.toBe(
      307,
    );
  });
});
