/**
 * SITES_ORIGIN: sites on a host of their own (optionally p{id}.host per project). There they are
 * served without the sandbox; the app host only redirects to them; the sites host serves nothing
 * of the app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_SANDBOX_CSP } from '../src/serve/site-headers.js';
import { createTestApp, liveProject, SIMPLE_SITE, type TestApp, uploadProject } from './helpers.js';

const APP = 'app.test';
const SITES = 'sites.test:8081';
const SITES_ORIGIN = `http://${SITES}`;

function get(t: TestApp, host: string, url: string, method = 'GET') {
  return t.request({ method, url, headers: { host } });
}

/** The sites host answers nothing of the platform: same 404, no JSON, no app page. */
async function expectNothingOfTheApp(t: TestApp, host: string) {
  for (const url of [
    '/',
    '/login',
    '/public',
    '/api/projects/public',
    '/api/auth/profile',
    '/api/admin/config',
    '/healthz',
    '/assets/index.js',
  ]) {
    const res = await get(t, host, url);
    expect(res.statusCode, url).toBe(404);
    expect(res.headers['content-type'], url).toMatch(/^text\/html/);
    expect(res.body, url).not.toContain('success');
  }
  const post = await t.request({
    method: 'POST',
    url: '/api/auth/login',
    headers: { host },
    body: { username: 'admin', password: 'x' },
  });
  expect(post.statusCode).toBe(404);
}

describe('SITES_ORIGIN, one host for all sites', () => {
  let t: TestApp;
  let id: number;
  beforeAll(async () => {
    t = await createTestApp({ sitesOrigin: SITES_ORIGIN, sitesSubdomains: false });
    ({ id } = await liveProject(t));
  });
  afterAll(() => t.close());

  it('serves sites on the sites host without the sandbox, still nosniff', async () => {
    const res = await get(t, SITES, `/sites/${id}/`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(SIMPLE_SITE[0]!.content);
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const miss = await get(t, SITES, `/sites/${id}/nope`);
    expect(miss.statusCode).toBe(404);
    expect(miss.headers['content-security-policy']).toBeUndefined();
  });

  it('redirects /sites and /preview on the app host to the sites origin', async () => {
    for (const url of [
      `/sites/${id}/`,
      `/sites/${id}/css/style.css?v=2`,
      `/sites/${id}`,
      '/preview/sometoken/a.html',
    ]) {
      const res = await get(t, APP, url);
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location, url).toBe(`${SITES_ORIGIN}${url}`);
      // Even the redirect is not the app's page.
      expect(res.headers['x-frame-options']).toBeUndefined();
    }
  });

  it('the sites host serves nothing of the app', async () => {
    await expectNothingOfTheApp(t, SITES);
  });

  it('the app host still serves the app, and hands out sites-origin addresses', async () => {
    const list = await get(t, APP, '/api/projects/public');
    expect(list.statusCode).toBe(200);
    const card = list.json().data.projects.find((p: { id: number }) => p.id === id);
    expect(card.access_url).toBe(`${SITES_ORIGIN}/sites/${id}/`);
    const config = (await get(t, APP, '/api/config/public')).json().data;
    expect(config.sites_origin).toBe(SITES_ORIGIN);
  });

  it('previews live on the sites origin', async () => {
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, {
      files: [{ name: 'index.html', content: '<h1>预览</h1>' }],
    });
    const pid = up.json().data.project.id;
    const res = await t.request({
      method: 'POST',
      url: `/api/projects/${pid}/preview-token`,
      token: owner.token,
      headers: { host: APP },
    });
    const { preview_url, token } = res.json().data;
    expect(preview_url).toBe(`${SITES_ORIGIN}/preview/${token}/`);
    const page = await get(t, SITES, `/preview/${token}/`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe('<h1>预览</h1>');
    // Unreviewed content stays sandboxed even here: it shares the sites host with every preview.
    expect(page.headers['content-security-policy']).toBe(SITE_SANDBOX_CSP);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it('lets the app frame the sites origin', async () => {
    const res = await get(t, APP, '/api/projects/public');
    expect(res.headers['content-security-policy']).toContain(`frame-src 'self' ${SITES_ORIGIN}`);
  });
});

describe('SITES_ORIGIN with one subdomain per project', () => {
  let t: TestApp;
  let id: number;
  beforeAll(async () => {
    t = await createTestApp({ sitesOrigin: SITES_ORIGIN, sitesSubdomains: true });
    ({ id } = await liveProject(t, [...SIMPLE_SITE, { name: 'docs/index.html', content: '<h1>文档</h1>' }]));
  });
  afterAll(() => t.close());

  it('serves each project at the root of p{id}.{sites host}', async () => {
    const host = `p${id}.${SITES}`;
    const root = await get(t, host, '/');
    expect(root.statusCode).toBe(200);
    expect(root.body).toBe(SIMPLE_SITE[0]!.content);
    expect(root.headers['content-security-policy']).toBeUndefined();
    expect(root.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(t, host, '/css/style.css')).body).toBe(SIMPLE_SITE[1]!.content);
    expect((await get(t, host.toUpperCase(), '/css/style.css')).statusCode).toBe(200);
    const dir = await get(t, host, '/docs?x=1');
    expect(dir.statusCode).toBe(302);
    expect(new URL(dir.headers.location as string, `http://${host}/docs?x=1`).href).toBe(
      `http://${host}/docs/?x=1`,
    );
    // On a project's own host, every path is a path of that site: /api is just a missing file.
    const api = await get(t, host, '/api/projects/public');
    expect(api.statusCode).toBe(404);
    expect(api.body).toContain('页面不存在');
    expect((await get(t, `p999999.${SITES}`, '/')).statusCode).toBe(404);
  });

  it('answers the platform’s errors on a project’s host as pages, not JSON', async () => {
    // A file whose blob left the store after the file table was read: the error handler answers.
    const { id: other } = await liveProject(t, [
      ...SIMPLE_SITE,
      { name: 'gone.txt', content: '不久就会消失的文件' },
    ]);
    const row = await t.ctx.db
      .selectFrom('deployment_files')
      .innerJoin('projects', 'projects.live_deployment_id', 'deployment_files.deployment_id')
      .select('deployment_files.sha256')
      .where('projects.id', '=', other)
      .where('deployment_files.path', '=', 'gone.txt')
      .executeTakeFirstOrThrow();
    await t.ctx.store.delete(row.sha256);
    const host = `p${other}.${SITES}`;
    const gone = await get(t, host, '/gone.txt');
    const missing = await get(t, host, '/no-such-file.txt');
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(gone.headers['x-content-type-options']).toBe('nosniff');
    expect(gone.body).toBe(missing.body);
    expect(gone.body).toContain('页面不存在');
    expect(gone.body).not.toContain('success');
  });

  it('moves /sites/{id}/ from the app host and the sites host to the project’s subdomain', async () => {
    for (const host of [APP, SITES]) {
      const res = await get(t, host, `/sites/${id}/css/style.css?v=1`);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`http://p${id}.${SITES}/css/style.css?v=1`);
      const bare = await get(t, host, `/sites/${id}`);
      expect(bare.headers.location).toBe(`http://p${id}.${SITES}/`);
    }
  });

  it('hands out subdomain addresses; previews stay on the sites host', async () => {
    const card = (await get(t, APP, '/api/projects/public'))
      .json()
      .data.projects.find((p: { id: number }) => p.id === id);
    expect(card.access_url).toBe(`http://p${id}.${SITES}/`);
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, { files: [{ name: 'index.html', content: 'pv' }] });
    const pid = up.json().data.project.id;
    const { preview_url, token } = (
      await t.request({ method: 'POST', url: `/api/projects/${pid}/preview-token`, token: owner.token })
    ).json().data;
    expect(preview_url).toBe(`${SITES_ORIGIN}/preview/${token}/`);
    expect((await get(t, SITES, `/preview/${token}/`)).body).toBe('pv');
    expect((await get(t, APP, `/preview/${token}/`)).headers.location).toBe(
      `${SITES_ORIGIN}/preview/${token}/`,
    );
  });

  it('neither the sites host nor an unknown subdomain serves the app', async () => {
    await expectNothingOfTheApp(t, SITES);
    await expectNothingOfTheApp(t, `www.${SITES}`);
  });

  it('lets the app frame the project subdomains', async () => {
    const res = await get(t, APP, '/api/projects/public');
    expect(res.headers['content-security-policy']).toContain(`http://*.${SITES}`);
  });
});
