/**
 * A site's cookies never lock anyone out of the app (docs/decisions/serving.md "Site cookies never lock
 * the app"): cookies ignore ports, so a browser that visited a live site on the sites port sends
 * that site's cookies to the app port too, up to a full jar (180 cookies of 4 KB, ~740 KB in one
 * header). Real ports, as the browser's requests arrive: the app and the sites port answer them,
 * and everything but Cookie is still held to 16 KB.
 */
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenSitesPort } from '../src/lifecycle.js';
import {
  ADMIN_PASSWORD,
  createTestApp,
  freePort,
  liveProject,
  rawRequest,
  SIMPLE_SITE,
  type TestApp,
} from './helpers.js';
import { Wire } from './support/wire.js';

/** What Chromium sends after a site filled its jar: 180 cookies, each name and value 4096 bytes. */
const FULL_JAR = Array.from(
  { length: 180 },
  (_, i) => `c${i}=${'x'.repeat(4096 - `c${i}=`.length + 1)}`,
).join('; ');

describe('a full cookie jar from a site', () => {
  let t: TestApp;
  let appPort: number;
  let sitesPort: number;
  let id: number;
  beforeAll(async () => {
    sitesPort = await freePort();
    t = await createTestApp({ sitesPort });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    appPort = (t.app.server.address() as import('node:net').AddressInfo).port;
    await listenSitesPort(t, t.config);
    ({ id } = await liveProject(t));
  });
  afterAll(() => t.close());

  it('is ignored by the app: sign-in, API calls and a takedown all work', async () => {
    expect(FULL_JAR.length).toBeGreaterThan(730_000);
    const cookie = { cookie: FULL_JAR };
    expect((await rawRequest(appPort, '/healthz', { headers: cookie })).status).toBe(200);
    expect((await rawRequest(appPort, '/api/projects/public', { headers: cookie })).status).toBe(200);
    const login = await rawJson(
      appPort,
      '/api/auth/login',
      {
        ...cookie,
        'content-type': 'application/json',
      },
      JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    );
    expect(login.status).toBe(200);
    const token = login.body.data.token as string;
    const auth = { ...cookie, authorization: `Bearer ${token}` };
    expect((await rawRequest(appPort, '/api/auth/profile', { headers: auth })).status).toBe(200);
    // The admin takes the site down with the same browser.
    const down = await rawJson(
      appPort,
      `/api/admin/projects/${id}/review`,
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ action: 'takedown', comment: '测试下架' }),
    );
    expect(down.status).toBe(200);
    expect((await rawRequest(sitesPort, `/sites/${id}/`, { headers: cookie })).status).toBe(404);
  });

  it('is accepted on the sites port too', async () => {
    const other = await liveProject(t);
    const res = await rawRequest(sitesPort, `/sites/${other.id}/`, { headers: { cookie: FULL_JAR } });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(SIMPLE_SITE[0]!.content);
  });

  it('leaves every other header held to 16 KB, and the URL too', async () => {
    for (const [path, headers] of [
      ['/api/projects/public', { 'x-pad': 'a'.repeat(17_000) }],
      [`/api/projects/public?q=${'a'.repeat(17_000)}`, {}],
      ['/api/projects/public', { 'x-pad': 'a'.repeat(17_000), cookie: 'a=b' }],
    ] as const) {
      for (const port of [appPort, sitesPort]) {
        const res = await rawRequest(port, path, { headers });
        expect(res.status).toBe(431);
        // The sites port answers with the platform's page (site-error-pages.test.ts), the app its API's envelope.
        if (port === appPort)
          expect(JSON.parse(res.body.toString())).toEqual({
            success: false,
            message: messages.common.headersTooLarge,
          });
        else expect(res.body.toString()).toContain(messages.common.headersTooLarge);
        expect(res.headers['content-security-policy']).toBe('sandbox');
      }
    }
    // Headers past the 2,000 Node keeps are not seen, so their size can't be counted: a head that
    // reaches the count is refused, the large header after 1,999 small ones included.
    const many = Array.from({ length: 1999 }, (_, i) => `x-${i}: a\r\n`).join('');
    for (const port of [appPort, sitesPort]) {
      const wire = await Wire.connect(port);
      wire.send(
        `GET /api/projects/public HTTP/1.1\r\nHost: 127.0.0.1\r\n${many}x-big: ${'b'.repeat(900_000)}\r\n\r\n`,
      );
      expect(`${port === appPort ? 'app' : 'sites'} ${(await wire.answer()).status}`).toBe(
        `${port === appPort ? 'app' : 'sites'} 431`,
      );
      wire.close();
    }
    // Past what any browser sends, Node's parser refuses it as before.
    const huge = await rawRequest(appPort, '/', { headers: { cookie: 'a'.repeat(1_100_000) } });
    expect(huge.status).toBe(431);
  });
});

async function rawJson(port: number, path: string, headers: Record<string, string>, body: string) {
  const http = await import('node:http');
  return new Promise<{ status: number; body: { data: Record<string, unknown> } }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
