/**
 * Strict-Transport-Security: sent when the request came over TLS (here: X-Forwarded-Proto with
 * TRUST_PROXY, as behind the nginx of docs/deploy.md), never over plain HTTP, configurable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import {
  createTestApp,
  listenPort,
  liveProject,
  rawRequest,
  type TestApp,
  uploadProject,
} from './helpers.js';

const HSTS = 'strict-transport-security';

describe('HSTS behind a TLS proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  let siteId: number;
  beforeAll(async () => {
    t = await createTestApp({ trustProxy: true });
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, {
      files: [{ name: 'index.html', content: '<h1>hi</h1>' }],
    });
    siteId = up.json().data.project.id;
    await t.request({
      method: 'POST',
      url: `/api/admin/projects/${siteId}/review`,
      token: await t.adminToken(),
      body: { action: 'approve' },
    });
  });
  afterAll(() => t.close());

  it('is sent on the app’s answers that came over https, for 180 days by default', async () => {
    for (const url of ['/api/config/public', '/login', '/api/no-such-thing']) {
      const res = await t.request({ url, headers: { 'x-forwarded-proto': 'https' } });
      expect(res.headers[HSTS], url).toBe('max-age=15552000');
    }
  });

  it('is not sent over plain HTTP', async () => {
    expect((await t.request({ url: '/api/config/public' })).headers[HSTS]).toBeUndefined();
    const res = await t.request({ url: '/api/config/public', headers: { 'x-forwarded-proto': 'http' } });
    expect(res.headers[HSTS]).toBeUndefined();
  });

  it('is left to the app’s pages for sites on the same host', async () => {
    const res = await t.request({ url: `/sites/${siteId}/`, headers: { 'x-forwarded-proto': 'https' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers[HSTS]).toBeUndefined();
  });
});

describe('HSTS on an https sites origin', () => {
  it('is on every site answer of the sites host, the fast path’s and the route’s alike', async () => {
    const t = await createTestApp({ sitesOrigin: 'https://sites.test', sitesSubdomains: false });
    try {
      const { id } = await liveProject(t);
      const port = await listenPort(t);
      const served = t.fastPath!.served;
      const headers = { host: 'sites.test' };
      // The first answer reads the file into memory (the route); the next ones are the fast path's.
      for (const url of [`/sites/${id}/`, `/sites/${id}/`, `/sites/${id}/nope`, `/sites/${id}`]) {
        const res = await rawRequest(port, url, { headers });
        expect(res.headers[HSTS], url).toBe('max-age=15552000');
      }
      expect(t.fastPath!.served).toBeGreaterThan(served);
    } finally {
      await t.close();
    }
  });
});

describe('HSTS configuration', () => {
  it('reads HSTS_MAX_AGE and HSTS_SUBDOMAINS, and refuses a bad value', () => {
    expect(loadConfig({}).hsts).toEqual({ maxAge: 15_552_000, includeSubDomains: false });
    expect(loadConfig({ HSTS_MAX_AGE: '0' }).hsts.maxAge).toBe(0);
    expect(loadConfig({ HSTS_MAX_AGE: '31536000', HSTS_SUBDOMAINS: 'true' }).hsts).toEqual({
      maxAge: 31_536_000,
      includeSubDomains: true,
    });
    expect(() => loadConfig({ HSTS_MAX_AGE: '-1' })).toThrow(/HSTS_MAX_AGE/);
    expect(() => loadConfig({ HSTS_MAX_AGE: 'forever' })).toThrow(/HSTS_MAX_AGE/);
  });

  it('is off with HSTS_MAX_AGE=0, and says includeSubDomains when asked', async () => {
    const off = await createTestApp({ trustProxy: true, hsts: { maxAge: 0, includeSubDomains: false } });
    const sub = await createTestApp({ trustProxy: true, hsts: { maxAge: 600, includeSubDomains: true } });
    try {
      const req = { url: '/api/config/public', headers: { 'x-forwarded-proto': 'https' } };
      expect((await off.request(req)).headers[HSTS]).toBeUndefined();
      expect((await sub.request(req)).headers[HSTS]).toBe('max-age=600; includeSubDomains');
    } finally {
      await off.close();
      await sub.close();
    }
  });

  it('is not fooled by X-Forwarded-Proto without TRUST_PROXY', async () => {
    const t = await createTestApp();
    try {
      const res = await t.request({ url: '/api/config/public', headers: { 'x-forwarded-proto': 'https' } });
      expect(res.headers[HSTS]).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
