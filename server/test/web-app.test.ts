/**
 * The built web app as the server sends it: index.html for every client route with a fresh script
 * nonce that its CSP names, so only the app's own scripts (and what they load) run on its pages;
 * never an uploaded script from /sites or /preview, which share the app's origin on a one-host
 * install. e2e/csp.e2e.ts checks the same in Chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, listenPort, rawRequest, type TestApp, tempDir } from './helpers.js';

const INDEX = `<!doctype html><html><head><title>站点展厅</title>
<meta property="csp-nonce" nonce="SITEHALL_CSP_NONCE">
<script type="module" crossorigin src="/assets/index-abc.js" nonce="SITEHALL_CSP_NONCE"></script>
<link rel="modulepreload" crossorigin href="/assets/react-abc.js" nonce="SITEHALL_CSP_NONCE">
</head><body><div id="root"></div></body></html>`;

describe('the web app’s pages and their CSP', () => {
  let t: TestApp;
  let webDist: string;
  beforeAll(async () => {
    webDist = tempDir('sitehall-web-');
    fs.mkdirSync(path.join(webDist, 'assets'));
    fs.writeFileSync(path.join(webDist, 'index.html'), INDEX);
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc.js'), 'console.log("app")');
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc.css'), 'body{margin:0}');
    fs.writeFileSync(path.join(webDist, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // What the build lists for the public pages (web/vite.config.ts routePreloads).
    fs.writeFileSync(
      path.join(webDist, 'route-preloads.json'),
      JSON.stringify({
        '/public': {
          scripts: ['/assets/ShowcasePage-abc.js', '/assets/button-abc.js'],
          styles: ['/assets/Showcase-abc.css'],
        },
      }),
    );
    t = await createTestApp({ webDist });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(webDist, { recursive: true, force: true });
  });

  const nonceOf = (csp: string) => /script-src 'nonce-([A-Za-z0-9+/=]+)' 'strict-dynamic'/.exec(csp)?.[1];

  it('stamps every script tag of the page with a fresh nonce that only its own CSP names', async () => {
    const nonces = new Set<string>();
    for (const url of ['/', '/login', '/admin/users?page=2', '/index.html']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = res.headers['content-security-policy'] as string;
      const nonce = nonceOf(csp);
      expect(nonce, csp).toBeDefined();
      // No 'self' for scripts: uploaded sites are 'self' too on one host.
      expect(csp).not.toMatch(/script-src[^;]*'self'/);
      // The signed-in project pictures are object URLs the app makes (web/src/api/thumbnails.ts).
      expect(csp.split('; ')).toContain("img-src 'self' data: blob:");
      expect(res.body).not.toContain('SITEHALL_CSP_NONCE');
      expect(res.body.match(/nonce="([^"]+)"/g)).toEqual([
        `nonce="${nonce}"`,
        `nonce="${nonce}"`,
        `nonce="${nonce}"`,
      ]);
      expect(Buffer.from(nonce!, 'base64')).toHaveLength(16);
      nonces.add(nonce!);
    }
    expect(nonces.size).toBe(4);
  });

  it('allows no script at all on answers that are not the page', async () => {
    for (const url of ['/assets/missing.js', '/assets/logo.svg', '/api/config/public', '/api/nothing-here']) {
      const res = await t.request({ url });
      expect(res.headers['content-security-policy'], url).toContain("script-src 'none'");
    }
  });

  it('sends the app’s own scripts and stylesheets with nosniff but without the document-only headers', async () => {
    for (const url of ['/assets/index-abc.js', '/assets/index-abc.css']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      for (const name of [
        'content-security-policy',
        'x-frame-options',
        'cross-origin-opener-policy',
        'referrer-policy',
      ]) {
        expect(res.headers[name], `${url} ${name}`).toBeUndefined();
      }
    }
    expect((await t.request({ url: '/assets/index-abc.js' })).body).toBe('console.log("app")');
  });

  it('names a public page’s scripts and stylesheet in its answer, with the answer’s nonce; other routes get the plain page', async () => {
    for (const url of ['/public', '/public?q=%E6%B8%B8%E6%88%8F', '/public/']) {
      const res = await t.request({ url });
      const nonce = nonceOf(res.headers['content-security-policy'] as string);
      expect(res.body, url).toContain(
        `<link rel="modulepreload" crossorigin href="/assets/ShowcasePage-abc.js" nonce="${nonce}">` +
          `<link rel="modulepreload" crossorigin href="/assets/button-abc.js" nonce="${nonce}"></head>`,
      );
      expect(res.body).toContain(
        `<link rel="stylesheet" crossorigin href="/assets/Showcase-abc.css" nonce="${nonce}">`,
      );
      expect(res.body).not.toContain('SITEHALL_CSP_NONCE');
    }
    for (const url of ['/', '/login', '/publicity', '/admin/public']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain('ShowcasePage-abc.js');
    }
    // The list itself is the server's, not an address.
    for (const url of ['/route-preloads.json', '/route-preloads.json.br']) {
      const res = await t.request({ url });
      expect(res.body, url).not.toContain('ShowcasePage-abc.js');
    }
  });

  it('answers HEAD for a client route without a body', async () => {
    const res = await rawRequest(await listenPort(t), '/dashboard', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(0);
    expect(nonceOf(res.headers['content-security-policy'] as string)).toBeDefined();
  });
});

describe('a build in place', () => {
  it("sends the new build's page once index.html changes, and the last one while it can't be read", async () => {
    const webDist = tempDir('sitehall-web-');
    fs.writeFileSync(path.join(webDist, 'index.html'), INDEX);
    const t = await createTestApp({ webDist });
    // The clock moved on by hand, past the server's once-a-second look at index.html.
    vi.useFakeTimers({ toFake: ['Date'] });
    const secondsLater = () => vi.setSystemTime(Date.now() + 2_000);
    try {
      expect((await t.request({ url: '/projects' })).body).toContain('/assets/index-abc.js');
      // The build writes a new page naming its new scripts.
      fs.writeFileSync(path.join(webDist, 'index.html'), INDEX.replaceAll('-abc.js', '-def.js'));
      const written = new Date(Date.now() + 5_000);
      fs.utimesSync(path.join(webDist, 'index.html'), written, written);
      secondsLater();
      expect((await t.request({ url: '/projects' })).body).toContain('/assets/index-def.js');
      // Gone for a moment (a build that empties the folder first): the last page meanwhile.
      fs.rmSync(path.join(webDist, 'index.html'));
      secondsLater();
      const res = await t.request({ url: '/projects' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('/assets/index-def.js');
    } finally {
      vi.useRealTimers();
      await t.close();
      fs.rmSync(webDist, { recursive: true, force: true });
    }
  });

  it("serves the new build's scripts and stylesheets, written after the start, as the ones it started with", async () => {
    const webDist = tempDir('sitehall-web-');
    fs.mkdirSync(path.join(webDist, 'assets'));
    fs.writeFileSync(path.join(webDist, 'index.html'), INDEX);
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc.js'), 'console.log("old")');
    const t = await createTestApp({ webDist });
    try {
      // The build writes its chunks under new names (the page naming them is the test above's).
      fs.writeFileSync(path.join(webDist, 'assets', 'index-def.js'), 'console.log("new")');
      fs.writeFileSync(path.join(webDist, 'assets', 'index-def.js.br'), 'brotli bytes');
      fs.writeFileSync(path.join(webDist, 'assets', 'index-def.css'), 'body{margin:0}');
      const before = await t.request({ url: '/assets/index-abc.js' });
      for (const [url, type] of [
        ['/assets/index-def.js', 'javascript'],
        ['/assets/index-def.css', 'text/css'],
      ] as const) {
        const res = await t.request({ url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toContain(type);
        expect(res.headers['cache-control']).toBe(before.headers['cache-control']);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
      expect((await t.request({ url: '/assets/index-def.js' })).body).toBe('console.log("new")');
      // Its compressed copy answers a browser that takes it, as the start's files do.
      const br = await t.request({ url: '/assets/index-def.js', headers: { 'accept-encoding': 'br' } });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.body).toBe('brotli bytes');
      // Still nothing but the folder's own files: a chunk that is gone, a copy's own address, a
      // way out of the folder and a folder are 404s.
      for (const url of [
        '/assets/index-gone.js',
        '/assets/index-def.js.br',
        '/assets/..%2findex.html',
        '/assets/',
      ]) {
        const res = await t.request({ url });
        expect(res.statusCode, url).toBe(404);
        expect(res.body, url).not.toContain('SITEHALL_CSP_NONCE');
      }
      fs.rmSync(path.join(webDist, 'assets', 'index-def.css'));
      expect((await t.request({ url: '/assets/index-def.css' })).statusCode).toBe(404);
    } finally {
      await t.close();
      fs.rmSync(webDist, { recursive: true, force: true });
    }
  });
});
