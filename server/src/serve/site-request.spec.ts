import { describe, expect, it } from 'vitest';
import type { SiteFile } from './resolve.js';
import { decideSiteRequest, type ServedSite, type SiteRequestContext } from './site-request.js';
import { compileSiteRules } from './site-rules.js';

function site(paths: string[], extra: Partial<ServedSite> = {}): ServedSite {
  const files = new Map<string, SiteFile>(
    paths.map((p) => [
      p,
      {
        path: p,
        size: 1,
        mime_type: p.endsWith('.html') || p.endsWith('.htm') ? 'text/html' : 'image/png',
        sha256: 'a'.repeat(64),
      },
    ]),
  );
  return { files, entryFile: null, routing: null, ...extra };
}

const GET: SiteRequestContext = { method: 'GET', preview: false, prefetch: false };
const plain = site([
  'index.html',
  'about.html',
  'docs/index.html',
  'old/index.htm',
  'img/logo.png',
  '404.html',
  'a:b/index.html',
]);

function fileOf(d: ReturnType<typeof decideSiteRequest>) {
  return d.kind === 'file' ? { path: d.file.path, status: d.status, countsView: d.countsView } : d;
}

describe('decideSiteRequest without routing (what every serving path did before)', () => {
  it('serves a file by its name and a folder by its index', () => {
    expect(fileOf(decideSiteRequest(plain, 'img/logo.png', GET))).toEqual({
      path: 'img/logo.png',
      status: 200,
      countsView: false,
    });
    expect(fileOf(decideSiteRequest(plain, '', GET))).toEqual({
      path: 'index.html',
      status: 200,
      countsView: true,
    });
    expect(fileOf(decideSiteRequest(plain, 'docs/', GET))).toMatchObject({ path: 'docs/index.html' });
    expect(fileOf(decideSiteRequest(plain, 'old/', GET))).toMatchObject({ path: 'old/index.htm' });
  });

  it('adds a folder’s missing slash, relative to the request, keeping the query', () => {
    expect(decideSiteRequest(plain, 'docs?x=1', GET)).toEqual({
      kind: 'redirect',
      status: 302,
      location: './docs/?x=1',
    });
    expect(decideSiteRequest(plain, 'a:b', GET)).toMatchObject({ location: './a%3Ab/' });
  });

  it('answers the site’s 404.html with 404, and nothing without one', () => {
    expect(fileOf(decideSiteRequest(plain, 'nope', GET))).toEqual({
      path: '404.html',
      status: 404,
      countsView: false,
    });
    expect(decideSiteRequest(site(['index.html']), 'nope', GET)).toEqual({ kind: 'not-found' });
    expect(decideSiteRequest(plain, '../etc/passwd', GET)).toEqual({ kind: 'not-found' });
    expect(decideSiteRequest(plain, 'about', GET)).toMatchObject({ kind: 'file', status: 404 });
  });

  it('serves the entry file at the root, and a preview without one says so', () => {
    const home = site(['home.html'], { entryFile: 'home.html' });
    expect(fileOf(decideSiteRequest(home, '', GET))).toMatchObject({ path: 'home.html', status: 200 });
    expect(decideSiteRequest(site(['a.html', 'b.html']), '', { ...GET, preview: true })).toEqual({
      kind: 'no-entry',
    });
    expect(decideSiteRequest(site(['a.html', 'b.html']), '', GET)).toEqual({ kind: 'not-found' });
  });

  it('counts a view for a live page’s GET only: not HEAD, previews, prefetches or assets', () => {
    const counts = (ctx: SiteRequestContext, path = '') => {
      const d = decideSiteRequest(plain, path, ctx);
      return d.kind === 'file' && d.countsView;
    };
    expect(counts(GET)).toBe(true);
    expect(counts({ ...GET, method: 'HEAD' })).toBe(false);
    expect(counts({ ...GET, preview: true })).toBe(false);
    expect(counts({ ...GET, prefetch: true })).toBe(false);
    expect(counts(GET, 'img/logo.png')).toBe(false);
    expect(counts(GET, 'nope')).toBe(false);
  });

  it('serves the routing files as stored files when the site has no routing', () => {
    expect(decideSiteRequest(site(['_redirects']), '_redirects', GET)).toMatchObject({ kind: 'file' });
  });
});

describe('decideSiteRequest with routing', () => {
  const routed = (paths: string[], routing: Partial<NonNullable<ServedSite['routing']>>, text = {}) =>
    site(paths, {
      routing: { rules: compileSiteRules(text), spaFallback: false, cleanUrls: false, ...routing },
    });

  it('SPA fallback: index.html for paths that match no file, with 200, counted', () => {
    const spa = routed(['index.html', 'app.js', '404.html'], { spaFallback: true });
    expect(fileOf(decideSiteRequest(spa, 'dashboard/settings', GET))).toEqual({
      path: 'index.html',
      status: 200,
      countsView: true,
    });
    expect(fileOf(decideSiteRequest(spa, 'app.js', GET))).toMatchObject({ path: 'app.js' });
    const off = routed(['index.html', '404.html'], {});
    expect(fileOf(decideSiteRequest(off, 'dashboard/settings', GET))).toMatchObject({
      path: '404.html',
      status: 404,
    });
  });

  it('SPA fallback leaves a missing script, stylesheet or picture missing; a route with a dot falls back', () => {
    const spa = routed(['index.html', '404.html'], { spaFallback: true });
    // index.html as a script is "Unexpected token '<'", as a picture a broken one: the 404 says what happened.
    for (const asset of [
      'assets/app-3f2a.js',
      'assets/style.css',
      'img/logo.PNG',
      'data/list.json',
      'a.woff2',
    ])
      expect(fileOf(decideSiteRequest(spa, asset, GET))).toMatchObject({ path: '404.html', status: 404 });
    // A route whose last segment has a dot that names no file type, and a page's name, are routes.
    for (const route of ['users/john.doe', 'v1.2/notes', 'about.html', 'posts/2024.11.30'])
      expect(fileOf(decideSiteRequest(spa, route, GET))).toMatchObject({ path: 'index.html', status: 200 });
  });

  it('clean URLs: /about finds about.html when on, not when off', () => {
    const on = routed(['index.html', 'about.html', 'guide/intro.html'], { cleanUrls: true });
    expect(fileOf(decideSiteRequest(on, 'about', GET))).toMatchObject({ path: 'about.html', status: 200 });
    expect(fileOf(decideSiteRequest(on, 'guide/intro', GET))).toMatchObject({ path: 'guide/intro.html' });
    expect(decideSiteRequest(routed(['about.html'], {}), 'about', GET)).toEqual({ kind: 'not-found' });
  });

  it('a file shadows an unforced rule; a forced rule wins over the file', () => {
    const r = routed(
      ['index.html', 'old.html', 'new.html'],
      {},
      { redirects: '/old.html /new.html 301\n/index.html /new.html 302!' },
    );
    expect(fileOf(decideSiteRequest(r, 'old.html', GET))).toMatchObject({ path: 'old.html' });
    expect(decideSiteRequest(r, 'index.html', GET)).toEqual({
      kind: 'redirect',
      status: 302,
      location: './new.html',
    });
  });

  it('redirects with splats and placeholders, relative to the request so they stay in the site', () => {
    const r = routed(
      ['index.html'],
      {},
      { redirects: '/blog/:year/:slug /posts/:year-:slug 301\n/docs/* /manual/:splat 302' },
    );
    expect(decideSiteRequest(r, 'blog/2020/hello?x=1', GET)).toEqual({
      kind: 'redirect',
      status: 301,
      location: './../../posts/2020-hello?x=1',
    });
    expect(decideSiteRequest(r, 'docs/a/b.html', GET)).toMatchObject({ location: './../../manual/a/b.html' });
  });

  it('200 rewrites serve the target, 404 rules serve it with 404; a missing target falls through', () => {
    const r = routed(
      ['index.html', 'app/index.html', 'gone.html'],
      {},
      {
        redirects: '/app/* /app/index.html 200\n/old/* /gone.html 404\n/x/* /missing.html 200',
      },
    );
    expect(fileOf(decideSiteRequest(r, 'app/users/3', GET))).toEqual({
      path: 'app/index.html',
      status: 200,
      countsView: true,
    });
    expect(fileOf(decideSiteRequest(r, 'old/page', GET))).toEqual({
      path: 'gone.html',
      status: 404,
      countsView: false,
    });
    expect(decideSiteRequest(r, 'x/1', GET)).toEqual({ kind: 'not-found' });
  });

  it('never serves _redirects and _headers once they are the site’s routing', () => {
    const r = routed(['index.html', '_redirects', '_headers'], {}, { redirects: '/a /b 301' });
    expect(decideSiteRequest(r, '_redirects', GET)).toEqual({ kind: 'not-found' });
    expect(decideSiteRequest(r, '_headers', GET)).toEqual({ kind: 'not-found' });
  });

  it('gives each path the headers its _headers rules declare', () => {
    const r = routed(
      ['index.html', 'assets/a.js'],
      {},
      {
        headers:
          '/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n/*\n  Cross-Origin-Opener-Policy: same-origin',
      },
    );
    const d = decideSiteRequest(r, 'assets/a.js', GET);
    expect(d.kind === 'file' && d.headers).toEqual({
      'cache-control': 'public, max-age=31536000, immutable',
      'cross-origin-opener-policy': 'same-origin',
    });
    const again = decideSiteRequest(r, 'assets/a.js', GET);
    expect(again.kind === 'file' && d.kind === 'file' && again.headers === d.headers).toBe(true);
  });
});
