/**
 * Site names (docs/decisions/names.md): who may take which name, the old name's 30 days, and where a
 * named site is served in each mode (one host, SITES_ORIGIN with subdomains, the sites port with an
 * origin per site under localhost). Real ports where the server a request arrives on matters.
 */
import { format, messages, SITE_NAME_HOLD_DAYS, SITE_NAME_RENAMES_MAX } from '@sitehall/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenSitesPort } from '../src/lifecycle.js';
import {
  createTestApp,
  expectFailure,
  freePort,
  listenPort,
  liveProject,
  multipart,
  projectRowCounts,
  rawRequest,
  SIMPLE_SITE,
  type TestApp,
} from './helpers.js';

const m = messages.project;

/** An upload of SIMPLE_SITE as a new project with the given site name. */
async function uploadNamed(t: TestApp, token: string, siteName: string, projectName = '命名项目') {
  const { payload, headers } = await multipart(
    { project_name: projectName, site_name: siteName },
    SIMPLE_SITE,
  );
  return t.request({ method: 'POST', url: '/api/projects/upload', token, payload, headers });
}

function rename(t: TestApp, token: string, id: number, siteName: string) {
  return t.request({ method: 'PUT', url: `/api/projects/${id}`, token, body: { site_name: siteName } });
}

/** A live project with a name. */
async function liveNamed(t: TestApp, siteName: string, owner?: { token: string }) {
  const { id, owner: o } = await liveProject(t, SIMPLE_SITE, owner ? { owner } : {});
  const res = await rename(t, o.token, id, siteName);
  expect(res.statusCode, res.body).toBe(200);
  return { id, owner: o };
}

/** Moves the moment a project gave up its names back by `days` (the hold period passing). */
async function ageRetiredNames(t: TestApp, days: number) {
  const at = new Date(Date.now() - days * 86_400_000).toISOString();
  await sql`update site_names set retired_at = ${at} where retired_at is not null`.execute(t.ctx.db);
  t.ctx.services.siteIndex.invalidateAll();
}

describe('site names: the rules', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('refuses a badly formed, reserved or numbered name with 400 and keeps nothing', async () => {
    const user = await t.createUser();
    const before = await projectRowCounts(t);
    for (const [name, message] of [
      ['ab', m.siteNameTooShort],
      ['a'.repeat(41), m.siteNameTooLong],
      ['1club', m.siteNameInvalid],
      ['my_club', m.siteNameInvalid],
      ['my--club', m.siteNameInvalid],
      ['club-', m.siteNameInvalid],
      ['俱乐部', m.siteNameInvalid],
      ['www', '站点名“www”是保留名称，请换一个'],
      ['a-p-i', '站点名“a-p-i”是保留名称，请换一个'],
      ['p17', '站点名“p17”是保留名称，请换一个'],
      // What reads as another site's numbered host (p17, p10, p1), by skeleton.
      ['p-17', '站点名“p-17”是保留名称，请换一个'],
      ['pl7', '站点名“pl7”是保留名称，请换一个'],
      ['p1o', '站点名“p1o”是保留名称，请换一个'],
      ['plo', '站点名“plo”是保留名称，请换一个'],
      // A preview link's own host (pv-{token}).
      [
        'pv-0123456789abcdef0123456789abcdef',
        '站点名“pv-0123456789abcdef0123456789abcdef”是保留名称，请换一个',
      ],
    ] as const) {
      const res = await uploadNamed(t, user.token, name);
      expectFailure(res, 400, message);
      expect(res.json().errors.site_name, name).toBe(message);
    }
    expect(await projectRowCounts(t)).toEqual(before);
  });

  it('takes names that only begin like a numbered host: pool, p2p, plan-9', async () => {
    const user = await t.createUser();
    for (const name of ['pool', 'p2p', 'plan-9']) {
      const res = await uploadNamed(t, user.token, name);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
    }
  });

  it('takes a name in any case as lower case, and shows it with the address', async () => {
    const user = await t.createUser();
    const res = await uploadNamed(t, user.token, '  MyClub ');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.project.site_name).toBe('myclub');
    // Not live yet: no address.
    expect(res.json().data.project.access_url).toBeNull();
  });

  it('refuses a name another project holds, or one that looks the same, with 409', async () => {
    const a = await t.createUser();
    const b = await t.createUser();
    expect((await uploadNamed(t, a.token, 'lantern')).statusCode).toBe(201);
    const before = await projectRowCounts(t);
    expectFailure(await uploadNamed(t, b.token, 'lantern'), 409, '站点名“lantern”已被使用，请换一个');
    // Hyphens dropped, m as rn: each reads as lantern.
    for (const lookAlike of ['lan-tern', 'lantem', 'l-a-n-t-e-r-n']) {
      const res = await uploadNamed(t, b.token, lookAlike);
      expectFailure(res, 409, `站点名“${lookAlike}”与已有的站点名“lantern”看起来相同，请换一个`);
    }
    // The same owner's other project may not have it either: a name is one site's.
    expectFailure(await uploadNamed(t, a.token, 'lantern'), 409);
    expect(await projectRowCounts(t)).toEqual(before);
  });

  it('two projects renamed to the same name at once: exactly one gets it', async () => {
    const a = await liveProject(t);
    const b = await liveProject(t);
    for (let round = 0; round < 4; round++) {
      const name = `race-${round}`;
      const answers = await Promise.all([
        rename(t, a.owner.token, a.id, name),
        rename(t, b.owner.token, b.id, name),
      ]);
      const statuses = answers.map((r) => r.statusCode).sort();
      expect(statuses, answers.map((r) => r.body).join('\n')).toEqual([200, 409]);
      const holders = await sql<{
        n: number;
      }>`select count(*) as n from projects where site_name = ${name}`.execute(t.ctx.db);
      expect(Number(holders.rows[0]!.n)).toBe(1);
    }
  });

  it('suggests a free name from a Chinese project name, in pinyin, and checks one', async () => {
    const user = await t.createUser();
    const suggest = (from: string) =>
      t.request({ url: `/api/projects/site-name?from=${encodeURIComponent(from)}`, token: user.token });
    let res = await suggest('我的博客');
    expect(res.json().data).toEqual({ name: 'wodeboke', available: true, message: null });
    expect((await uploadNamed(t, user.token, 'wodeboke')).statusCode).toBe(201);
    res = await suggest('我的博客');
    expect(res.json().data.name).toBe('wodeboke-2');
    res = await suggest('My 博客 2024');
    expect(res.json().data.name).toBe('my-boke-2024');
    res = await suggest('管理');
    expect(res.json().data.name).toBe('guanli');
    const check = (name: string) =>
      t.request({ url: `/api/projects/site-name?name=${encodeURIComponent(name)}`, token: user.token });
    expect((await check('wode-boke')).json().data).toMatchObject({ available: false });
    expect((await check('admin')).json().data.message).toBe('站点名“admin”是保留名称，请换一个');
    expect((await check('free-name')).json().data).toEqual({
      name: 'free-name',
      available: true,
      message: null,
    });
    // Anonymous: 401; another's project id: 404.
    expect((await t.request({ url: '/api/projects/site-name?name=abc' })).statusCode).toBe(401);
    const other = await liveProject(t);
    expect(
      (await t.request({ url: `/api/projects/site-name?name=abc&project_id=${other.id}`, token: user.token }))
        .statusCode,
    ).toBe(404);
  });

  it('only the owner (or an admin) renames a site: another account gets 404', async () => {
    const { id } = await liveNamed(t, 'owned-name');
    const stranger = await t.createUser();
    expectFailure(await rename(t, stranger.token, id, 'stolen-name'), 404);
    const detail = await t.request({ url: `/api/projects/${id}`, token: await t.adminToken() });
    expect(detail.json().data.project.site_name).toBe('owned-name');
  });

  it('holds back an account that renames its sites in a loop to keep every name it passes', async () => {
    // Each name given up stays its site's for the hold period: 40 renames in half a second held
    // 40 names for 30 days (outside review r5). Past the limit a rename is 429, the name unchanged.
    const { id, owner } = await liveNamed(t, 'loop-00');
    for (let i = 1; i <= SITE_NAME_RENAMES_MAX; i++) {
      const res = await rename(t, owner.token, id, `loop-${String(i).padStart(2, '0')}`);
      expect(res.statusCode, res.body).toBe(200);
    }
    const message = format(m.siteNameRenamesExceeded, {
      n: SITE_NAME_RENAMES_MAX,
      hold: SITE_NAME_HOLD_DAYS,
      days: SITE_NAME_HOLD_DAYS,
    });
    const refused = await rename(t, owner.token, id, 'loop-next');
    expectFailure(refused, 429, message);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan((SITE_NAME_HOLD_DAYS - 1) * 86_400);
    // Another of the account's sites too, and a new version that names one (refused before its
    // files are read); nothing was taken.
    const other = await liveProject(t, SIMPLE_SITE, { owner });
    expect((await rename(t, owner.token, other.id, 'loop-other')).statusCode).toBe(200);
    expectFailure(await rename(t, owner.token, other.id, 'loop-other-2'), 429, message);
    const { payload, headers } = await multipart({ site_name: 'loop-by-upload' }, SIMPLE_SITE);
    expectFailure(
      await t.request({ method: 'PUT', url: `/api/projects/${id}`, token: owner.token, payload, headers }),
      429,
      message,
    );
    const free = await t.request({
      url: '/api/projects/site-name?name=loop-next',
      token: (await t.createUser()).token,
    });
    expect(free.json().data.available).toBe(true);
    // Taking back one of its own old names holds nothing more: it passes.
    expect((await rename(t, owner.token, id, 'loop-03')).statusCode).toBe(200);
    // Another account is not held back by this one.
    const stranger = await liveNamed(t, 'loop-stranger');
    expect((await rename(t, stranger.owner.token, stranger.id, 'loop-stranger-2')).statusCode).toBe(200);
  });

  it('holds back an account that deletes its renamed site to start its count again, and holds no more names by deleting', async () => {
    // The count read the names of the account's projects that still exist: renaming a site ten
    // times, deleting it and uploading the next held 11 names an upload, 30 days each (seen on a
    // real server: 33 names in three rounds). Now a deleted site's names still count as given up,
    // and a site deleted past the limit gives its name back at once.
    const owner = await t.createUser();
    const { id } = await liveNamed(t, 'again-00', owner);
    for (let i = 1; i <= SITE_NAME_RENAMES_MAX; i++) {
      expect((await rename(t, owner.token, id, `again-${String(i).padStart(2, '0')}`)).statusCode).toBe(200);
    }
    const message = format(m.siteNameRenamesExceeded, {
      n: SITE_NAME_RENAMES_MAX,
      hold: SITE_NAME_HOLD_DAYS,
      days: SITE_NAME_HOLD_DAYS,
    });
    expectFailure(await rename(t, owner.token, id, 'again-next'), 429, message);
    const deleted = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
    expect(deleted.statusCode, deleted.body).toBe(200);

    // A new project gets a first name, but renaming it is refused as before the delete.
    const next = await uploadNamed(t, owner.token, 'again-b0');
    expect(next.statusCode, next.body).toBe(201);
    const nextId = next.json().data.project.id as number;
    expectFailure(await rename(t, owner.token, nextId, 'again-b1'), 429, message);

    // What it gave up by renaming stays held from others for the period; the name the site had
    // when it was deleted, the eleventh, is free at once.
    const stranger = await t.createUser();
    const ask = async (name: string) =>
      (await t.request({ url: `/api/projects/site-name?name=${name}`, token: stranger.token })).json().data
        .available as boolean;
    expect(await ask('again-00')).toBe(false);
    expect(await ask('again-09')).toBe(false);
    expect(await ask('again-10')).toBe(true);

    // Deleting a site past the limit holds nothing more: its name is free at once.
    const gone = await t.request({ method: 'DELETE', url: `/api/projects/${nextId}`, token: owner.token });
    expect(gone.statusCode, gone.body).toBe(200);
    expect(await ask('again-b0')).toBe(true);
    const taken = await uploadNamed(t, stranger.token, 'again-b0');
    expect(taken.statusCode, taken.body).toBe(201);

    // An account within the limit that deletes its site still keeps the name for the period.
    const other = await liveNamed(t, 'again-kept');
    expect(
      (await t.request({ method: 'DELETE', url: `/api/projects/${other.id}`, token: other.owner.token }))
        .statusCode,
    ).toBe(200);
    expect(await ask('again-kept')).toBe(false);
  });

  it('lets no more than the limit of renames through when an account renames all its sites at once', async () => {
    // Each rename counted the names given up in its own transaction: on PostgreSQL renames of
    // different sites sent at the same moment each saw room under the limit.
    const owner = await t.createUser();
    const sites = [];
    for (let i = 0; i < SITE_NAME_RENAMES_MAX + 4; i++) sites.push(await liveNamed(t, `burst-${i}`, owner));
    const answers = await Promise.all(sites.map((s, i) => rename(t, owner.token, s.id, `burst-${i}-b`)));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(SITE_NAME_RENAMES_MAX);
    for (const r of answers.filter((a) => a.statusCode !== 200)) expectFailure(r, 429);
    const given = await t.ctx.db
      .selectFrom('site_names')
      .select('name')
      .where('owner_id', '=', owner.id)
      .where('retired_at', 'is not', null)
      .execute();
    expect(given).toHaveLength(SITE_NAME_RENAMES_MAX);
  });

  it('a digest deploy names its site, and is refused a held name when it starts', async () => {
    const user = await t.createUser();
    const start = (siteName: string) =>
      t.request({
        method: 'POST',
        url: '/api/deploys',
        token: user.token,
        body: {
          project_name: '部署项目',
          site_name: siteName,
          files: { 'index.html': '0'.repeat(64) },
        },
      });
    expectFailure(await start('lantern'), 409);
    expectFailure(await start('www'), 400);
  });
});

describe('site names: serving on one host', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('serves a named site at /sites/{name}/ and moves its number there for good', async () => {
    const { id } = await liveNamed(t, 'harbour');
    const page = await t.request({ url: '/sites/harbour/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(SIMPLE_SITE[0]!.content);
    for (const [url, to] of [
      [`/sites/${id}/`, '/sites/harbour/'],
      [`/sites/${id}/css/style.css?v=2`, '/sites/harbour/css/style.css?v=2'],
      [`/sites/${id}`, '/sites/harbour/'],
      ['/sites/Harbour/', '/sites/harbour/'],
      ['/sites/har-bour/', '/sites/harbour/'],
    ] as const) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(301);
      expect(res.headers.location, url).toBe(to);
      // Not remembered for ever: the name may change.
      expect(res.headers['cache-control'], url).toBe('no-cache');
    }
    const detail = await t.request({ url: `/api/projects/${id}`, token: await t.adminToken() });
    expect(detail.json().data.project.access_url).toBe('/sites/harbour/');
    const showcase = await t.request({ url: '/api/projects/public' });
    const card = showcase.json().data.projects.find((p: { id: number }) => p.id === id);
    expect(card).toMatchObject({ site_name: 'harbour', access_url: '/sites/harbour/' });
  });

  it('an old name leads to the new one for 30 days, then 404s and is free for anyone', async () => {
    const { id, owner } = await liveNamed(t, 'old-name');
    expect((await rename(t, owner.token, id, 'new-name')).statusCode).toBe(200);
    let res = await t.request({ url: '/sites/old-name/a?b=1' });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/sites/new-name/a?b=1');
    expect((await t.request({ url: '/sites/new-name/' })).statusCode).toBe(200);
    // Within the window nobody else may take it, and it still leads to the site.
    const other = await t.createUser();
    expectFailure(
      await uploadNamed(t, other.token, 'old-name'),
      409,
      `站点名“old-name”刚被停用，${SITE_NAME_HOLD_DAYS} 天内不能给其他站点使用，请换一个`,
    );
    await ageRetiredNames(t, SITE_NAME_HOLD_DAYS - 1);
    expect((await t.request({ url: '/sites/old-name/' })).statusCode).toBe(301);
    // After it: gone, and free.
    await ageRetiredNames(t, SITE_NAME_HOLD_DAYS + 1);
    res = await t.request({ url: '/sites/old-name/' });
    expect(res.statusCode).toBe(404);
    const taken = await liveProject(t, [{ name: 'index.html', content: '<p>新主人</p>' }], { owner: other });
    expect((await rename(t, other.token, taken.id, 'old-name')).statusCode).toBe(200);
    res = await t.request({ url: '/sites/old-name/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<p>新主人</p>');
    // The renamed site keeps its new name.
    expect((await t.request({ url: '/sites/new-name/' })).statusCode).toBe(200);
  });

  it('a site may take back its own old name within the window', async () => {
    const { id, owner } = await liveNamed(t, 'first-name');
    expect((await rename(t, owner.token, id, 'second-name')).statusCode).toBe(200);
    expect((await rename(t, owner.token, id, 'first-name')).statusCode).toBe(200);
    expect((await t.request({ url: '/sites/first-name/' })).statusCode).toBe(200);
    expect((await t.request({ url: '/sites/second-name/' })).headers.location).toBe('/sites/first-name/');
  });

  it('a deleted site’s name leads nowhere and stays held', async () => {
    const { id, owner } = await liveNamed(t, 'gone-soon');
    const del = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
    expect(del.statusCode).toBe(200);
    expect((await t.request({ url: '/sites/gone-soon/' })).statusCode).toBe(404);
    const other = await t.createUser();
    expectFailure(await uploadNamed(t, other.token, 'gone-soon'), 409);
  });

  it('a name that is not live is the same 404 as none, and unknown names are 404', async () => {
    const user = await t.createUser();
    expect((await uploadNamed(t, user.token, 'not-live-yet')).statusCode).toBe(201);
    const missing = await t.request({ url: '/sites/no-such-site/' });
    const pending = await t.request({ url: '/sites/not-live-yet/' });
    expect(pending.statusCode).toBe(404);
    expect(pending.body).toBe(missing.body);
  });

  it('the fast path serves a name, and a rename turns the old URL into a redirect at once', async () => {
    const port = await listenPort(t);
    const { id, owner } = await liveNamed(t, 'quick-site');
    // The first answer loads the site; the next ones come from memory.
    for (let i = 0; i < 3; i++) expect((await rawRequest(port, '/sites/quick-site/')).status).toBe(200);
    const before = t.fastPath!.served;
    expect((await rawRequest(port, '/sites/quick-site/')).status).toBe(200);
    expect(t.fastPath!.served).toBe(before + 1);
    // The number is never served by the fast path: it redirects.
    expect((await rawRequest(port, `/sites/${id}/`)).status).toBe(301);
    expect((await rename(t, owner.token, id, 'quicker-site')).statusCode).toBe(200);
    const old = await rawRequest(port, '/sites/quick-site/');
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe('/sites/quicker-site/');
    expect((await rawRequest(port, '/sites/quicker-site/')).status).toBe(200);
  });
});

describe('site names: subdomains (SITES_ORIGIN + SITES_SUBDOMAINS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ sitesOrigin: 'http://sites.test', sitesSubdomains: true });
  });
  afterAll(() => t.close());
  const get = (host: string, url: string) => t.request({ url, headers: { host } });

  it('serves {name}.{sites host}, and moves p{id}, old names and paths there', async () => {
    const { id, owner } = await liveNamed(t, 'club');
    const page = await get('club.sites.test', '/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(SIMPLE_SITE[0]!.content);
    expect(page.headers['content-security-policy']).toBeUndefined();
    for (const [host, url, status, to] of [
      [`p${id}.sites.test`, '/css/style.css?v=1', 301, 'http://club.sites.test/css/style.css?v=1'],
      ['sites.test', '/sites/club/a', 302, 'http://club.sites.test/a'],
      ['sites.test', `/sites/${id}/`, 302, `http://p${id}.sites.test/`],
      ['app.test', '/sites/club/', 302, 'http://club.sites.test/'],
      ['c1ub.sites.test', '/', 301, 'http://club.sites.test/'],
    ] as const) {
      const res = await get(host, url);
      expect(res.statusCode, `${host}${url}`).toBe(status);
      expect(res.headers.location, `${host}${url}`).toBe(to);
    }
    const detail = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    expect(detail.json().data.project.access_url).toBe('http://club.sites.test/');
    expect((await rename(t, owner.token, id, 'society')).statusCode).toBe(200);
    const old = await get('club.sites.test', '/x');
    expect(old.statusCode).toBe(301);
    expect(old.headers.location).toBe('http://society.sites.test/x');
    expect((await get('society.sites.test', '/')).statusCode).toBe(200);
    // A label that can't be a name is the sites host, which serves nothing at its root.
    expect((await get('www.sites.test', '/')).statusCode).toBe(404);
    expect((await get('nobody-here.sites.test', '/')).statusCode).toBe(404);
  });
});

describe('site names: the sites port gives each site an origin under localhost', () => {
  let t: TestApp;
  let sitesPort: number;
  let appPort: number;
  let id: number;
  let plainId: number;
  beforeAll(async () => {
    sitesPort = await freePort();
    t = await createTestApp({ sitesPort });
    appPort = await listenPort(t);
    await listenSitesPort(t, t.config);
    ({ id } = await liveNamed(t, 'lighthouse'));
    ({ id: plainId } = await liveProject(t));
  });
  afterAll(() => t.close());
  const get = (port: number, url: string, host: string) => rawRequest(port, url, { headers: { host } });

  it('serves {name}.localhost and p{id}.localhost on the sites port, each its own origin', async () => {
    for (let i = 0; i < 2; i++) {
      const named = await get(sitesPort, '/', `lighthouse.localhost:${sitesPort}`);
      expect(named.status).toBe(200);
      expect(named.body.toString()).toBe(SIMPLE_SITE[0]!.content);
      expect(named.headers['content-security-policy']).toBeUndefined();
      const numbered = await get(sitesPort, '/css/style.css', `p${plainId}.localhost:${sitesPort}`);
      expect(numbered.status).toBe(200);
    }
  });

  it('moves localhost’s /sites/ paths onto the site’s own host, and numbers onto names', async () => {
    for (const [host, url, status, to] of [
      [
        `localhost:${sitesPort}`,
        '/sites/lighthouse/a?b',
        302,
        `http://lighthouse.localhost:${sitesPort}/a?b`,
      ],
      [`localhost:${sitesPort}`, `/sites/${id}/`, 301, `http://lighthouse.localhost:${sitesPort}/`],
      [`localhost:${sitesPort}`, `/sites/${plainId}/x`, 302, `http://p${plainId}.localhost:${sitesPort}/x`],
      [`p${id}.localhost:${sitesPort}`, '/x', 301, `http://lighthouse.localhost:${sitesPort}/x`],
      // Reached by an address, not by localhost: paths on the sites port, by name.
      [`127.0.0.1:${sitesPort}`, `/sites/${id}/`, 301, '/sites/lighthouse/'],
      [`192.168.1.5:${sitesPort}`, `/sites/${id}/x`, 301, '/sites/lighthouse/x'],
    ] as const) {
      const res = await get(sitesPort, url, host);
      expect(res.status, `${host}${url}`).toBe(status);
      expect(res.headers.location, `${host}${url}`).toBe(to);
    }
    const byAddress = await get(sitesPort, '/sites/lighthouse/', `127.0.0.1:${sitesPort}`);
    expect(byAddress.status).toBe(200);
    // The app port still sends everything to the sites port first.
    const fromApp = await get(appPort, '/sites/lighthouse/', `localhost:${appPort}`);
    expect(fromApp.status).toBe(302);
    expect(fromApp.headers.location).toBe(`http://localhost:${sitesPort}/sites/lighthouse/`);
    // The app is never on a site's host, whichever port.
    expect((await get(sitesPort, '/api/projects/public', `lighthouse.localhost:${sitesPort}`)).status).toBe(
      404,
    );
    expect((await get(appPort, '/api/projects/public', `lighthouse.localhost:${appPort}`)).status).toBe(200);
  });

  it('tells clients the sites port, to complete the relative addresses', async () => {
    const res = await t.request({ url: '/api/config/public' });
    expect(res.json().data).toMatchObject({ sites_port: sitesPort, sites_subdomains: false });
  });
});
