/**
 * The platform's own pages at a site address (docs/decisions/serving.md "Error pages at site
 * addresses"): a missing site and a preview link that opens nothing explain themselves in Chinese,
 * carry the platform's mark and lead back to the showcase at the app's address, with every site
 * header kept, no script, and nothing of the request written into them. On one host and on the
 * sites port (real ports: the server a request arrives on matters).
 */
import http from 'node:http';
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenSitesPort } from '../src/lifecycle.js';
import { SITE_SANDBOX_CSP } from '../src/serve/site-headers.js';
import { createTestApp, freePort, listenPort, rawRequest, type TestApp } from './helpers.js';
import { Wire } from './support/wire.js';

/** node:http with the Host given (fetch picks its own). */
function get(port: number, path: string, host: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', reject);
      req.end();
    },
  );
}

const back = (href: string) => `<a class="back" href="${href}">${messages.common.backToShowcase}</a>`;

function expectExplainingPage(body: string) {
  expect(body).toMatch(/^<!doctype html><html lang="zh-CN">/);
  expect(body).toContain('<svg');
  expect(body).toContain('站点展厅');
  expect(body).not.toMatch(/<script|<link|<img|<iframe|src=/i);
}

describe('error pages at site addresses, on one host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('a missing site is a 404 that explains, links to /public and keeps the sandbox headers', async () => {
    const res = await t.request({ url: '/sites/999999/' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expectExplainingPage(res.body);
    expect(res.body).toContain(messages.common.siteNotFound);
    expect(res.body).toContain(messages.common.siteNotFoundHint);
    expect(res.body).toContain(back('/public'));
  });

  it('writes nothing of the requested path into the page', async () => {
    const port = await listenPort(t);
    const probe = await rawRequest(port, '/sites/999999/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E');
    const named = await rawRequest(port, '/sites/evil-name/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    const plain = await rawRequest(port, '/sites/999999/');
    for (const res of [probe, named]) {
      expect(res.status).toBe(404);
      const body = res.body.toString();
      expect(body).not.toContain('alert(1)');
      expect(body).not.toContain('evil-name');
      // One page for every miss, whatever was asked.
      expect(body).toBe(plain.body.toString());
    }
  });

  it('an expired preview link is a 404 of its own that says so, private and sandboxed', async () => {
    const res = await t.request({ url: '/preview/AAAAAAAAAAAAAAAAAAAAAA/' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-robots-tag']).toMatch(/noindex/);
    expect(res.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expectExplainingPage(res.body);
    expect(res.body).toContain(messages.common.previewGoneTitle);
    expect(res.body).toContain(messages.common.previewGoneHint);
    expect(res.body).toContain(back('/public'));
  });
});

describe('error pages on the sites port', () => {
  let t: TestApp;
  let appPort: number;
  let sitesPort: number;
  beforeAll(async () => {
    appPort = await freePort();
    sitesPort = await freePort();
    t = await createTestApp({ port: appPort, sitesPort });
    await t.app.listen({ port: appPort, host: '127.0.0.1' });
    await listenSitesPort(t, t.config);
  });
  afterAll(() => t.close());

  it('a missing site and the sites port’s own root link to the showcase at the app’s port, by the name used', async () => {
    for (const path of ['/sites/999999/', '/', '/api/config']) {
      const res = await get(sitesPort, path, `127.0.0.1:${sitesPort}`);
      expect(res.status, path).toBe(404);
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
      expectExplainingPage(res.body);
      expect(res.body, path).toContain(messages.common.siteNotFound);
      expect(res.body, path).toContain(back(`http://127.0.0.1:${appPort}/public`));
    }
    // A site's own host under localhost leads to the app at localhost.
    const named = await get(sitesPort, '/', `no-such-site.localhost:${sitesPort}`);
    expect(named.status).toBe(404);
    expect(named.body).toContain(back(`http://localhost:${appPort}/public`));
  });

  it('a request the server refuses before reading it is the page too, not the API’s JSON', async () => {
    // Over 16 KB of headers besides Cookie (the app's own limit), and over the 1 MiB Node reads.
    const refused: Record<string, string>[] = [
      { 'x-pad': 'a'.repeat(17_000) },
      { cookie: 'a'.repeat(1_100_000) },
    ];
    for (const headers of refused) {
      const res = await rawRequest(sitesPort, '/sites/1/', { headers });
      const body = res.body.toString('utf8');
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe('sandbox');
      expect(res.headers['cache-control']).toBe('no-store');
      expectExplainingPage(body);
      expect(body).toContain(messages.common.headersTooLarge);
    }
    // A head Node can't parse at all: 400, as a page.
    const wire = await Wire.connect(sitesPort);
    wire.send('GET /sites/1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n');
    const bad = await wire.answer();
    wire.close();
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toBe('text/html; charset=utf-8');
    expectExplainingPage(bad.body.toString('utf8'));
    expect(bad.body.toString('utf8')).toContain(messages.common.badRequest);
    // A CONNECT (a proxy's tunnel): 405, as a page, and the port serves on.
    const tunnel = await Wire.connect(sitesPort);
    tunnel.send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const connect = await tunnel.answer();
    tunnel.close();
    expect(connect.status).toBe(405);
    expect(connect.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(connect.body.toString('utf8')).toContain(messages.common.methodNotAllowed);
    // No Host, and an Expect HTTP does not define: Node's own answers had no body.
    for (const [head, status, message] of [
      ['GET /sites/1/ HTTP/1.1\r\n\r\n', 400, messages.common.hostMissing],
      [
        `GET /sites/1/ HTTP/1.1\r\nHost: 127.0.0.1:${sitesPort}\r\nExpect: bogus\r\n\r\n`,
        417,
        messages.common.expectationFailed,
      ],
    ] as const) {
      const w = await Wire.connect(sitesPort);
      w.send(head);
      const answer = await w.answer();
      w.close();
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['content-security-policy']).toBe('sandbox');
      expectExplainingPage(answer.body.toString('utf8'));
      expect(answer.body.toString('utf8')).toContain(message);
    }
    expect((await get(sitesPort, '/sites/999999/', `127.0.0.1:${sitesPort}`)).status).toBe(404);
    // The app's port answers its API in the envelope, and a site's path there with the page.
    const api = await rawRequest(appPort, '/api/config', { headers: { 'x-pad': 'a'.repeat(17_000) } });
    expect(api.status).toBe(431);
    expect(JSON.parse(api.body.toString())).toEqual({
      success: false,
      message: messages.common.headersTooLarge,
    });
    const site = await rawRequest(appPort, '/sites/1/', { headers: { 'x-pad': 'a'.repeat(17_000) } });
    expect(site.status).toBe(431);
    expectExplainingPage(site.body.toString('utf8'));
  });

  it('an expired preview there keeps the sandbox and links back', async () => {
    const res = await get(sitesPort, '/preview/AAAAAAAAAAAAAAAAAAAAAA/', `localhost:${sitesPort}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body).toContain(messages.common.previewGone);
    expect(res.body).toContain(back(`http://localhost:${appPort}/public`));
  });
});

describe('error pages on a sites origin without PUBLIC_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ sitesOrigin: 'http://sites.test' });
  });
  afterAll(() => t.close());

  it('explain without a link: the app may be at any name (serve/site-hosts.spec.ts has PUBLIC_URL’s)', async () => {
    const res = await t.request({ url: '/sites/999999/', headers: { host: 'sites.test' } });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain(messages.common.siteNotFound);
    expect(res.body).not.toContain('class="back"');
  });
});
