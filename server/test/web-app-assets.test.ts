/**
 * The built web app's own files: compressed copies made at build time, long caching for hashed
 * assets, no-cache for index.html, and a 404 (not index.html) for a hashed asset that is gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, tempDir } from './helpers.js';

const SCRIPT = `export const greeting = ${JSON.stringify('你好，站点展厅 '.repeat(200))};\n`;
const HTML = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body>${'<p>站点展厅</p>'.repeat(100)}</body></html>`;

/** A build as web/vite.config.ts writes it: every text file with its .br and .gz copies. */
function writeBuild(dir: string): void {
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  const files: Record<string, string> = { 'index.html': HTML, 'assets/index-abc123.js': SCRIPT };
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    fs.writeFileSync(`${file}.br`, brotliCompressSync(text));
    fs.writeFileSync(`${file}.gz`, gzipSync(text));
  }
  // An asset without copies (too small to gain anything) is still sent, plain.
  fs.writeFileSync(path.join(dir, 'assets', 'tiny-def456.js'), 'export {};\n');
}

describe('web app files', () => {
  let t: TestApp;
  beforeAll(async () => {
    const webDist = path.join(tempDir('sitehall-web-'), 'dist');
    writeBuild(webDist);
    t = await createTestApp({ webDist });
  });
  afterAll(() => t.close());

  it('sends a hashed asset as brotli when the browser takes it, cached for a year as immutable', async () => {
    const res = await t.request({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(SCRIPT);
  });

  it('falls back to gzip, then to the plain file', async () => {
    const gz = await t.request({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const plain = await t.request({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const tiny = await t.request({
      url: '/assets/tiny-def456.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(tiny.statusCode).toBe(200);
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body).toBe('export {};\n');
  });

  it('sends index.html compressed and never cached without asking, for / and every client route', async () => {
    for (const url of ['/', '/public', '/admin/reviews?page=2']) {
      const res = await t.request({ url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toBe(HTML);
    }
  });

  it('answers 404 for a hashed asset that is not there (a tab opened before a redeploy)', async () => {
    const res = await t.request({
      url: '/assets/ShowcasePage-old999.js',
      headers: { 'accept-encoding': 'br' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).not.toMatch(/html/);
  });

  it('does not serve the compressed copies under their own names', async () => {
    const res = await t.request({ url: '/assets/index-abc123.js.br' });
    expect(res.statusCode).toBe(404);
  });
});
