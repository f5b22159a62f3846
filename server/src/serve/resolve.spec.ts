import { describe, expect, it } from 'vitest';
import { resolveSiteFile, type SiteFile } from './resolve.js';

function site(paths: string[]) {
  const files = new Map<string, SiteFile>(
    paths.map((p) => [p, { path: p, size: 1, mime_type: 'text/html', sha256: 'a'.repeat(64) }]),
  );
  const asked: string[] = [];
  const lookup = async (p: string) => {
    asked.push(p);
    return files.get(p);
  };
  return { lookup, asked };
}

describe('resolveSiteFile', () => {
  const { lookup } = site([
    'index.html',
    'about.html',
    'docs/index.html',
    'old/index.htm',
    'café/index.html',
    'a:b/index.html',
    '404.html',
    'img/logo.png',
  ]);

  it('serves an exact file', async () => {
    expect(await resolveSiteFile(lookup, 'img/logo.png')).toMatchObject({
      kind: 'file',
      status: 200,
      file: { path: 'img/logo.png' },
    });
  });

  it("serves a directory's index.html, then index.htm", async () => {
    expect(await resolveSiteFile(lookup, '')).toMatchObject({ kind: 'file', file: { path: 'index.html' } });
    expect(await resolveSiteFile(lookup, 'docs/')).toMatchObject({ file: { path: 'docs/index.html' } });
    expect(await resolveSiteFile(lookup, 'old/')).toMatchObject({ file: { path: 'old/index.htm' } });
  });

  it('redirects a directory asked without its slash, relative to the request, keeping the query', async () => {
    expect(await resolveSiteFile(lookup, 'docs')).toEqual({
      kind: 'redirect',
      status: 302,
      location: './docs/',
    });
    expect(await resolveSiteFile(lookup, 'old', { query: '?v=2' })).toEqual({
      kind: 'redirect',
      status: 302,
      location: './old/?v=2',
    });
    expect(await resolveSiteFile(lookup, 'café')).toMatchObject({ location: './caf%C3%A9/' });
    expect(await resolveSiteFile(lookup, 'a:b')).toMatchObject({ location: './a%3Ab/' });
  });

  it("answers a miss with the site's own 404.html and status 404", async () => {
    for (const p of ['missing.html', 'docs/missing', 'nope/', 'img/']) {
      expect(await resolveSiteFile(lookup, p)).toMatchObject({
        kind: 'not-found-page',
        status: 404,
        file: { path: '404.html' },
      });
    }
  });

  it('returns null when the site has no 404.html', async () => {
    const bare = site(['index.html']);
    expect(await resolveSiteFile(bare.lookup, 'missing')).toBeNull();
    expect(await resolveSiteFile(bare.lookup, 'sub/')).toBeNull();
  });

  it('falls back to the entry file at the root only', async () => {
    const home = site(['home.html', 'docs/page.html']);
    expect(await resolveSiteFile(home.lookup, '', { entryFile: 'home.html' })).toMatchObject({
      file: { path: 'home.html' },
    });
    expect(await resolveSiteFile(home.lookup, 'docs/', { entryFile: 'home.html' })).toBeNull();
    expect(await resolveSiteFile(home.lookup, '')).toBeNull();
  });

  it('works with a synchronous lookup', async () => {
    const files = new Map([
      ['x.css', { path: 'x.css', size: 1, mime_type: 'text/css', sha256: 'b'.repeat(64) }],
    ]);
    expect(await resolveSiteFile((p) => files.get(p), 'x.css')).toMatchObject({ kind: 'file' });
  });
});
