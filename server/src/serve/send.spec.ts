/**
 * Site serving over HTTP: a small Fastify app wires the serve/ pieces the way the sites and preview
 * routes do, on files put in a LocalBlobStore in a temp folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../storage/index.js';
import { resolveSiteFile, type SiteFile } from './resolve.js';
import { sendSiteFile, sendSiteRedirect } from './send.js';
import { SiteFileSource, type SiteFileSourceOptions } from './site-file-source.js';
import { registerSiteSecurityHeaders, SITE_SANDBOX_CSP, siteHeadersForUrl } from './site-headers.js';
import { decodeSitePath, splitSiteUrl } from './site-path.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const LAST_MODIFIED = new Date('2025-03-04T05:06:07Z');

interface Harness {
  app: FastifyInstance;
  store: LocalBlobStore;
  source: SiteFileSource;
  files: Map<string, SiteFile>;
  putVariantCalls: string[];
  add(filePath: string, content: Buffer | string, mime: string): Promise<SiteFile>;
}

let dir: string;
let h: Harness;

async function harness(sourceOpts: SiteFileSourceOptions = {}): Promise<Harness> {
  const store = LocalBlobStore.inDataDir(dir, { durable: false });
  const putVariantCalls: string[] = [];
  const putVariant = store.putVariant.bind(store);
  store.putVariant = (hash, variant, source) => {
    putVariantCalls.push(`${hash}:${variant}`);
    return putVariant(hash, variant, source);
  };
  const source = new SiteFileSource(store, sourceOpts);
  const files = new Map<string, SiteFile>();

  // Responses to URLs the router cannot decode skip every hook: frameworkErrors adds the headers.
  const app = Fastify({
    frameworkErrors: (error, request, reply: FastifyReply) => {
      reply.headers(siteHeadersForUrl(request.url, 'sandboxed') ?? {});
      reply.code(400).type('text/plain; charset=utf-8').send(error.message);
    },
  });
  registerSiteSecurityHeaders(app, 'sandboxed');
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = splitSiteUrl(request.url);
    if (!url) return reply.code(404).send('页面不存在');
    if (url.rawPath === null) return sendSiteRedirect(reply, `/${url.area}/${url.key}/${url.query}`);
    const sitePath = decodeSitePath(url.rawPath);
    if (sitePath === null) return reply.code(400).type('text/plain; charset=utf-8').send('路径无效');
    const found = await resolveSiteFile((p) => files.get(p), sitePath, { query: url.query });
    if (!found) return reply.code(404).type('text/plain; charset=utf-8').send('页面不存在');
    if (found.kind === 'redirect') return sendSiteRedirect(reply, found.location);
    const preview = url.area === 'preview';
    return sendSiteFile(request, reply, found.file, {
      source,
      status: found.status,
      lastModified: LAST_MODIFIED,
      cacheControl: preview ? 'private, no-store' : undefined,
    });
  };
  // GET with Fastify's automatic HEAD route for /sites, an explicit GET+HEAD route for /preview.
  app.get('/sites/:id', serve);
  app.get('/sites/:id/*', serve);
  app.route({ method: ['GET', 'HEAD'], url: '/preview/:token/*', handler: serve });
  app.post('/sites/:id/*', (_request, reply) => reply.code(405).send('方法不允许'));

  const add = async (filePath: string, content: Buffer | string, mime: string) => {
    const { sha256, size } = await store.put(Readable.from([Buffer.from(content)]));
    const file = { path: filePath, size, mime_type: mime, sha256 };
    files.set(filePath, file);
    return file;
  };
  return { app, store, source, files, putVariantCalls, add };
}

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sitehall-serve-'));
  h = await harness();
});
/** Replaces the harness with one whose source has other limits. */
async function rebuild(sourceOpts: SiteFileSourceOptions): Promise<void> {
  await h.app.close();
  h = await harness(sourceOpts);
}

afterEach(async () => {
  await h.app.close();
  await h.source.idle();
  await fs.rm(dir, { recursive: true, force: true });
});

const html = `<!doctype html><html><body>${'<p>你好，展厅</p>'.repeat(200)}</body></html>`;
const css = `body { color: #333; }\n${'.card { margin: 0 auto; padding: 8px; }\n'.repeat(100)}`;

function get(url: string, headers: Record<string, string> = {}) {
  return h.app.inject({ method: 'GET', url, headers });
}

describe('content types and disposition', () => {
  it('sends the stored type and downloads non-web files', async () => {
    await h.add('index.html', html, 'text/html; charset=utf-8');
    await h.add('gbk.html', Buffer.from([0xc4, 0xe3, 0xba, 0xc3]), 'text/html');
    await h.add('app.js', 'console.log(1)', 'text/javascript; charset=utf-8');
    await h.add('logo.png', randomBytes(300), 'image/png');
    await h.add('data.json', '{"a":1}', 'application/json; charset=utf-8');
    await h.add('README.md', '# 说明', 'text/markdown; charset=utf-8');
    await h.add('blob.bin', randomBytes(10), 'application/octet-stream');

    const cases: Array<[string, string, boolean]> = [
      ['/sites/1/', 'text/html; charset=utf-8', false],
      ['/sites/1/gbk.html', 'text/html', false],
      ['/sites/1/app.js', 'text/javascript; charset=utf-8', false],
      ['/sites/1/logo.png', 'image/png', false],
      ['/sites/1/data.json', 'application/json; charset=utf-8', false],
      ['/sites/1/README.md', 'text/markdown; charset=utf-8', true],
      ['/sites/1/blob.bin', 'application/octet-stream', true],
    ];
    for (const [url, type, attachment] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe(type);
      if (attachment) expect(res.headers['content-disposition'], url).toMatch(/^attachment; filename=/);
      else expect(res.headers['content-disposition'], url).toBeUndefined();
    }
  });

  it('caches HTML by revalidation, assets briefly, previews not at all', async () => {
    await h.add('index.html', html, 'text/html');
    await h.add('style.css', css, 'text/css');
    expect((await get('/sites/1/')).headers['cache-control']).toBe('no-cache');
    expect((await get('/sites/1/style.css')).headers['cache-control']).toBe('public, max-age=300');
    expect((await get('/preview/tok/style.css')).headers['cache-control']).toBe('private, no-store');
    expect((await get('/sites/1/style.css')).headers['last-modified']).toBe(LAST_MODIFIED.toUTCString());
  });

  it('finds an NFC-stored name asked in NFD, and redirects a directory to its slash', async () => {
    await h.add('café.html', 'ok', 'text/html');
    await h.add('docs/index.html', 'docs', 'text/html');
    expect((await get('/sites/1/cafe%CC%81.html')).body).toBe('ok');
    const redirect = await get('/sites/1/docs?x=1');
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('./docs/?x=1');
    expect((await get('/sites/1/docs/')).body).toBe('docs');
  });

  it("sends the site's 404.html with status 404 and no validators", async () => {
    await h.add('404.html', '<h1>找不到</h1>', 'text/html');
    const res = await get('/sites/1/missing', { 'if-none-match': '*' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('<h1>找不到</h1>');
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['accept-ranges']).toBeUndefined();
  });
});

describe('validators', () => {
  it('answers a matching If-None-Match (exact, listed, weak) and If-Modified-Since with 304', async () => {
    const file = await h.add('logo.png', randomBytes(2000), 'image/png');
    const res = await get('/sites/1/logo.png');
    const etag = res.headers.etag as string;
    expect(etag).toBe(`"${file.sha256.slice(0, 32)}"`);
    for (const inm of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const again = await get('/sites/1/logo.png', { 'if-none-match': inm });
      expect(again.statusCode, inm).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe('public, max-age=300');
      expect(again.headers['content-length']).toBeUndefined();
    }
    expect((await get('/sites/1/logo.png', { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    const since = { 'if-modified-since': LAST_MODIFIED.toUTCString() };
    expect((await get('/sites/1/logo.png', since)).statusCode).toBe(304);
    expect((await get('/sites/1/logo.png', { ...since, 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('gives each encoding its own ETag', async () => {
    await h.add('style.css', css, 'text/css');
    const plain = await get('/sites/1/style.css');
    const br = await get('/sites/1/style.css', { 'accept-encoding': 'br' });
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    expect(br.headers.etag).toMatch(/-br"$/);
    const revalidated = await get('/sites/1/style.css', {
      'accept-encoding': 'br',
      'if-none-match': br.headers.etag as string,
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.headers.vary).toBe('Accept-Encoding');
  });
});

describe('byte ranges', () => {
  const content = Buffer.from('0123456789abcdefghij');
  beforeEach(async () => {
    await h.add('clip.mp4', content, 'video/mp4');
  });

  it('sends single ranges with 206: first byte, last byte, middle, open and suffix', async () => {
    const cases: Array<[string, string, string]> = [
      ['bytes=0-0', '0', 'bytes 0-0/20'],
      ['bytes=19-19', 'j', 'bytes 19-19/20'],
      ['bytes=5-9', '56789', 'bytes 5-9/20'],
      ['bytes=15-', 'fghij', 'bytes 15-19/20'],
      ['bytes=-3', 'hij', 'bytes 17-19/20'],
      ['bytes=18-99', 'ij', 'bytes 18-19/20'],
    ];
    for (const [range, body, contentRange] of cases) {
      const res = await get('/sites/1/clip.mp4', { range });
      expect(res.statusCode, range).toBe(206);
      expect(res.body, range).toBe(body);
      expect(res.headers['content-range'], range).toBe(contentRange);
      expect(res.headers['content-length'], range).toBe(String(body.length));
    }
  });

  it('answers an unsatisfiable range with 416 and the size', async () => {
    const res = await get('/sites/1/clip.mp4', { range: 'bytes=20-30' });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */20');
    expect(res.body).toBe('');
  });

  it('sends the whole file for several ranges or a malformed one, never multipart', async () => {
    for (const range of ['bytes=0-1,4-5', 'bytes=5-2', 'lines=1-2']) {
      const res = await get('/sites/1/clip.mp4', { range });
      expect(res.statusCode, range).toBe(200);
      expect(res.body).toBe(content.toString());
      expect(res.headers['content-type']).toBe('video/mp4');
    }
  });

  it('honours If-Range: current validator → 206, stale → 200', async () => {
    const etag = (await get('/sites/1/clip.mp4')).headers.etag as string;
    expect((await get('/sites/1/clip.mp4', { range: 'bytes=0-1', 'if-range': etag })).statusCode).toBe(206);
    expect((await get('/sites/1/clip.mp4', { range: 'bytes=0-1', 'if-range': '"old"' })).statusCode).toBe(
      200,
    );
  });

  it('serves ranges of compressible files uncompressed', async () => {
    await h.add('style.css', css, 'text/css');
    const res = await get('/sites/1/style.css', { range: 'bytes=0-3', 'accept-encoding': 'br, gzip' });
    expect(res.statusCode).toBe(206);
    expect(res.body).toBe('body');
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});

describe('HEAD', () => {
  it('sends the GET headers with the real length and no body, on automatic and explicit HEAD routes', async () => {
    await h.add('clip.mp4', randomBytes(5000), 'video/mp4');
    for (const url of ['/sites/1/clip.mp4', '/preview/tok/clip.mp4']) {
      const res = await h.app.inject({ method: 'HEAD', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-length'], url).toBe('5000');
      expect(res.headers.etag, url).toBeDefined();
      expect(res.body, url).toBe('');
    }
  });

  it('reports the compressed length when it would compress', async () => {
    await h.add('style.css', css, 'text/css');
    const full = await h.app.inject({
      method: 'GET',
      url: '/sites/1/style.css',
      headers: { 'accept-encoding': 'br' },
    });
    const head = await h.app.inject({
      method: 'HEAD',
      url: '/sites/1/style.css',
      headers: { 'accept-encoding': 'br' },
    });
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.headers['content-length']).toBe(String(full.rawPayload.length));
  });
});

describe('compression', () => {
  it('sends br and gzip that decompress to the original, with Vary', async () => {
    await h.add('index.html', html, 'text/html');
    const br = await get('/sites/1/', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
    expect(br.rawPayload.length).toBeLessThan(Buffer.byteLength(html));
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(html);

    const gz = await get('/sites/1/', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(html);

    const plain = await get('/sites/1/', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(html);
    expect(plain.headers.vary).toBe('Accept-Encoding');
  });

  it('compresses each blob once per encoding, however often and concurrently it is asked', async () => {
    const file = await h.add('style.css', css, 'text/css');
    const asks = Array.from({ length: 8 }, () => get('/sites/1/style.css', { 'accept-encoding': 'br' }));
    for (const res of await Promise.all(asks)) {
      expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(css);
    }
    for (let i = 0; i < 3; i++) await get('/sites/1/style.css', { 'accept-encoding': 'gzip, br' });
    expect(h.putVariantCalls).toEqual([`${file.sha256}:br`]);
    await get('/sites/1/style.css', { 'accept-encoding': 'gzip' });
    await get('/sites/1/style.css', { 'accept-encoding': 'gzip' });
    expect(h.putVariantCalls).toEqual([`${file.sha256}:br`, `${file.sha256}:gz`]);
    expect(await h.store.statVariant(file.sha256, 'br')).not.toBeNull();

    // A fresh source (a restarted server) finds the stored variants instead of compressing again.
    const restarted = await harness();
    restarted.files.set('style.css', file);
    const res = await restarted.app.inject({
      url: '/sites/1/style.css',
      headers: { 'accept-encoding': 'br' },
    });
    expect(res.headers['content-encoding']).toBe('br');
    expect(restarted.putVariantCalls).toEqual([]);
    await restarted.app.close();
  });

  it('leaves small files, images and other binaries alone', async () => {
    await h.add('tiny.css', 'a{}', 'text/css');
    await h.add('photo.png', Buffer.alloc(5000, 1), 'image/png');
    for (const url of ['/sites/1/tiny.css', '/sites/1/photo.png']) {
      const res = await get(url, { 'accept-encoding': 'br, gzip' });
      expect(res.headers['content-encoding'], url).toBeUndefined();
      expect(res.headers.vary, url).toBeUndefined();
    }
    expect(h.putVariantCalls).toEqual([]);
  });

  it('serves a large text file plain while it is compressed in the background, then compressed', async () => {
    await rebuild({ compressWhileWaitingUpTo: 64 * 1024, maxMemoryFileBytes: 64 * 1024 });
    const big = 'const data = ['.concat('"展厅", 12345, '.repeat(40_000), '];');
    await h.add('big.js', big, 'text/javascript');
    const first = await get('/sites/1/big.js', { 'accept-encoding': 'br' });
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(first.body).toBe(big);
    await h.source.idle();
    const second = await get('/sites/1/big.js', { 'accept-encoding': 'br' });
    expect(second.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(second.rawPayload).toString()).toBe(big);
    expect(h.putVariantCalls).toHaveLength(1);
  });
});

describe('memory cache and large files', () => {
  it('keeps hot small bodies in memory, within its byte bound', async () => {
    await rebuild({ memoryBytes: 10_000, maxMemoryFileBytes: 4000 });
    const small: SiteFile[] = [];
    for (let i = 0; i < 8; i++) small.push(await h.add(`f${i}.png`, randomBytes(3000), 'image/png'));
    await h.add('large.png', randomBytes(6000), 'image/png');
    for (let i = 0; i < 8; i++) {
      expect((await get(`/sites/1/f${i}.png`)).statusCode).toBe(200);
      expect(h.source.memory.bytes).toBeLessThanOrEqual(10_000);
    }
    expect(h.source.memory.size).toBe(3);
    await get('/sites/1/large.png');
    expect(h.source.memory.bytes).toBeLessThanOrEqual(10_000);

    // The most recent bodies answer from memory even with their blobs gone from the store.
    await h.store.delete(small[7]!.sha256);
    const cached = await get('/sites/1/f7.png');
    expect(cached.statusCode).toBe(200);
    expect(sha(cached.rawPayload)).toBe(small[7]!.sha256);
  });

  it('streams a large file intact, whole and in ranges', async () => {
    const content = randomBytes(5 * 1024 * 1024);
    const file = await h.add('video.mp4', content, 'video/mp4');
    const whole = await get('/sites/1/video.mp4');
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-length']).toBe(String(content.length));
    expect(sha(whole.rawPayload)).toBe(file.sha256);
    expect(h.source.memory.size).toBe(0);

    const part = await get('/sites/1/video.mp4', { range: 'bytes=1000000-2999999' });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(content.subarray(1_000_000, 3_000_000))).toBe(true);
  });

  it('fails cleanly when a blob is missing from the store', async () => {
    const file = await h.add('video.mp4', randomBytes(2 * 1024 * 1024), 'video/mp4');
    await h.store.delete(file.sha256);
    const res = await get('/sites/1/video.mp4');
    expect(res.statusCode).toBe(500);
    expect(res.headers['cache-control']).toBeUndefined();
    expect(res.headers.etag).toBeUndefined();
  });
});

describe('site security headers', () => {
  function expectSandboxed(res: { headers: Record<string, unknown> }, label: string, preview = false) {
    expect(res.headers['content-security-policy'], label).toBe(SITE_SANDBOX_CSP);
    expect(res.headers['x-content-type-options'], label).toBe('nosniff');
    expect(res.headers['access-control-allow-origin'], label).toBe('*');
    expect(res.headers['referrer-policy'], label).toBe(preview ? 'no-referrer' : undefined);
  }

  it('are on every response: every status and method', async () => {
    await h.add('index.html', html, 'text/html');
    await h.add('docs/index.html', 'docs', 'text/html');
    await h.add('clip.mp4', randomBytes(100), 'video/mp4');
    const etag = (await get('/sites/1/clip.mp4')).headers.etag as string;
    const cases: Array<
      [string, { method?: 'GET' | 'HEAD' | 'POST'; url: string; headers?: Record<string, string> }, number]
    > = [
      ['200', { url: '/sites/1/' }, 200],
      ['206', { url: '/sites/1/clip.mp4', headers: { range: 'bytes=0-9' } }, 206],
      ['304', { url: '/sites/1/clip.mp4', headers: { 'if-none-match': etag } }, 304],
      ['416', { url: '/sites/1/clip.mp4', headers: { range: 'bytes=500-' } }, 416],
      ['302 directory', { url: '/sites/1/docs' }, 302],
      ['302 root', { url: '/sites/1' }, 302],
      ['404 plain', { url: '/sites/1/missing.html' }, 404],
      ['400 bad path', { url: '/sites/1/a%00b' }, 400],
      ['HEAD', { method: 'HEAD', url: '/sites/1/' }, 200],
      ['POST', { method: 'POST', url: '/sites/1/', headers: { 'content-type': 'text/plain' } }, 405],
    ];
    for (const [label, request, status] of cases) {
      const res = await h.app.inject(request);
      expect(res.statusCode, label).toBe(status);
      expectSandboxed(res, label);
    }
    const preview = await get('/preview/tok/missing');
    expect(preview.statusCode).toBe(404);
    expectSandboxed(preview, 'preview 404', true);
    expectSandboxed(await get('/preview/tok/'), 'preview 200', true);
  });

  it('refuses traversal spellings sent raw on the wire', async () => {
    await h.add('index.html', html, 'text/html');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as net.AddressInfo;
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        });
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk.toString('latin1');
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    for (const target of [
      '/sites/1/../../etc/passwd',
      '/sites/1/%2e%2e/%2e%2e/etc/passwd',
      '/sites/1/%2E%2e/index.html',
      '/sites/1/..%2f..%2fetc',
      '/sites/1/%c0%ae%c0%ae/index.html',
      '/sites/1/..%5cindex.html',
      '/sites/1/index.html%00.png',
    ]) {
      const response = await raw(target);
      expect(response, target).toMatch(/^HTTP\/1\.1 (400|404) /);
      expect(response, target).toContain(`content-security-policy: ${SITE_SANDBOX_CSP}`);
    }
  });
});
