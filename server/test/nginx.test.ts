/**
 * deploy/nginx/sitehall.conf, the file docs/deploy.md installs, run by Debian's nginx (TLS with a
 * self-signed certificate, HTTP/1.1 clients) in front of two SiteHall instances in processes of
 * their own on one database (the SQLite file in WAL mode, or a PostgreSQL schema) and one data
 * folder, with a sites domain and per-project subdomains. Checks the web app, the API, an upload,
 * a site on its subdomain, the forwarded client address, and that both instances took requests.
 * Under CI=true a missing nginx fails instead of skipping.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  makeCertificate,
  NGINX,
  renderSitehallConf,
  startNginx,
} from '../../scripts/nginx-local.mjs';
import {
  auditEntries,
  createTestApp,
  makeZip,
  multipart,
  rawRequest,
  type TestApp,
  tempDir,
} from './helpers.js';
import { type ChildServer, startChildServer } from './support/children.js';
import { viaNginx } from './support/nginx.js';

const ci = process.env.CI === 'true' || process.env.CI === '1';

describe.skipIf(!NGINX && !ci)('two instances behind nginx with deploy/nginx/sitehall.conf', () => {
  let t: TestApp;
  let work: string;
  let ca: string;
  let httpsPort: number;
  let httpPort: number;
  const instances: ChildServer[] = [];
  let nginx: { stop(): Promise<void> } | undefined;

  /** A request to nginx's TLS port as a browser visiting `host` sends it. */
  const request = (host: string, urlPath: string, opts: Parameters<typeof viaNginx>[3] = {}) =>
    viaNginx({ port: httpsPort, ca }, host, urlPath, opts);

  beforeAll(async () => {
    if (!NGINX) throw new Error('nginx is missing (CI=true): apt-get install nginx-light');
    // The reference app makes the database, migrates it and creates the admin; then two instances
    // of their own serve it (the reference app is not behind nginx).
    t = await createTestApp();
    work = tempDir('sitehall-nginx-');
    const webDist = path.join(work, 'web');
    fs.mkdirSync(path.join(webDist, 'assets'), { recursive: true });
    fs.writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><title>站点展厅</title><div id="root"></div>',
    );
    fs.writeFileSync(path.join(webDist, 'assets', 'app-1234.js'), 'console.log("app")');
    const env = {
      WEB_DIST: webDist,
      SITES_ORIGIN: 'https://sites.example.com',
      SITES_SUBDOMAINS: 'true',
      TRUST_PROXY: 'true',
    };
    for (let i = 0; i < 2; i++) {
      instances.push(await startChildServer({ dataDir: t.dataDir, database: t.config.database, env }));
    }
    httpsPort = await freePort();
    httpPort = await freePort();
    const { cert, key } = makeCertificate(work);
    ca = fs.readFileSync(cert, 'utf8');
    const conf = renderSitehallConf({
      httpPort,
      httpsPort,
      upstreamPorts: instances.map((s) => s.port),
      cert,
      key,
      dir: work,
    });
    nginx = await startNginx({ dir: work, conf, httpPort });
  });

  afterAll(async () => {
    await nginx?.stop();
    for (const s of instances) await s.stop();
    await t?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('redirects plain HTTP to HTTPS', async () => {
    const res = await rawRequest(httpPort, '/login', { headers: { host: 'app.example.com' } });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('https://app.example.com/login');
  });

  it('serves the web app, the API, an upload and the site on its own subdomain', async () => {
    const page = await request('app.example.com', '/dashboard');
    expect(page.status).toBe(200);
    // Once, from nginx (the instance's own is hidden), never a doubled header.
    expect(page.headers['strict-transport-security']).toBe('max-age=15552000');
    expect(page.body.toString()).toContain('<title>站点展厅</title>');
    expect((await request('app.example.com', '/assets/app-1234.js')).status).toBe(200);

    const ready = await request('app.example.com', '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body.toString()).status).toBe('ok');

    const owner = await t.createUser();
    const login = await request('app.example.com', '/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ username: owner.username, password: owner.password })),
    });
    expect(login.status).toBe(200);
    const token = JSON.parse(login.body.toString()).data.token as string;

    // A zip of about 2 MB, over the 1 MB nginx allows other requests: streamed through.
    const big = Buffer.from(randomBytes(1536 * 1024).toString('hex'));
    const zip = await makeZip({
      'index.html': '<!doctype html><h1>经由 nginx</h1><script src="app.js"></script>',
      'app.js': 'console.log(1)',
      'data.txt': big,
    });
    const { payload, headers } = await multipart({ project_name: '代理上传' }, [
      { name: 'site.zip', content: zip },
    ]);
    expect(payload.length).toBeGreaterThan(1024 * 1024);
    const upload = await request('app.example.com', '/api/projects/upload', {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}`, 'content-length': String(payload.length) },
      body: payload,
    });
    expect(upload.status).toBe(201);
    const id = JSON.parse(upload.body.toString()).data.project.id as number;

    const admin = await request('app.example.com', `/api/admin/projects/${id}/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await t.adminToken()}` },
      body: Buffer.from(JSON.stringify({ action: 'approve' })),
    });
    expect(admin.status).toBe(200);

    // The app host sends visitors to the project's own host, which serves the site at its root.
    const moved = await request('app.example.com', `/sites/${id}/`);
    expect(moved.status).toBeGreaterThanOrEqual(301);
    expect(moved.status).toBeLessThanOrEqual(308);
    expect(moved.headers.location).toBe(`https://p${id}.sites.example.com/`);
    const site = await request(`p${id}.sites.example.com`, '/');
    expect(site.status).toBe(200);
    expect(site.body.toString()).toContain('经由 nginx');
    expect(site.headers['strict-transport-security']).toBe('max-age=15552000');
    const data = await request(`p${id}.sites.example.com`, '/data.txt');
    expect(data.status).toBe(200);
    expect(data.body.equals(big)).toBe(true);

    // The sites domain serves no part of the platform.
    expect((await request('sites.example.com', '/api/config')).status).toBe(404);
    // Metrics never leave through the public entrance.
    expect((await request('app.example.com', '/metrics')).status).toBe(404);
  }, 300_000);

  it('passes the client address it saw, not one the client made up', async () => {
    const res = await request('app.example.com', '/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: Buffer.from(JSON.stringify({ username: 'nobody_here', password: 'wrong-password' })),
    });
    expect(res.status).toBe(401);
    const failed = await auditEntries(t, { action: 'auth.login_failed' });
    expect(failed.at(-1)?.ip).toBe('127.0.0.1');
  });

  it('takes a cookie jar a site filled (~740 KB) on every host, not a 400', async () => {
    const jar = Array.from({ length: 180 }, (_, i) => `c${i}=${'x'.repeat(4090)}`).join('; ');
    const cookie = { cookie: jar };
    expect((await request('app.example.com', '/', { headers: cookie })).status).toBe(200);
    expect((await request('app.example.com', '/api/projects/public', { headers: cookie })).status).toBe(200);
    // SiteHall's own 404 for a site that does not exist, not nginx's 400.
    const site = await request('p999999.sites.example.com', '/', { headers: cookie });
    expect(site.status).toBe(404);
    expect(site.body.toString()).not.toContain('nginx');
  });

  it('spreads requests over both instances', async () => {
    for (let i = 0; i < 6; i++) expect((await request('app.example.com', '/healthz')).status).toBe(200);
    const log = fs.readFileSync(path.join(work, 'access.log'), 'utf8');
    for (const s of instances) expect(log).toContain(`upstream=127.0.0.1:${s.port}`);
  });
});
