/**
 * Custom domains through the API (docs/product.md "Custom domains"): ownership enforced by the
 * server, one verified holder per domain across accounts, the DNS proof checked against a real
 * DNS server over UDP (test/support/dns-server.ts, given as DNS_RESOLVERS), the approval setting,
 * removal, the TLS ask endpoint, and serving: a verified domain's Host gets the project's live
 * site at '/', with the headers of a site on its own origin, through the route and the fast path.
 */
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDns, type TestDns } from '../../scripts/test-dns.js';
import { customDomainsNotice } from '../src/config.js';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  listenPort,
  liveProject,
  rawRequest,
  review,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

const m = messages.domain;
const SITES_HOST = 'sites.example.test';
const APP_HOST = 'hall.example.test';

type Domain = {
  id: number;
  domain: string;
  state: string;
  txt_name: string;
  txt_value: string;
  cname_target: string | null;
};

describe('custom domains', () => {
  let t: TestApp;
  let dns: TestDns;

  beforeAll(async () => {
    dns = await startTestDns();
    t = await createTestApp({
      sitesOrigin: `http://${SITES_HOST}`,
      sitesSubdomains: true,
      dnsResolvers: [dns.address],
      // The app's own address: its host is no project's.
      mail: {
        from: 'hall@example.test',
        publicUrl: `http://${APP_HOST}`,
        pollMs: 5_000,
        retryBaseMs: 30_000,
        maxAttempts: 8,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const add = (token: string, projectId: number, domain: string) =>
    t.request({ method: 'POST', url: `/api/projects/${projectId}/domains`, token, body: { domain } });
  const check = (token: string, projectId: number, domainId: number) =>
    t.request({ method: 'POST', url: `/api/projects/${projectId}/domains/${domainId}/check`, token });
  const ask = (domain: string) => t.request({ url: `/api/tls/ask?domain=${encodeURIComponent(domain)}` });
  /** A page of the site as a visitor of `host` gets it. */
  const visit = (host: string, url = '/') => t.request({ url, headers: { host } });

  async function addedDomain(token: string, projectId: number, domain: string): Promise<Domain> {
    const res = await add(token, projectId, domain);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.domain as Domain;
  }

  async function verifiedDomain(token: string, projectId: number, domain: string): Promise<Domain> {
    const d = await addedDomain(token, projectId, domain);
    dns.setTxt(d.txt_name, [d.txt_value]);
    const res = await check(token, projectId, d.id);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.domain as Domain;
  }

  it('adds a domain to a live project and verifies it by its TXT record; the domain then serves the site', async () => {
    const { id, owner } = await liveProject(t);
    const d = await addedDomain(owner.token, id, 'WWW.Club-One.test.');
    expect(d).toMatchObject({
      domain: 'www.club-one.test',
      state: 'pending',
      txt_name: '_sitehall.www.club-one.test',
      cname_target: `p${id}.${SITES_HOST}`,
    });
    expect(d.txt_value).toMatch(/^sitehall-verify=[A-Za-z0-9_-]{24}$/);
    // Not served, and no certificate, before the proof.
    expect((await ask('www.club-one.test')).statusCode).toBe(404);

    // No record at all, then a record with another value: each says which.
    expectFailure(await check(owner.token, id, d.id), 400, m.noRecord.replace('{name}', d.txt_name));
    dns.setTxt(d.txt_name, ['sitehall-verify=someone-elses']);
    expectFailure(await check(owner.token, id, d.id), 400, m.wrongValue.replace('{name}', d.txt_name));
    dns.setTxt(d.txt_name, ['unrelated', d.txt_value]);
    const ok = await check(owner.token, id, d.id);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().message).toBe(m.verified);
    expect(ok.json().data.domain.state).toBe('active');

    expect((await ask('www.club-one.test')).statusCode).toBe(200);
    expect((await ask('WWW.CLUB-ONE.TEST.')).statusCode).toBe(200);
    const page = await visit('www.club-one.test');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>');
    // An origin of its own, as a project subdomain: no sandbox, no app behind it.
    expect(page.headers['content-security-policy']).toBeUndefined();
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['set-cookie']).toBeUndefined();
    const api = await visit('www.club-one.test', '/api/auth/profile');
    expect(api.statusCode).toBe(404);
    // The site's own 404 page: the API is not behind a custom domain.
    expect(api.headers['content-type']).toMatch(/^text\/html/);
    expect(api.body).not.toContain('success');
    expect(await auditEntries(t, { action: 'project.domain_verify', targetId: id })).toHaveLength(1);
  });

  it('verifies by a CNAME to the project’s own host, never to the shared sites host', async () => {
    const { id, owner } = await liveProject(t);
    const d = await addedDomain(owner.token, id, 'cname.club-two.test');
    dns.setCname('cname.club-two.test', `${SITES_HOST}.`);
    expectFailure(
      await check(owner.token, id, d.id),
      400,
      m.wrongCname.replace('{found}', SITES_HOST).replace('{target}', `p${id}.${SITES_HOST}`),
    );
    dns.setCname('cname.club-two.test', `P${id}.${SITES_HOST}.`);
    const ok = await check(owner.token, id, d.id);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await ask('cname.club-two.test')).statusCode).toBe(200);
  });

  it('keeps other accounts out: another project’s domains are a 404 whatever the call', async () => {
    const { id, owner } = await liveProject(t);
    const d = await addedDomain(owner.token, id, 'private.club-three.test');
    const stranger = await t.createUser();
    expectFailure(await t.request({ url: `/api/projects/${id}/domains`, token: stranger.token }), 404);
    expectFailure(await add(stranger.token, id, 'x.club-three.test'), 404);
    expectFailure(await check(stranger.token, id, d.id), 404);
    expectFailure(
      await t.request({
        method: 'DELETE',
        url: `/api/projects/${id}/domains/${d.id}`,
        token: stranger.token,
      }),
      404,
    );
    // A domain id of another project, under the stranger's own project: not found either.
    const theirs = await liveProject(t, undefined, { owner: stranger });
    expectFailure(await check(stranger.token, theirs.id, d.id), 404);
    expectFailure(
      await t.request({
        method: 'DELETE',
        url: `/api/projects/${theirs.id}/domains/${d.id}`,
        token: stranger.token,
      }),
      404,
    );
    expectFailure(await t.request({ url: '/api/admin/domains', token: stranger.token }), 403);
    // The owner's list is untouched.
    const list = await t.request({ url: `/api/projects/${id}/domains`, token: owner.token });
    expect(list.json().data.domains.map((x: Domain) => x.domain)).toEqual(['private.club-three.test']);
    expect(list.json().data).toMatchObject({
      available: true,
      unavailable_reason: null,
      can_add: true,
      can_remove: true,
      sites_host: SITES_HOST,
    });
  });

  it('refuses what is no domain, the platform’s own hosts, projects not live and duplicates', async () => {
    const { id, owner } = await liveProject(t);
    for (const bad of [
      '',
      'localhost',
      '10.0.0.1',
      'http://a.test/',
      'a.test:8080',
      'a..test',
      '-a.test',
      'a b.test',
    ])
      expectFailure(await add(owner.token, id, bad), 400);
    expectFailure(await add(owner.token, id, SITES_HOST), 400, m.domainReserved);
    expectFailure(await add(owner.token, id, `p1.${SITES_HOST}`), 400, m.domainReserved);
    // The app's host: a site served there, unsandboxed, would read the signed-in token.
    expectFailure(await add(owner.token, id, APP_HOST), 400, m.domainReserved);
    expectFailure(await add(owner.token, id, APP_HOST.toUpperCase()), 400, m.domainReserved);
    // Chinese names are kept in their ASCII form.
    expect((await addedDomain(owner.token, id, '俱乐部.test')).domain).toMatch(/^xn--[a-z0-9]+\.test$/);
    await addedDomain(owner.token, id, 'twice.club-four.test');
    expectFailure(await add(owner.token, id, 'twice.club-four.test'), 409, m.alreadyOnProject);

    const pending = await uploadProject(t, owner.token, { name: '待审核项目', files: SIMPLE_SITE });
    expectFailure(
      await add(owner.token, pending.json().data.project.id, 'pending.club-four.test'),
      409,
      m.notLive,
    );
  });

  it('tells the card a project never approved is not live and offers no adding; once approved, the owner may add', async () => {
    const owner = await t.createUser();
    const uploaded = await uploadProject(t, owner.token, { name: '首个版本待审核', files: SIMPLE_SITE });
    const id = uploaded.json().data.project.id as number;
    const card = async (token: string) =>
      (await t.request({ url: `/api/projects/${id}/domains`, token })).json().data;
    expect(await card(owner.token)).toMatchObject({
      available: true,
      live: false,
      can_add: false,
      can_check: true,
      can_remove: true,
      domains: [],
    });
    expectFailure(await add(owner.token, id, 'early.club-four.test'), 409, m.notLive);

    const approved = await review(t, id, 'approve');
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await card(owner.token)).toMatchObject({ live: true, can_add: true, can_check: true });
    await addedDomain(owner.token, id, 'early.club-four.test');
    // An admin sees the project's domains and may remove them, but adds and checks none.
    expect(await card(await t.adminToken())).toMatchObject({
      live: true,
      can_add: false,
      can_check: false,
      can_remove: true,
    });
  });

  it('lets a domain be claimed by several accounts until one proves it; then it is refused to the others', async () => {
    const a = await liveProject(t);
    const b = await liveProject(t);
    const claimA = await addedDomain(a.owner.token, a.id, 'shared.club-five.test');
    // B's claim does not block A (claiming proves nothing), and A's does not block B.
    const claimB = await addedDomain(b.owner.token, b.id, 'shared.club-five.test');
    expect(claimB.txt_value).not.toBe(claimA.txt_value);
    // Only A's token is in the DNS: B's check fails, A's succeeds.
    dns.setTxt(claimA.txt_name, [claimA.txt_value]);
    expectFailure(await check(b.owner.token, b.id, claimB.id), 400);
    expect((await check(a.owner.token, a.id, claimA.id)).statusCode).toBe(200);
    // Now taken: B's pending claim can't be verified, even with its token added, nor can C add it.
    dns.setTxt(claimA.txt_name, [claimA.txt_value, claimB.txt_value]);
    expectFailure(await check(b.owner.token, b.id, claimB.id), 409, m.takenElsewhere);
    const c = await liveProject(t);
    expectFailure(await add(c.owner.token, c.id, 'shared.club-five.test'), 409, m.takenElsewhere);
    expect((await visit('shared.club-five.test')).statusCode).toBe(200);
    const served = await visit('shared.club-five.test');
    const direct = await visit(`p${a.id}.${SITES_HOST}`);
    expect(served.body).toBe(direct.body);
  });

  it('stops serving a removed domain at once, over a real socket where the fast path answers too', async () => {
    const { id, owner } = await liveProject(t);
    const d = await verifiedDomain(owner.token, id, 'gone.club-six.test');
    const port = await listenPort(t);
    const before = t.fastPath?.served ?? 0;
    for (let i = 0; i < 3; i++) {
      const res = await rawRequest(port, '/', { headers: { host: 'gone.club-six.test' } });
      expect(res.status).toBe(200);
    }
    if (t.fastPath) expect(t.fastPath.served).toBeGreaterThan(before);
    const removed = await t.request({
      method: 'DELETE',
      url: `/api/projects/${id}/domains/${d.id}`,
      token: owner.token,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const after = await rawRequest(port, '/', { headers: { host: 'gone.club-six.test' } });
    // The app host's answer now, not the site: no site page under that name.
    expect(after.body.toString()).not.toContain('<h1>');
    expect(after.headers['x-content-type-options']).toBeDefined();
    expect((await ask('gone.club-six.test')).statusCode).toBe(404);
    expect(await auditEntries(t, { action: 'project.domain_remove', targetId: id })).toHaveLength(1);
  });

  it('stops serving when the project is deleted or no longer live', async () => {
    const first = await liveProject(t);
    await verifiedDomain(first.owner.token, first.id, 'deleted.club-seven.test');
    const del = await t.request({
      method: 'DELETE',
      url: `/api/projects/${first.id}`,
      token: first.owner.token,
    });
    expect(del.statusCode, del.body).toBe(200);
    expect((await ask('deleted.club-seven.test')).statusCode).toBe(404);
    // Not the site's page (<h1>你好</h1>): the app's answer for an unknown host, or the platform's
    // 404 page while the deletion reaches the domain cache (it has an <h1> of its own).
    const gone = await visit('deleted.club-seven.test');
    expect(gone.body).not.toContain('<h1>你好</h1>');
    if (gone.body.includes('<h1>')) expect(gone.statusCode).toBe(404);

    const second = await liveProject(t);
    await verifiedDomain(second.owner.token, second.id, 'down.club-seven.test');
    const down = await t.request({
      method: 'POST',
      url: `/api/admin/projects/${second.id}/review`,
      token: await t.adminToken(),
      body: { action: 'takedown', comment: '违规内容' },
    });
    expect(down.statusCode, down.body).toBe(200);
    expect((await ask('down.club-seven.test')).statusCode).toBe(404);
    expect((await visit('down.club-seven.test')).statusCode).toBe(404);
  });

  it('holds verified domains for an admin’s approval when the setting asks for it', async () => {
    const admin = await t.adminToken();
    const setApproval = (on: boolean) =>
      t.request({
        method: 'PUT',
        url: '/api/admin/config',
        token: admin,
        body: { custom_domains_require_approval: on },
      });
    const { id, owner } = await liveProject(t);
    const live = await verifiedDomain(owner.token, id, 'approved.club-eight.test');
    expect(live.state).toBe('active');
    expect((await setApproval(true)).statusCode).toBe(200);
    try {
      // Already verified, not approved: held back until approved.
      expect((await ask('approved.club-eight.test')).statusCode).toBe(404);
      expect((await visit('approved.club-eight.test')).body).not.toContain('<h1>');
      const d = await addedDomain(owner.token, id, 'later.club-eight.test');
      dns.setTxt(d.txt_name, [d.txt_value]);
      const checked = await check(owner.token, id, d.id);
      expect(checked.json().message).toBe(m.verifiedAwaitingApproval);
      expect(checked.json().data.domain.state).toBe('awaiting_approval');
      expect((await ask('later.club-eight.test')).statusCode).toBe(404);

      const list = await t.request({ url: '/api/admin/domains', token: admin });
      expect(list.statusCode).toBe(200);
      expect(list.json().data.unavailable_reason).toBeNull();
      const row = list.json().data.domains.find((x: Domain) => x.domain === 'later.club-eight.test');
      expect(row).toMatchObject({
        state: 'awaiting_approval',
        project_id: id,
        owner_username: expect.any(String),
      });
      expect(list.json().data.require_approval).toBe(true);
      const approved = await t.request({
        method: 'POST',
        url: `/api/admin/domains/${d.id}/approve`,
        token: admin,
      });
      expect(approved.statusCode, approved.body).toBe(200);
      expect(approved.json().data.domain.state).toBe('active');
      expect((await ask('later.club-eight.test')).statusCode).toBe(200);
      expect((await visit('later.club-eight.test')).statusCode).toBe(200);

      // An admin removes any domain.
      const removed = await t.request({ method: 'DELETE', url: `/api/admin/domains/${d.id}`, token: admin });
      expect(removed.statusCode, removed.body).toBe(200);
      expect((await ask('later.club-eight.test')).statusCode).toBe(404);
      expectFailure(
        await t.request({ method: 'DELETE', url: `/api/admin/domains/${d.id}`, token: admin }),
        404,
      );
    } finally {
      expect((await setApproval(false)).statusCode).toBe(200);
    }
    expect((await ask('approved.club-eight.test')).statusCode).toBe(200);
  });

  it('answers the ask endpoint with the same 404 for anything else, and limits how often one client asks', async () => {
    const { id, owner } = await liveProject(t);
    await addedDomain(owner.token, id, 'pending.club-nine.test');
    const answers = await Promise.all(
      ['pending.club-nine.test', 'unknown.test', '', 'not a domain', `p${id}.${SITES_HOST}`, SITES_HOST].map(
        ask,
      ),
    );
    for (const res of answers) expect(res.statusCode).toBe(404);
    const bodies = new Set(answers.map((r) => r.body));
    expect(bodies.size).toBe(1);
    expect((await t.request({ url: '/api/tls/ask' })).body).toBe([...bodies][0]);
    // A scan from one address is cut short (ask's own budget, apart from the API's).
    let limited = 0;
    for (let i = 0; i < 320 && limited === 0; i++) {
      const res = await t.request({ url: '/api/tls/ask?domain=scan.test', ip: '203.0.113.9' });
      if (res.statusCode === 429) limited++;
    }
    expect(limited).toBe(1);
  });

  it('says so (503) when the DNS server does not answer', async () => {
    const { id, owner } = await liveProject(t);
    const d = await addedDomain(owner.token, id, 'nodns.club-ten.test');
    await dns.close();
    expectFailure(await check(owner.token, id, d.id), 503, m.resolverUnreachable);
  });
});

describe('custom domains without SITES_ORIGIN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are not offered: the card says why and adding is refused', async () => {
    const { id, owner } = await liveProject(t);
    const list = await t.request({ url: `/api/projects/${id}/domains`, token: owner.token });
    expect(list.json().data).toMatchObject({
      available: false,
      unavailable_reason: m.unavailable,
      can_add: false,
      domains: [],
    });
    expectFailure(
      await t.request({
        method: 'POST',
        url: `/api/projects/${id}/domains`,
        token: owner.token,
        body: { domain: 'a.test' },
      }),
      409,
      m.unavailable,
    );
  });

  it("tells the admin's list why this install serves none; with both hosts set, it says nothing", async () => {
    const all = await t.request({ url: '/api/admin/domains', token: await t.adminToken() });
    expect(all.json().data).toMatchObject({ domains: [], unavailable_reason: m.adminUnavailable });
  });
});

describe('custom domains with SITES_ORIGIN but no PUBLIC_URL', () => {
  let t: TestApp;
  let dns: TestDns;
  beforeAll(async () => {
    dns = await startTestDns();
    t = await createTestApp({
      sitesOrigin: `http://${SITES_HOST}`,
      sitesSubdomains: true,
      dnsResolvers: [dns.address],
    });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  // The app's host is then any name but the sites host's: a project verified `hall.example.test`
  // by a TXT record there, and its site, unsandboxed, answered on the app's origin (outside review).
  it('are not offered, and a domain verified before is not served: the app keeps its host', async () => {
    const owner = await t.createUser();
    const { id } = await liveProject(
      t,
      [{ name: 'index.html', content: '<h1>site</h1><script>localStorage.getItem("token")</script>' }],
      { owner },
    );
    const list = await t.request({ url: `/api/projects/${id}/domains`, token: owner.token });
    // Sites do have their own domain here: the owner is told the reason that holds, not
    // m.unavailable's 尚未为站点配置独立域名.
    expect(list.json().data).toMatchObject({
      available: false,
      unavailable_reason: m.unavailableNoPublicUrl,
      can_add: false,
      can_check: false,
    });
    const add = (domain: string) =>
      t.request({ method: 'POST', url: `/api/projects/${id}/domains`, token: owner.token, body: { domain } });
    expectFailure(await add(APP_HOST), 409, m.unavailableNoPublicUrl);
    expectFailure(await add('www.club-nine.test'), 409, m.unavailableNoPublicUrl);

    // A claim of the app's host made and proven before the rule: neither checked nor served now.
    const [row] = await t.ctx.db
      .insertInto('custom_domains')
      .values({
        project_id: id,
        domain: APP_HOST,
        token: 'sitehall-verify=made-before-the-rule',
        verified_at: null,
        approved_at: null,
        approved_by: null,
        created_by: owner.id,
        created_at: new Date().toISOString(),
      })
      .returning('id')
      .execute();
    dns.setTxt(`_sitehall.${APP_HOST}`, ['sitehall-verify=made-before-the-rule']);
    expectFailure(
      await t.request({
        method: 'POST',
        url: `/api/projects/${id}/domains/${row!.id}/check`,
        token: owner.token,
      }),
      409,
      m.unavailableNoPublicUrl,
    );
    await t.ctx.db
      .updateTable('custom_domains')
      .set({ verified_at: new Date().toISOString() })
      .where('id', '=', row!.id)
      .execute();
    await t.ctx.services.customDomains.reload();
    const page = await t.request({ url: '/', headers: { host: APP_HOST } });
    expect(page.body).not.toContain('<h1>site</h1>');
    const api = await t.request({
      url: '/api/auth/profile',
      headers: { host: APP_HOST },
      token: owner.token,
    });
    expect(api.statusCode).toBe(200);
    expect((await t.request({ url: `/api/tls/ask?domain=${APP_HOST}` })).statusCode).toBe(404);
  });

  // It read 已生效 in the owner's card and the admin's list while nothing served it (outside review r4).
  it('lists a domain verified before PUBLIC_URL was required as not served, with the reason the server logs', async () => {
    const owner = await t.createUser();
    const { id } = await liveProject(t, SIMPLE_SITE, { owner });
    const [row] = await t.ctx.db
      .insertInto('custom_domains')
      .values({
        project_id: id,
        domain: 'www.club-ten.test',
        token: 'sitehall-verify=verified-before',
        verified_at: new Date().toISOString(),
        approved_at: null,
        approved_by: null,
        created_by: owner.id,
        created_at: new Date().toISOString(),
      })
      .returning('id')
      .execute();
    await t.ctx.services.customDomains.reload();
    const notServed = { id: row!.id, state: 'not_served', not_served_reason: m.notServedNoPublicUrl };
    const card = await t.request({ url: `/api/projects/${id}/domains`, token: owner.token });
    expect(card.json().data.domains).toEqual([expect.objectContaining(notServed)]);
    const all = await t.request({ url: '/api/admin/domains', token: await t.adminToken() });
    expect(all.json().data.domains).toContainEqual(expect.objectContaining(notServed));
    expect(all.json().data.unavailable_reason).toBe(m.notServedNoPublicUrl);
    // The words the server logs at start.
    expect(customDomainsNotice({ sitesOrigin: `http://${SITES_HOST}`, mail: t.config.mail })).toContain(
      m.notServedNoPublicUrl,
    );
    expect((await t.request({ url: '/', headers: { host: 'www.club-ten.test' } })).body).not.toContain(
      '<h1>',
    );
  });
});
