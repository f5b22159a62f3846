/**
 * Preview links (docs/product.md "Serving sites"): who may make one, what it shows, how long, and
 * that a newer link, expiry or a deleted project closes it — always as the same 404.
 */
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/services/sessions.js';
import {
  createTestApp,
  listenPort,
  liveProject,
  rawRequest,
  review,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

describe('preview links', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function pendingProject(content = '<h1>待审核的页面</h1>') {
    const owner = await t.createUser();
    const res = await uploadProject(t, owner.token, {
      files: [
        { name: 'index.html', content },
        { name: 'css/style.css', content: 'body{}' },
      ],
    });
    return { id: res.json().data.project.id as number, owner };
  }

  function makeToken(projectId: number, token: string) {
    return t.request({ method: 'POST', url: `/api/projects/${projectId}/preview-token`, token });
  }

  async function open(previewUrl: string, path = '') {
    return t.request({ url: `${previewUrl}${path}` });
  }

  it('gives the owner a 128-bit token, a /preview/{token}/ URL and the configured lifetime', async () => {
    const { id, owner } = await pendingProject();
    const res = await makeToken(id, owner.token);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    // Lower-case hex, so a host name carries it as it is (pv-{token}: a preview's own host).
    expect(data.token).toMatch(/^[0-9a-f]{32}$/);
    expect(data.preview_url).toBe(`/preview/${data.token}/`);
    expect(data.expires_in_seconds).toBe(30 * 60);
    expect(Date.parse(data.expires_at) - Date.now()).toBeGreaterThan(29 * 60 * 1000);

    const page = await open(data.preview_url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe('<h1>待审核的页面</h1>');
    expect((await open(data.preview_url, 'css/style.css')).body).toBe('body{}');
    // The project itself is not live.
    expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(404);
  });

  it('stores only a hash of the token', async () => {
    const { id, owner } = await pendingProject();
    const { token } = (await makeToken(id, owner.token)).json().data;
    const rows = await t.ctx.db
      .selectFrom('preview_tokens')
      .selectAll()
      .where('project_id', '=', id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(hashToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('admins may make one; other users and visitors may not (the project looks missing)', async () => {
    const { id } = await pendingProject();
    expect((await makeToken(id, await t.adminToken())).statusCode).toBe(200);
    const stranger = await t.createUser();
    const refused = await makeToken(id, stranger.token);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().success).toBe(false);
    expect((await t.request({ method: 'POST', url: `/api/projects/${id}/preview-token` })).statusCode).toBe(
      401,
    );
    expect((await makeToken(999999, await t.adminToken())).statusCode).toBe(404);
    expect((await makeToken(Number.NaN, await t.adminToken())).statusCode).toBe(404);
  });

  it('is bound to the deployment it was made for', async () => {
    const { id, owner } = await liveProject(t, [{ name: 'index.html', content: 'v1' }]);
    const { preview_url: v1Preview } = (await makeToken(id, owner.token)).json().data;
    expect((await open(v1Preview)).body).toBe('v1');
    // A new upload: the old link keeps showing v1 until a new link is made.
    await uploadProject(t, owner.token, { projectId: id, files: [{ name: 'index.html', content: 'v2' }] });
    expect((await open(v1Preview)).body).toBe('v1');
    const { preview_url: v2Preview } = (await makeToken(id, owner.token)).json().data;
    expect((await open(v2Preview)).body).toBe('v2');
    // The live site is still v1.
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('v1');
  });

  it('a token opens its own project only', async () => {
    const a = await pendingProject('<h1>A</h1>');
    const b = await pendingProject('<h1>B</h1>');
    const tokenA = (await makeToken(a.id, a.owner.token)).json().data.token;
    const tokenB = (await makeToken(b.id, b.owner.token)).json().data.token;
    expect((await open(`/preview/${tokenA}/`)).body).toBe('<h1>A</h1>');
    expect((await open(`/preview/${tokenB}/`)).body).toBe('<h1>B</h1>');
    // Nothing maps a token to another project's files, whatever the path says (sent as is).
    const port = await listenPort(t);
    for (const path of [`../${tokenB}/`, `%2e%2e/${tokenB}/`, `..%2f${tokenB}%2f`]) {
      const res = await rawRequest(port, `/preview/${tokenA}/${path}`);
      expect(res.status).toBe(404);
      expect(res.body.toString()).not.toContain('<h1>B</h1>');
    }
    expect((await t.request({ url: `/sites/${b.id}/` })).statusCode).toBe(404);
  });

  it('a new link revokes the previous one; expired, unknown and malformed ones are the same 404 page, which explains and leads to the showcase', async () => {
    const { id, owner } = await pendingProject();
    const first = (await makeToken(id, owner.token)).json().data;
    const second = (await makeToken(id, owner.token)).json().data;
    const gone = await open(first.preview_url);
    expect((await open(second.preview_url)).statusCode).toBe(200);

    await t.ctx.db
      .updateTable('preview_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', hashToken(second.token))
      .execute();
    const expired = await open(second.preview_url);
    const unknown = await open('/preview/AAAAAAAAAAAAAAAAAAAAAA/');
    const malformed = await open('/preview/%3Cscript%3E/');
    for (const res of [gone, expired, unknown, malformed]) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe(unknown.body);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      // A page for the visitor's browser, not the API's JSON; sandboxed like every preview answer.
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toMatch(/^sandbox /);
      expect(res.body).toMatch(/^<!doctype html><html lang="zh-CN">/);
      expect(res.body).toContain(messages.common.previewGoneTitle);
      expect(res.body).toContain(messages.common.previewGone);
      expect(res.body).toContain(`<a class="back" href="/public">${messages.common.backToShowcase}</a>`);
      expect(res.body).not.toMatch(/<script/i);
      // Nothing of the link is written into the page.
      expect(res.body).not.toContain(second.token);
    }
  });

  it('leaves one link working when several are asked for at the same moment', async () => {
    const { id, owner } = await pendingProject();
    const made = await Promise.all(Array.from({ length: 12 }, () => makeToken(id, owner.token)));
    expect(made.every((r) => r.statusCode === 200)).toBe(true);
    const opened = await Promise.all(made.map((r) => open(r.json().data.preview_url)));
    expect(opened.filter((r) => r.statusCode === 200)).toHaveLength(1);
  });

  it('closes when the project is deleted', async () => {
    const { id, owner } = await pendingProject();
    const { preview_url } = (await makeToken(id, owner.token)).json().data;
    expect((await open(preview_url)).statusCode).toBe(200);
    await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
    expect((await open(preview_url)).statusCode).toBe(404);
  });

  it('previews are private, unindexed, unreferred and never counted as views', async () => {
    const { id, owner } = await liveProject(t, SIMPLE_SITE);
    const { preview_url } = (await makeToken(id, owner.token)).json().data;
    const res = await t.request({ url: preview_url, headers: { 'user-agent': 'Mozilla/5.0 Firefox/140.0' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-robots-tag']).toMatch(/noindex/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    await t.ctx.services.views.flush();
    const row = await t.ctx.db
      .selectFrom('projects')
      .select('view_count')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(row.view_count)).toBe(0);
  });

  it('a new link revokes only its maker’s earlier one: an admin’s preview leaves the owner’s link working', async () => {
    const { id, owner } = await pendingProject();
    const admin = await t.adminToken();
    const owners = (await makeToken(id, owner.token)).json().data;
    const admins = (await makeToken(id, admin)).json().data;
    expect((await open(owners.preview_url)).statusCode).toBe(200);
    expect((await open(admins.preview_url)).statusCode).toBe(200);
    // The owner's 重新生成 replaces the owner's link, not the admin's.
    const again = (await makeToken(id, owner.token)).json().data;
    expect((await open(owners.preview_url)).statusCode).toBe(404);
    expect((await open(again.preview_url)).statusCode).toBe(200);
    expect((await open(admins.preview_url)).statusCode).toBe(200);
  });

  it('tells the reviewer at a preview’s root that the version has no home page', async () => {
    const owner = await t.createUser();
    const res = await uploadProject(t, owner.token, {
      files: [
        { name: 'about.html', content: '<h1>关于</h1>' },
        { name: 'contact.html', content: '<h1>联系</h1>' },
      ],
    });
    const id = res.json().data.project.id as number;
    expect(res.json().data.project.entry_file).toBeNull();
    const { preview_url } = (await makeToken(id, owner.token)).json().data;
    const root = await open(preview_url);
    expect(root.statusCode).toBe(404);
    expect(root.body).toContain('这个版本没有首页文件（index.html）');
    // …and, like every platform page, the way back to the showcase at the app's address.
    expect(root.body).toMatch(/<a class="back" href="[^"]*\/public">返回站点展厅<\/a>/);
    expect(root.headers['content-security-policy']).toMatch(/^sandbox /);
    expect((await open(preview_url, 'about.html')).body).toBe('<h1>关于</h1>');
    // Anything else missing is the plain 404; a bad link, the page of a link that opens nothing.
    const missing = await open(preview_url, 'nope.html');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).not.toContain('首页');
    expect(missing.body).toContain(messages.common.siteNotFound);
    expect((await open('/preview/AAAAAAAAAAAAAAAAAAAAAA/')).body).toContain(messages.common.previewGone);
  });

  it('is no way around a review: a rejected or taken-down version and a disabled maker close the link', async () => {
    const admin = await t.adminToken();
    // Rejected while pending: its link dies, and no new one is made for it.
    const pending = await pendingProject();
    const link = (await makeToken(pending.id, pending.owner.token)).json().data;
    expect((await review(t, pending.id, 'reject', '钓鱼页面')).statusCode).toBe(200);
    expect((await open(link.preview_url)).statusCode).toBe(404);
    const refused = await makeToken(pending.id, pending.owner.token);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(messages.project.previewRejected);
    // A fixed version can be previewed again.
    await uploadProject(t, pending.owner.token, { projectId: pending.id, files: SIMPLE_SITE });
    expect((await makeToken(pending.id, pending.owner.token)).statusCode).toBe(200);

    // Taken down while live: the owner's and the admin's links die with the site.
    const live = await liveProject(t, SIMPLE_SITE);
    const owners = (await makeToken(live.id, live.owner.token)).json().data;
    const admins = (await makeToken(live.id, admin)).json().data;
    expect((await open(owners.preview_url)).statusCode).toBe(200);
    expect((await review(t, live.id, 'takedown', '违规内容')).statusCode).toBe(200);
    expect((await open(owners.preview_url)).statusCode).toBe(404);
    expect((await open(admins.preview_url)).statusCode).toBe(404);
    expect((await makeToken(live.id, live.owner.token)).statusCode).toBe(409);

    // A version replaced while it waited was never reviewed: its link dies once a newer version is
    // decided, and with a takedown of the project, even though it is not the version taken down.
    for (const decision of [
      ['reject', '新版本也不行'],
      ['takedown', '整站违规'],
    ] as const) {
      const site = await liveProject(t, SIMPLE_SITE);
      await uploadProject(t, site.owner.token, {
        projectId: site.id,
        files: [{ name: 'index.html', content: '<p>v2 从未审核</p>' }],
      });
      const v2 = (await makeToken(site.id, site.owner.token)).json().data;
      await uploadProject(t, site.owner.token, { projectId: site.id, files: SIMPLE_SITE });
      // Still waiting for a decision: the replaced version's link opens.
      expect((await open(v2.preview_url)).statusCode).toBe(200);
      expect((await review(t, site.id, decision[0], decision[1])).statusCode).toBe(200);
      expect((await open(v2.preview_url)).statusCode, decision[0]).toBe(404);
    }

    // A disabled account's links stop working; an admin's link to the same project doesn't.
    const other = await pendingProject();
    const mine = (await makeToken(other.id, other.owner.token)).json().data;
    const theirs = (await makeToken(other.id, admin)).json().data;
    const ownerId = (await t.request({ url: '/api/auth/profile', token: other.owner.token })).json().data.user
      .id;
    const disabled = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${ownerId}`,
      token: admin,
      body: { disabled: true },
    });
    expect(disabled.statusCode).toBe(200);
    expect((await open(mine.preview_url)).statusCode).toBe(404);
    expect((await open(theirs.preview_url)).statusCode).toBe(200);
  });

  it('a version the content check rates high is previewed by reviewers only, until it is approved', async () => {
    const { id, owner } = await pendingProject();
    // Made before the render's findings came: it stops when the version is rated high.
    const early = (await makeToken(id, owner.token)).json().data.preview_url as string;
    expect((await open(early)).statusCode).toBe(200);
    await t.ctx.db.updateTable('deployments').set({ content_risk: 4 }).where('project_id', '=', id).execute();
    expect((await open(early)).statusCode).toBe(404);
    const refused = await makeToken(id, owner.token);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(messages.project.previewHighRisk);
    // The reviewer still looks at it.
    const admin = await makeToken(id, await t.adminToken());
    expect(admin.statusCode).toBe(200);
    expect((await open(admin.json().data.preview_url)).statusCode).toBe(200);
    // Approved (a reviewer judged it): its owner may share it again.
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    const after = await makeToken(id, owner.token);
    expect(after.statusCode).toBe(200);
    expect((await open(after.json().data.preview_url)).statusCode).toBe(200);
  });

  it('purges expired and revoked tokens, keeping live ones', async () => {
    const { id, owner } = await pendingProject();
    const old = (await makeToken(id, owner.token)).json().data;
    const current = (await makeToken(id, owner.token)).json().data;
    const other = await pendingProject();
    const expiring = (await makeToken(other.id, other.owner.token)).json().data;
    await t.ctx.db
      .updateTable('preview_tokens')
      .set({ expires_at: new Date(Date.now() - 1).toISOString() })
      .where('token_hash', '=', hashToken(expiring.token))
      .execute();
    await t.ctx.services.previews.purge();
    const left = await t.ctx.db.selectFrom('preview_tokens').select('token_hash').execute();
    const hashes = left.map((r) => r.token_hash);
    expect(hashes).toContain(hashToken(current.token));
    expect(hashes).not.toContain(hashToken(old.token));
    expect(hashes).not.toContain(hashToken(expiring.token));
    expect((await open(current.preview_url)).statusCode).toBe(200);
  });

  it('uses the lifetime set by an admin', async () => {
    const admin = await t.adminToken();
    const saved = await t.request({
      method: 'PUT',
      url: '/api/admin/config',
      token: admin,
      body: { preview_ttl_seconds: 600 },
    });
    expect(saved.statusCode).toBe(200);
    const { id, owner } = await pendingProject();
    const data = (await makeToken(id, owner.token)).json().data;
    expect(data.expires_in_seconds).toBe(600);
    const row = await t.ctx.db
      .selectFrom('preview_tokens')
      .select('expires_at')
      .where('token_hash', '=', hashToken(data.token))
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) - Date.now()).toBeLessThanOrEqual(600 * 1000);
    expect(Date.parse(row.expires_at) - Date.now()).toBeGreaterThan(590 * 1000);
  });
});
