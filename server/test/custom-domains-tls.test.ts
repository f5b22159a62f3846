/**
 * Custom domains over HTTPS end to end (docs/deploy.md "Custom domains and HTTPS"): Caddy running
 * deploy/caddy/Caddyfile with on-demand TLS, asking SiteHall's /api/tls/ask; Pebble as the ACME
 * server; pebble-challtestsrv as the DNS that Pebble validates with and SiteHall checks TXT
 * records against. A verified domain gets a certificate chaining to Pebble's root and serves the
 * site; an unverified one gets no certificate; a removed one is no longer the site.
 * Needs the Debian packages caddy and pebble: skipped (loudly) without them, failed under CI=true.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, listenPort, liveProject, type TestApp, tempDir } from './helpers.js';
import { httpsGet, missingBinaries, startTlsStack, type TlsStack } from './support/tls-stack.js';

const ci = process.env.CI === 'true' || process.env.CI === '1';
if (missingBinaries.length > 0 && !ci)
  console.warn(
    `\n\n!!! SKIPPED custom-domains-tls.test.ts: ${missingBinaries.join(', ')} not installed` +
      ' (apt-get install caddy pebble; .ci/run installs them) !!!\n\n',
  );

describe.skipIf(missingBinaries.length > 0 && !ci)('custom domains through Caddy, Pebble and DNS', () => {
  let t: TestApp;
  let dir: string;
  let stack: Awaited<ReturnType<typeof startTlsStack>> | undefined;
  let tls: TlsStack;
  let root: string;
  let project: Awaited<ReturnType<typeof liveProject>>;

  beforeAll(async () => {
    if (missingBinaries.length > 0) throw new Error(`missing (CI=true): ${missingBinaries.join(', ')}`);
    dir = tempDir('sitehall-tls-');
    stack = await startTlsStack(dir);
    t = await createTestApp({
      sitesOrigin: 'https://sites.example.test',
      sitesSubdomains: true,
      trustProxy: true,
      dnsResolvers: [stack.dnsAddress],
      // The app's own address: custom domains are offered only with it.
      mail: {
        from: 'hall@example.test',
        publicUrl: 'https://hall.example.test',
        pollMs: 5_000,
        retryBaseMs: 30_000,
        maxAttempts: 8,
      },
    });
    tls = await stack.startCaddy(await listenPort(t));
    root = await tls.pebbleRoot();
    project = await liveProject(t);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const domains = (path = '') => `/api/projects/${project.id}/domains${path}`;

  async function addDomain(name: string): Promise<{ id: number; txt_name: string; txt_value: string }> {
    const res = await t.request({
      method: 'POST',
      url: domains(),
      token: project.owner.token,
      body: { domain: name },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.domain;
  }

  it('gives a verified domain a certificate from the ACME server and serves the site over HTTPS', async () => {
    const d = await addDomain('www.club-tls.test');
    await tls.setTxt(d.txt_name, d.txt_value);
    // SiteHall asks the same DNS Pebble validates with.
    const checked = await t.request({
      method: 'POST',
      url: domains(`/${d.id}/check`),
      token: project.owner.token,
    });
    expect(checked.statusCode, checked.body).toBe(200);
    expect(checked.json().data.domain.state).toBe('active');

    // The first handshake makes Caddy ask SiteHall, then get the certificate from Pebble.
    // Bounded below the test's own time, so a failure reports what Caddy, Pebble and the DNS said.
    const res = await httpsGet(tls.httpsPort, 'www.club-tls.test', '/', root, 150_000).catch(
      (err: unknown) => {
        throw new Error(`${String(err)}\n${tls.logs()}`);
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>你好</h1>');
    // Verified by Node against Pebble's root only (the request trusts nothing else).
    expect(res.peer.subjectaltname).toContain('DNS:www.club-tls.test');
    expect(res.peer.issuer.CN).toMatch(/Pebble/i);
  }, 240_000);

  it('gives an unverified domain no certificate', async () => {
    const d = await addDomain('pending.club-tls.test');
    // A record with the wrong value: SiteHall refuses it, so Caddy's ask is refused too.
    await tls.setTxt(d.txt_name, 'sitehall-verify=not-this-one');
    const checked = await t.request({
      method: 'POST',
      url: domains(`/${d.id}/check`),
      token: project.owner.token,
    });
    expect(checked.statusCode).toBe(400);
    await expect(httpsGet(tls.httpsPort, 'pending.club-tls.test', '/', root)).rejects.toThrow();
    await expect(httpsGet(tls.httpsPort, 'nobody.example.test', '/', root)).rejects.toThrow();
  });

  it('stops serving a removed domain', async () => {
    const list = await t.request({ url: domains(), token: project.owner.token });
    const d = list.json().data.domains.find((x: { domain: string }) => x.domain === 'www.club-tls.test');
    expect(d).toBeDefined();
    expect((await httpsGet(tls.httpsPort, 'www.club-tls.test', '/', root)).body).toContain('<h1>你好</h1>');
    const removed = await t.request({
      method: 'DELETE',
      url: domains(`/${d.id}`),
      token: project.owner.token,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    // Caddy still holds the certificate until it expires, but SiteHall no longer serves the site
    // under that name, and refuses Caddy a renewal.
    const after = await httpsGet(tls.httpsPort, 'www.club-tls.test', '/', root);
    expect(after.body).not.toContain('你好');
    expect((await t.request({ url: '/api/tls/ask?domain=www.club-tls.test' })).statusCode).toBe(404);
  });
});
