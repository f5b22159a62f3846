/**
 * The public showcase (docs/product.md "Showcase"): live and public projects only, public fields
 * only, Chinese search of any length over name, description and author, the three sorts, the
 * featured filter and paging — and a search index that follows every change at once.
 */
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedPool } from '../src/db/postgres-pool.js';
import { KEPT, PREPARED } from '../src/db/prepared.js';
import type { Database as Schema } from '../src/db/types.js';
import { nameSortKey } from '../src/domain/name-order.js';
import { BLOOM_BITS, bloomOf, gramBit } from '../src/search/bloom.js';
import {
  gramsOf,
  normaliseTerm,
  planAuthors,
  planOwners,
  planSearch,
  planWords,
  type SearchPlan,
  termGrams,
} from '../src/search/plan.js';
import { createSearchSql, QUEUE_BATCH } from '../src/search/sql.js';
import { searchText } from '../src/services/projects.js';
import { createShowcaseService } from '../src/services/showcase.js';
import {
  createTestApp,
  expectFailure,
  liveProject,
  review,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
  usingPostgres,
} from './helpers.js';

interface Card {
  id: number;
  name: string;
  description: string | null;
  featured: boolean;
  viewCount: number;
  owner: { username: string };
  [key: string]: unknown;
}

describe('showcase', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<TestApp['createUser']>>;
  let bob: Awaited<ReturnType<TestApp['createUser']>>;
  const ids: Record<string, number> = {};

  async function show(query = '') {
    const res = await t.request({ url: `/api/projects/public${query}` });
    expect(res.statusCode).toBe(200);
    const data = res.json().data as {
      projects: Card[];
      pagination: { current_page: number; total_pages: number; total_count: number; page_size: number };
    };
    return { ...data, names: data.projects.map((p) => p.name) };
  }
  const search = (term: string, extra = '') => show(`?search=${encodeURIComponent(term)}${extra}`);

  async function live(name: string, description: string, owner: { token: string }) {
    const res = await uploadProject(t, owner.token, { name, description, files: SIMPLE_SITE });
    const id = res.json().data.project.id as number;
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    ids[name] = id;
    return id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.createUser({ username: '李小龙' });
    bob = await t.createUser({ username: 'BobSmith' });
    await live('个人博客', '记录学习和生活的站点', alice);
    await live('贪吃蛇小游戏', '经典的 Snake 游戏，用 Canvas 实现', bob);
    await live('天气预报', '查询城市天气，数据可视化', alice);
    await live('100%_完成', '名字里有 LIKE 的特殊字符', bob);
    await live('ＦＵＬＬ宽', '全角字母的名字', bob);
  });
  afterAll(() => t.close());

  it('lists live public projects with public fields only', async () => {
    const { projects, pagination } = await show();
    expect(projects.length).toBe(5);
    expect(pagination).toMatchObject({
      current_page: 1,
      total_pages: 1,
      total_count: 5,
      total_capped: false,
    });
    const card = projects.find((p) => p.name === '个人博客')!;
    expect(Object.keys(card).sort()).toEqual(
      [
        'access_url',
        'description',
        'featured',
        'file_count',
        'file_size',
        'id',
        'name',
        'owner',
        'project_id',
        'project_name',
        'published_at',
        'site_name',
        'thumbnail_url',
        'viewCount',
      ].sort(),
    );
    expect(card).toMatchObject({
      id: ids.个人博客,
      project_name: '个人博客',
      description: '记录学习和生活的站点',
      file_count: 2,
      featured: false,
      viewCount: 0,
      access_url: `/sites/${ids.个人博客}/`,
      owner: { username: '李小龙' },
    });
    expect(card.owner).toEqual({ username: '李小龙' });
    expect(Date.parse(card.published_at as string)).toBeGreaterThan(0);
    expect(card.file_size).toBe(SIMPLE_SITE.reduce((n, f) => n + Buffer.byteLength(f.content), 0));
  });

  it('finds Chinese substrings of 1, 2 and 4 characters in names, descriptions and authors', async () => {
    expect((await search('博')).names).toEqual(['个人博客']);
    expect((await search('游')).names).toEqual(['贪吃蛇小游戏']);
    expect((await search('天气')).names).toEqual(['天气预报']);
    expect((await search('个人博客')).names).toEqual(['个人博客']);
    expect((await search('贪吃蛇小')).names).toEqual(['贪吃蛇小游戏']);
    // In descriptions: one character, two, four, across words.
    expect((await search('录')).names).toEqual(['个人博客']);
    expect((await search('城市')).names).toEqual(['天气预报']);
    expect((await search('数据可视')).names).toEqual(['天气预报']);
    // By author, whole or in part.
    expect((await search('李小龙')).names.sort()).toEqual(['个人博客', '天气预报']);
    expect((await search('小')).names.sort()).toEqual(['个人博客', '天气预报', '贪吃蛇小游戏']);
    expect((await search('龙')).pagination.total_count).toBe(2);
    // Counts match what is found.
    const de = await search('的');
    expect(de.pagination.total_count).toBe(4);
    expect(de.names.length).toBe(4);
  });

  it('is case-insensitive, folds full-width letters, and takes %, _ and \\ literally', async () => {
    expect((await search('snake')).names).toEqual(['贪吃蛇小游戏']);
    expect((await search('CANVAS')).names).toEqual(['贪吃蛇小游戏']);
    expect((await search('bobsmith')).pagination.total_count).toBe(3);
    expect((await search('full')).names).toEqual(['ＦＵＬＬ宽']);
    expect((await search('ｓｎａｋｅ')).names).toEqual(['贪吃蛇小游戏']);
    expect((await search('%')).names).toEqual(['100%_完成']);
    expect((await search('_')).names.sort()).toEqual(['100%_完成']);
    expect((await search('0%_完')).names).toEqual(['100%_完成']);
    expect((await search('\\')).names).toEqual([]);
    expect((await search('like 的特殊')).names).toEqual(['100%_完成']);
  });

  it('finds nothing for absent terms, terms spanning two fields, or over-long terms', async () => {
    for (const term of ['量子', '量', '量子力学', 'xyz', '博客记录']) {
      const r = await search(term);
      expect(r.names, term).toEqual([]);
      expect(r.pagination.total_count).toBe(0);
    }
    // Name '个人博客' then description '记录…': not one text.
    expect((await search('客记')).names).toEqual([]);
    const tooLong = await t.request({ url: `/api/projects/public?search=${'长'.repeat(101)}` });
    expect(tooLong.statusCode).toBe(400);
  });

  it('hides what is not live and public, and follows every change at once', async () => {
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, {
      name: '隐藏的星球',
      description: '待审核',
      files: SIMPLE_SITE,
    });
    const id = up.json().data.project.id as number;
    expect((await search('星球')).names).toEqual([]);
    await review(t, id, 'approve');
    expect((await search('星球')).names).toEqual(['隐藏的星球']);
    // Made private: unlisted.
    await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { is_public: false },
    });
    expect((await search('星球')).names).toEqual([]);
    expect((await show()).pagination.total_count).toBe(5);
    await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { is_public: true },
    });
    expect((await show()).pagination.total_count).toBe(6);
    // Renamed: found by the new name only.
    await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { name: '月亮之上' },
    });
    expect((await search('星球')).names).toEqual([]);
    expect((await search('月亮')).names).toEqual(['月亮之上']);
    expect((await search('亮之上')).names).toEqual(['月亮之上']);
    // A new version waiting for review keeps the live one listed.
    await uploadProject(t, owner.token, { projectId: id, files: SIMPLE_SITE });
    expect((await search('月亮')).names).toEqual(['月亮之上']);
    // Taken down, then deleted.
    await review(t, id, 'takedown', '违规');
    expect((await search('月亮')).names).toEqual([]);
    expect((await show()).pagination.total_count).toBe(5);
    await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
    expect((await search('月亮')).names).toEqual([]);
    expect((await show()).pagination.total_count).toBe(5);
  });

  /** Per indexed project on PostgreSQL: its gram set (migration 037) and its postings' grams, each sorted. */
  async function gramSets() {
    const entries = await sql<{ project_id: number; grams: string[] }>`
      select project_id, grams from showcase_entries order by project_id`.execute(t.ctx.db);
    const postings = await sql<{ project_id: number; gram: string }>`
      select project_id, gram from showcase_grams`.execute(t.ctx.db);
    const posted = new Map<number, string[]>();
    for (const r of postings.rows) posted.set(r.project_id, [...(posted.get(r.project_id) ?? []), r.gram]);
    return entries.rows.map((e) => ({
      id: e.project_id,
      sets: [...e.grams].sort(),
      postings: (posted.get(e.project_id) ?? []).sort(),
    }));
  }

  it.skipIf(!usingPostgres)(
    'keeps each entry’s gram set equal to its postings through every change, and searches by it (PostgreSQL)',
    async () => {
      const owner = await t.createUser();
      const up = await uploadProject(t, owner.token, {
        name: '银河列车',
        description: '星际旅行',
        files: SIMPLE_SITE,
      });
      const id = up.json().data.project.id as number;
      await review(t, id, 'approve');
      const steps: Array<[string, () => Promise<unknown>, string, string[]]> = [
        ['listed', async () => undefined, '河列车', ['银河列车']],
        [
          'renamed',
          () =>
            t.request({
              method: 'PUT',
              url: `/api/projects/${id}`,
              token: owner.token,
              body: { name: '极光列车' },
            }),
          '光列车',
          ['极光列车'],
        ],
        ['featured', () => review(t, id, 'publish'), '光列车 星际', ['极光列车']],
        ['unfeatured', () => review(t, id, 'unpublish'), '际旅行', ['极光列车']],
        ['taken down', () => review(t, id, 'takedown', '违规'), '光列车', []],
      ];
      for (const [step, change, term, names] of steps) {
        await change();
        // A search of three or more characters needs several grams: answered from the sets.
        expect((await search(term)).names, step).toEqual(names);
        const sets = await gramSets();
        expect(sets.length, step).toBeGreaterThan(0);
        for (const s of sets) expect(s.sets, `${step}: project ${s.id}`).toEqual(s.postings);
        expect(
          sets.some((s) => s.id === id),
          step,
        ).toBe(names.length > 0);
      }
      // The old name is in no set any more.
      expect((await search('河列车')).names).toEqual([]);
    },
  );

  it('refuses a search with control characters or over 100 characters, in Chinese, on every list', async () => {
    const admin = await t.adminToken();
    for (const url of ['/api/projects/public', '/api/admin/projects', '/api/admin/users']) {
      for (const term of ['\u0000', '游戏\u0000', 'a\u001fb', '游'.repeat(101)]) {
        const res = await t.request({ url: `${url}?search=${encodeURIComponent(term)}`, token: admin });
        expect(res.statusCode, `${url} ${JSON.stringify(term)}`).toBe(400);
        expect(res.json()).toMatchObject({ success: false, message: '搜索内容无效或过长' });
      }
    }
    // Spaces around a term are not part of it.
    expect((await search('  游戏  ')).pagination.total_count).toBe(
      (await search('游戏')).pagination.total_count,
    );
  });

  it('finds authors by the name they have for good: no request renames a user', async () => {
    // The author's name is copied into each project's search text; it can't go stale because
    // usernames never change (docs/decisions/accounts.md "Accounts and sessions").
    const own = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: alice.token,
      body: { username: '李大龙' },
    });
    expect(own.statusCode).toBe(400);
    const admin = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${alice.id}`,
      token: await t.adminToken(),
      body: { username: '李大龙' },
    });
    expect(admin.statusCode).toBe(400);
    expect((await search('李小龙')).names.sort()).toEqual(['个人博客', '天气预报']);
    expect((await search('李大龙')).names).toEqual([]);
  });

  it('sorts by latest, popular and name, and filters featured', async () => {
    const latest = (await show('?sort=latest')).names;
    expect(latest[0]).toBe('ＦＵＬＬ宽');
    expect(latest.at(-1)).toBe('个人博客');
    expect((await show()).names).toEqual(latest);

    await t.ctx.db.updateTable('projects').set({ view_count: 50 }).where('id', '=', ids.天气预报!).execute();
    await t.ctx.db.updateTable('projects').set({ view_count: 20 }).where('id', '=', ids.个人博客!).execute();
    expect((await show('?sort=popular')).names.slice(0, 2)).toEqual(['天气预报', '个人博客']);
    expect((await search('小', '&sort=popular')).names).toEqual(['天气预报', '个人博客', '贪吃蛇小游戏']);

    // Pinyin order (domain/name-order.ts): 100% · FULL · ge ren · tan chi · tian qi.
    expect((await show('?sort=name')).names).toEqual([
      '100%_完成',
      'ＦＵＬＬ宽',
      '个人博客',
      '贪吃蛇小游戏',
      '天气预报',
    ]);

    await review(t, ids.贪吃蛇小游戏!, 'publish');
    const featured = await show('?featured=true');
    expect(featured.names).toEqual(['贪吃蛇小游戏']);
    expect(featured.projects[0]!.featured).toBe(true);
    expect(featured.pagination.total_count).toBe(1);
    expect((await search('游戏', '&featured=true')).names).toEqual(['贪吃蛇小游戏']);
    expect((await search('天气', '&featured=true')).names).toEqual([]);
    expect((await search('snake', '&featured=1')).pagination.total_count).toBe(1);
    await review(t, ids.贪吃蛇小游戏!, 'unpublish');
    expect((await show('?featured=true')).names).toEqual([]);
    expect((await search('snake', '&featured=1')).pagination.total_count).toBe(0);

    const bad = await t.request({ url: '/api/projects/public?sort=random' });
    expect(bad.statusCode).toBe(400);
    // Paging parameters name what is wrong, with the list's own largest page size.
    for (const [query, message] of [
      ['page=abc', '页码无效'],
      ['page=0', '页码无效'],
      ['page=1e6', '页码无效'],
      ['page_size=61', '每页数量必须在1到60之间'],
      ['page_size=-1', '每页数量必须在1到60之间'],
    ]) {
      expectFailure(await t.request({ url: `/api/projects/public?${query}` }), 400, message);
    }
  });

  it('pages through results', async () => {
    const p1 = await show('?page_size=2&page=1&sort=name');
    const p2 = await show('?page_size=2&page=2&sort=name');
    const p3 = await show('?page_size=2&page=3&sort=name');
    expect(p1.pagination).toMatchObject({ current_page: 1, total_pages: 3, total_count: 5 });
    expect([...p1.names, ...p2.names, ...p3.names]).toEqual((await show('?sort=name')).names);
    expect((await show('?page=9')).projects).toEqual([]);
    const s2 = await search('的', '&page_size=1&page=2');
    expect(s2.projects.length).toBe(1);
    expect(s2.pagination.total_count).toBe(4);
  });

  it('finds many matches the same way whichever plan answers', async () => {
    const owner = await t.createUser({ username: 'bulkowner' });
    for (let i = 0; i < 14; i++) await live(`批量站点${i}`, i % 2 ? '双数说明' : '单数说明', owner);
    const all = await search('批量站点', '&page_size=5');
    expect(all.pagination.total_count).toBe(14);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++)
      seen.push(...(await search('批量站点', `&page_size=5&page=${page}`)).names);
    expect(new Set(seen).size).toBe(14);
    expect((await search('数说明')).pagination.total_count).toBe(14);
    expect((await search('单数')).pagination.total_count).toBe(7);
    expect((await search('bulkowner')).pagination.total_count).toBe(14);
  });

  it('finds the projects holding every word of a search, each anywhere, and by site name', async () => {
    const owner = await t.createUser({ username: 'lumen_dev' });
    // A site name given at upload, and one given later on the project's page.
    const up = await uploadProject(t, owner.token, {
      name: '路由测试站',
      description: '演示前端路由的页面',
      files: SIMPLE_SITE,
      fields: { site_name: 'route-demo' },
    });
    expect(up.statusCode).toBe(201);
    expect((await review(t, up.json().data.project.id, 'approve')).statusCode).toBe(200);
    const blog = await live('我的博客', '用 React 写的', owner);
    const renamed = await t.request({
      method: 'PUT',
      url: `/api/projects/${blog}`,
      token: owner.token,
      body: { site_name: 'notes-site' },
    });
    expect(renamed.statusCode).toBe(200);

    // Every word, each anywhere: in the name, the description, the site name or the author.
    expect((await search('路由 测试')).names).toEqual(['路由测试站']);
    expect((await search('  测试　 路由 ')).names).toEqual(['路由测试站']);
    expect((await search('react 博客')).names).toEqual(['我的博客']);
    expect((await search('页面 route')).names).toEqual(['路由测试站']);
    expect((await search('lumen 博客')).names).toEqual(['我的博客']);
    expect((await search('lumen dev')).names.sort()).toEqual(['我的博客', '路由测试站']);
    expect((await search('李小龙 博客')).names).toEqual(['个人博客']);
    // By the site's own name, whole or in part.
    expect((await search('route-demo')).names).toEqual(['路由测试站']);
    expect((await search('route')).names).toEqual(['路由测试站']);
    expect((await search('Notes-Site')).names).toEqual(['我的博客']);
    // A word that matches nothing, or words only different projects hold: nothing.
    for (const term of ['路由 量子', '博客 路由', 'react 量子力学', 'route-demo 博客', 'lumen 天气']) {
      const r = await search(term);
      expect(r.names, term).toEqual([]);
      expect(r.pagination.total_count, term).toBe(0);
    }
    // Eight words at most (search() expects 200): each is a test of every candidate.
    expect((await search('a b c d e f g h')).pagination.total_count).toBeGreaterThanOrEqual(0);
    expectFailure(
      await t.request({ url: `/api/projects/public?search=${encodeURIComponent('a b c d e f g h i')}` }),
      400,
      '搜索内容无效或过长',
    );
  });
});

describe('showcase search index', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps its counts equal to the projects it lists after any sequence of changes', async () => {
    const { id: a } = await liveProject(t, SIMPLE_SITE, { name: '甲项目' });
    const { id: b } = await liveProject(t, SIMPLE_SITE, { name: '乙项目' });
    await review(t, a, 'publish');
    await review(t, b, 'takedown', '下线');
    await t.request({ url: '/api/projects/public' });
    const listed = await t.ctx.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('live_deployment_id', 'is not', null)
      .where('is_public', '=', 1)
      .executeTakeFirstOrThrow();
    const totals = await t.ctx.db.selectFrom('showcase_totals').selectAll().executeTakeFirstOrThrow();
    expect(Number(totals.listed)).toBe(Number(listed.n));
    expect(Number(totals.featured)).toBe(1);
    const counts = await t.ctx.db
      .selectFrom('showcase_gram_counts')
      .select(['listed', 'featured'])
      .where('gram', '=', '项')
      .executeTakeFirstOrThrow();
    expect(Number(counts.listed)).toBe(1);
    expect(Number(counts.featured)).toBe(1);
    const queue = await t.ctx.db.selectFrom('showcase_queue').selectAll().execute();
    expect(queue).toEqual([]);
  });

  /** The author index as the listed projects say it should be, and as it is. */
  async function authorIndex() {
    const listed = await t.ctx.db
      .selectFrom('projects')
      .innerJoin('users', 'users.id', 'projects.owner_id')
      .select(['projects.owner_id', 'users.username', 'projects.featured'])
      .where('live_deployment_id', 'is not', null)
      .where('is_public', '=', 1)
      .execute();
    const want = new Map<number, { text: string; listed: number; featured: number }>();
    for (const p of listed) {
      const a = want.get(p.owner_id) ?? { text: normaliseTerm(p.username), listed: 0, featured: 0 };
      a.listed++;
      a.featured += p.featured ? 1 : 0;
      want.set(p.owner_id, a);
    }
    const wantGrams = [...want]
      .flatMap(([owner, a]) => [...gramsOf(a.text)].map((g) => `${g} ${owner}`))
      .sort();
    const wantCounts = new Map<string, number>();
    // Per gram: the listed and featured projects of the authors holding it.
    const wantProjects = new Map<string, [number, number]>();
    for (const a of want.values())
      for (const g of gramsOf(a.text)) {
        wantCounts.set(g, (wantCounts.get(g) ?? 0) + 1);
        const [l, f] = wantProjects.get(g) ?? [0, 0];
        wantProjects.set(g, [l + a.listed, f + a.featured]);
      }
    const rows = await t.ctx.db.selectFrom('showcase_authors').selectAll().execute();
    const grams = await t.ctx.db.selectFrom('showcase_author_grams').selectAll().execute();
    const counts = await t.ctx.db
      .selectFrom('showcase_gram_counts')
      .select(['gram', 'authors', 'author_listed', 'author_featured'])
      .where((eb) =>
        eb.or([eb('authors', '!=', 0), eb('author_listed', '!=', 0), eb('author_featured', '!=', 0)]),
      )
      .execute();
    return {
      want: {
        authors: [...want]
          .map(([owner, a]) => ({ owner_id: owner, ...a }))
          .sort((a, b) => a.owner_id - b.owner_id),
        grams: wantGrams,
        counts: Object.fromEntries([...wantCounts].sort()),
        projects: Object.fromEntries([...wantProjects].sort()),
      },
      have: {
        authors: rows
          .map((r) => ({
            owner_id: Number(r.owner_id),
            text: r.text,
            listed: Number(r.listed),
            featured: Number(r.featured),
          }))
          .sort((a, b) => a.owner_id - b.owner_id),
        grams: grams.map((g) => `${g.gram} ${g.owner_id}`).sort(),
        counts: Object.fromEntries(counts.map((c) => [c.gram, Number(c.authors)]).sort()),
        projects: Object.fromEntries(
          counts.map((c) => [c.gram, [Number(c.author_listed), Number(c.author_featured)]]).sort(),
        ),
      },
    };
  }

  it('indexes each author once, with their listed projects, as projects come and go', async () => {
    const one = await t.createUser({ username: 'Author_One' });
    const two = await t.createUser({ username: 'author_two' });
    const { id: a1 } = await liveProject(t, SIMPLE_SITE, { name: '作者一号甲', owner: one });
    const { id: a2 } = await liveProject(t, SIMPLE_SITE, { name: '作者一号乙', owner: one });
    const { id: b1 } = await liveProject(t, SIMPLE_SITE, { name: '作者二号甲', owner: two });
    const names = async (term: string) => {
      const res = await t.request({ url: `/api/projects/public?search=${encodeURIComponent(term)}` });
      expect(res.statusCode).toBe(200);
      return (res.json().data.projects as Array<{ name: string }>).map((p) => p.name).sort();
    };
    const check = async () => {
      await t.request({ url: '/api/projects/public' });
      const index = await authorIndex();
      expect(index.have).toEqual(index.want);
      return index.have;
    };

    let have = await check();
    expect(have.authors.find((a) => a.owner_id === one.id)).toMatchObject({ text: 'author_one', listed: 2 });
    expect(have.counts._t).toBe(1);
    expect(await names('author_')).toEqual(['作者一号乙', '作者一号甲', '作者二号甲']);
    // The author's name is not the projects' own text: no project's grams hold it.
    const own = await t.ctx.db.selectFrom('showcase_grams').select('gram').where('gram', '=', '_o').execute();
    expect(own).toEqual([]);

    expect((await review(t, a1, 'publish')).statusCode).toBe(200);
    have = await check();
    expect(have.authors.find((a) => a.owner_id === one.id)).toMatchObject({ listed: 2, featured: 1 });
    const featured = await t.request({ url: '/api/projects/public?search=author_one&featured=true' });
    expect(featured.json().data.projects.map((p: { name: string }) => p.name)).toEqual(['作者一号甲']);

    // The second author's only project goes: so do they, and their grams.
    expect((await review(t, b1, 'takedown', '下线')).statusCode).toBe(200);
    have = await check();
    expect(have.authors.some((a) => a.owner_id === two.id)).toBe(false);
    expect(have.counts._t).toBeUndefined();
    expect(await names('author_two')).toEqual([]);
    expect(await names('author')).toEqual(['作者一号乙', '作者一号甲']);

    const del = await t.request({ method: 'DELETE', url: `/api/projects/${a2}`, token: one.token });
    expect(del.statusCode).toBe(200);
    have = await check();
    expect(have.authors.find((a) => a.owner_id === one.id)).toMatchObject({ listed: 1, featured: 1 });
    expect(await names('AUTHOR_ONE')).toEqual(['作者一号甲']);
  });

  /** Queues `n` changes of projects that don't exist (nothing to list), ids from `first`. */
  async function queueMissing(first: number, n: number) {
    const ids = Array.from({ length: n }, (_, i) => first + i);
    for (let i = 0; i < ids.length; i += 500)
      await t.ctx.db
        .insertInto('showcase_queue')
        .values(ids.slice(i, i + 500).map((project_id) => ({ project_id })))
        .execute();
  }

  it('applies a backlog a batch at a time, letting other work run in between', async () => {
    // 2,500 queued changes make three batches.
    await queueMissing(1_000_001, 2500);
    let other = false;
    setImmediate(() => {
      other = true;
    });
    await createShowcaseService(t.ctx.db, t.database.dialect).refreshIndex();
    // SQLite answers synchronously: without a turn of the event loop between batches, the
    // immediate would run only after the whole backlog was applied.
    expect(other).toBe(true);
    expect(await t.ctx.db.selectFrom('showcase_queue').selectAll().execute()).toEqual([]);
  });

  it('answers from the index as it stands during a backlog, and applies a short queue first', async () => {
    const queued = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('showcase_queue')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const names = async () => {
      const res = await t.request({ url: '/api/projects/public?search=%E9%A1%B9%E7%9B%AE' });
      expect(res.statusCode).toBe(200);
      return (res.json().data.projects as Array<{ name: string }>).map((p) => p.name).sort();
    };
    // A short queue (one change) is applied before the answer.
    await liveProject(t, SIMPLE_SITE, { name: '丙项目' });
    expect(await names()).toContain('丙项目');
    expect(await queued()).toBe(0);

    // A backlog longer than a batch is left to the background
    // job: the answer comes at once from the index as it stands, the backlog untouched.
    await queueMissing(2_000_001, 1500);
    await liveProject(t, SIMPLE_SITE, { name: '丁项目' });
    const during = await names();
    expect(during).toContain('丙项目');
    expect(during).not.toContain('丁项目');
    expect(await queued()).toBe(1501);

    await createShowcaseService(t.ctx.db, t.database.dialect).refreshIndex();
    expect(await queued()).toBe(0);
    expect(await names()).toContain('丁项目');
  });
});

describe('showcase search against a plain substring filter', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('finds exactly what a substring test finds, whichever plan and narrowing answer', async () => {
    // 400 projects straight into the tables, from a small vocabulary so terms repeat a lot, by
    // three authors whose names share parts with it and with each other.
    const words = [
      '个人',
      '博客',
      '小游戏',
      '贪吃蛇',
      '天气',
      '站点',
      '展示',
      'react',
      'demo',
      '地图',
      '相册',
      '音乐',
    ];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = () => words[Math.floor(rand() * words.length)]!;
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
    const owners = [
      await t.createUser({ username: 'zhang_react' }),
      await t.createUser({ username: 'li_demo' }),
      await t.createUser({ username: '王璐璐' }),
    ];
    const texts = new Map<
      number,
      { text: string; featured: boolean; listed: boolean; approved: string; views: number }
    >();
    for (let i = 0; i < 400; i++) {
      const owner = owners[rand() < 0.5 ? 0 : rand() < 0.5 ? 1 : 2]!;
      const name = `${pick()}${pick()}`;
      const description = Array.from({ length: 1 + Math.floor(rand() * 6) }, pick).join(
        rand() < 0.5 ? '' : '，',
      );
      const listed = rand() < 0.9;
      const featured = rand() < 0.2;
      const p = await t.ctx.db
        .insertInto('projects')
        .values({
          owner_id: owner.id,
          name,
          description,
          status: featured ? 'published' : 'approved',
          is_public: 1,
          live_deployment_id: null,
          latest_deployment_id: null,
          featured: featured ? 1 : 0,
          view_count: Math.floor(rand() * 1000),
          download_count: 0,
          approved_at: at(i),
          approved_by: null,
          published_at: null,
          created_at: at(i),
          updated_at: at(i),
          search_text: `${name}\n${description}\n${owner.username}`.toLowerCase(),
        })
        .returning(['id', 'view_count'])
        .executeTakeFirstOrThrow();
      const d = await approvedVersion(t, p.id, owner.id, at(i));
      if (listed) {
        await t.ctx.db
          .updateTable('projects')
          .set({ live_deployment_id: d })
          .where('id', '=', p.id)
          .execute();
      }
      texts.set(p.id, {
        text: `${name}\n${description}\n${owner.username}`.toLowerCase(),
        featured,
        listed,
        approved: at(i),
        views: Number(p.view_count),
      });
    }
    const repo = t.ctx.showcase;
    // The same index with a small count cap: counts of longer terms stop at it (or one past the
    // page asked), the pages stay the same.
    const cap = 15;
    const terms = [
      '个',
      '博客',
      '小游戏',
      '戏贪吃',
      '人博客',
      '个人博客个人',
      '博客，',
      'react',
      'zhang_react',
      '站点展示',
      '图相',
      '地图地图',
      '量子',
      'o',
      'demo',
      'li_',
      '璐',
      '王',
      'a',
      'zhang',
      'react，',
      // Several words, each held somewhere (docs/decisions/serving.md): own text only, own text
      // with a word an author's name may hold, every word an author's, none at all.
      '个人 博客',
      '博客 react',
      '王 地图 相册',
      'a 博客',
      'zhang react',
      'demo li_',
      '璐 王',
      '天气 zhang 小游戏',
      '博客 量子',
      // Found author by author (docs/decisions/serving.md "Owners on the postings"): a word in one
      // author's name and another in another's, an author's name holding every word, words a name
      // holds beside words no own text has.
      'react demo',
      'zhang_react 地图 天气',
      '王璐 相册',
      'react zhang',
      '璐 li_ 博客',
    ];
    /** Listed (featured) projects whose own text and whose author both hold the term. */
    const overlapOf = (term: string, featured: boolean) =>
      [...texts].filter(([, p]) => {
        const lines = p.text.split('\n');
        return (
          p.listed &&
          (!featured || p.featured) &&
          lines.at(-1)!.includes(term) &&
          lines.slice(0, -1).some((line) => line.includes(term))
        );
      }).length;
    /** Searches of several words found author by author (planOwners) as well. */
    const byOwners = new Set<string>();
    /** Each page and count of a search of several words against the filter, whichever plan answers. */
    const expectWords = async (term: string) => {
      const words = term.split(' ');
      const ids = (rows: { id: number }[]) => rows.map((r) => Number(r.id));
      for (const featured of [false, true]) {
        const expected = [...texts]
          .filter(([, p]) => p.listed && (!featured || p.featured))
          .filter(([, p]) => words.every((w) => p.text.split('\n').some((line) => line.includes(w))))
          .sort((a, b) => (a[1].approved < b[1].approved ? 1 : -1))
          .map(([id]) => id);
        for (const pageSize of [5, 60]) {
          const found: number[] = [];
          const foundCapped: number[] = [];
          const cappedRepo = createShowcaseService(t.ctx.db, t.database.dialect, { countCap: cap });
          for (let page = 1; page <= Math.ceil(expected.length / pageSize) + 1; page++) {
            const label = `${term} featured=${featured} pageSize=${pageSize} page=${page}`;
            const r = await repo.list({ search: term, sort: 'latest', featured, page, pageSize });
            expect(r.total, label).toBe(expected.length);
            expect(r.capped, label).toBe(false);
            found.push(...ids(r.rows));
            // Counted up to the limit, as a longer term is: "N+" past it.
            const limit = Math.max(cap, page * pageSize + 1);
            const c = await cappedRepo.list({ search: term, sort: 'latest', featured, page, pageSize });
            expect(c.capped, label).toBe(expected.length >= limit);
            expect(c.total, label).toBe(Math.min(expected.length, limit));
            foundCapped.push(...ids(c.rows));
          }
          expect(found, `${term} featured=${featured} pageSize=${pageSize}`).toEqual(expected);
          expect(foundCapped, `${term} featured=${featured} pageSize=${pageSize} capped`).toEqual(expected);
        }
        // Every way of fetching a page gives the same page.
        const search = createSearchSql(t.ctx.db, t.database.dialect);
        const info = await search.overview([...new Set(words.flatMap(termGrams))]);
        const counts = [...info.counts];
        const planned = planWords(words, {
          featured,
          listed: featured ? info.featured : info.listed,
          holders: new Map(counts.map(([g, c]) => [g, featured ? c.featured : c.listed])),
          authorHolders: new Map(counts.map(([g, c]) => [g, c.authors])),
          authorProjects: new Map(counts.map(([g, c]) => [g, featured ? c.authorFeatured : c.authorListed])),
          dialect: t.database.dialect,
        });
        if (!planned) expect(expected, term).toEqual([]);
        // Author by author: the count and the page in one pass.
        const owners = planOwners(words, {
          featured,
          listed: featured ? info.featured : info.listed,
          holders: new Map(counts.map(([g, c]) => [g, featured ? c.featured : c.listed])),
          authorHolders: new Map(counts.map(([g, c]) => [g, c.authors])),
          dialect: t.database.dialect,
        });
        if (owners) byOwners.add(term);
        for (const page of owners ? [1, 2, 3] : []) {
          const q = { sort: 'latest' as const, featured, page, pageSize: 5 };
          const r = await search.countAndSortByOwners(owners!, q, 1000);
          expect(r.n, `${term} counted by owners`).toBe(expected.length);
          expect(ids(r.rows), `${term} sorted by owners`).toEqual(expected.slice((page - 1) * 5, page * 5));
          // Walked as counted: the owner among the authors, or the own text holding every word.
          expect(ids(await search.walkByOwners(owners!, q)), `${term} walked by owners`).toEqual(
            expected.slice((page - 1) * 5, page * 5),
          );
          expect(
            ids(await search.walkByOwners(owners!, q, true)),
            `${term} walked by owners, the own text's gram hashed`,
          ).toEqual(expected.slice((page - 1) * 5, page * 5));
          // Walked within the first 40 listed projects (in scope): the matches among them.
          const first = new Set(
            [...texts]
              .filter(([, p]) => p.listed && (!featured || p.featured))
              .sort((a, b) => (a[1].approved < b[1].approved ? 1 : -1))
              .slice(0, 40)
              .map(([id]) => id),
          );
          expect(
            ids(await search.walkByOwners(owners!, q, false, 40)),
            `${term} walked by owners within the first 40`,
          ).toEqual(expected.filter((id) => first.has(id)).slice((page - 1) * 5, page * 5));
        }
        for (const page of planned ? [1, 2, 3] : []) {
          const q = { sort: 'latest' as const, featured, page, pageSize: 5 };
          const want = expected.slice((page - 1) * 5, page * 5);
          const { plan, authors } = planned!;
          if (!authors) {
            for (const [way, p] of candidateWays(plan!)) {
              expect(ids(await search.sortAll(p, q)), `${term} sorted ${way}`).toEqual(want);
              expect(await search.count(p, 1000), `${term} counted ${way}`).toBe(expected.length);
            }
            expect(ids(await search.walk(plan!, q, false)), `${term} walked`).toEqual(want);
            expect(ids(await search.walk(plan!, q, true)), `${term} walked, hashed`).toEqual(want);
            continue;
          }
          for (const [way, p] of plan ? candidateWays(plan) : [['', plan] as const])
            expect(ids(await search.sortMixed(p, authors, q)), `${term} sorted with authors ${way}`).toEqual(
              want,
            );
          expect(ids(await search.walkMixed(plan, authors, q)), `${term} walked with authors`).toEqual(want);
          expect(
            ids(await search.walkMixed(plan, authors, q, false, true)),
            `${term} walked with authors, the text's gram hashed`,
          ).toEqual(want);
          if (authors.exact)
            expect(
              ids(await search.walkMixed(plan, authors, q, true)),
              `${term} walked, owners probed`,
            ).toEqual(want);
        }
      }
    };
    for (const term of terms) {
      if (term.includes(' ')) {
        await expectWords(term);
        continue;
      }
      const byAuthor = owners.some((o) => o.username.toLowerCase().includes(term));
      for (const featured of [false, true]) {
        const expected = [...texts]
          .filter(([, p]) => p.listed && (!featured || p.featured))
          .filter(([, p]) => p.text.split('\n').some((line) => line.includes(term)))
          .sort((a, b) => (a[1].approved < b[1].approved ? 1 : -1))
          .map(([id]) => id);
        // Small pages reach deep offsets, where the plan flips from walking to sorting everything.
        for (const pageSize of [5, 60]) {
          const found: number[] = [];
          for (let page = 1; page <= Math.ceil(expected.length / pageSize) + 1; page++) {
            const r = await repo.list({ search: term, sort: 'latest', featured, page, pageSize });
            expect(r.total, `${term} featured=${featured}`).toBe(expected.length);
            expect(r.capped).toBe(false);
            found.push(...r.rows.map((row) => row.id));
          }
          expect(found, `${term} featured=${featured} pageSize=${pageSize}`).toEqual(expected);
          // A new one each time: a count it remembers from deep pages would be exact.
          const cappedRepo = createShowcaseService(t.ctx.db, t.database.dialect, { countCap: cap });
          const foundCapped: number[] = [];
          for (let page = 1; page <= Math.ceil(expected.length / pageSize) + 1; page++) {
            const r = await cappedRepo.list({ search: term, sort: 'latest', featured, page, pageSize });
            const limit = Math.max(cap, page * pageSize + 1);
            // The projects' own text is counted up to the limit; an author's are counted whole.
            const textMatches = [...texts].filter(
              ([, p]) =>
                p.listed &&
                (!featured || p.featured) &&
                p.text
                  .split('\n')
                  .slice(0, -1)
                  .some((line) => line.includes(term)),
            ).length;
            const long = Array.from(term).length > 2;
            const label = `${term} featured=${featured} page=${page}`;
            // A longer term is counted up to the limit: "N+" once its text's matches reach it, or
            // (when its text holds it at all) the projects of the authors it names alone do.
            const authorProjects = expected.length - textMatches + overlapOf(term, featured);
            if (long && textMatches >= limit) expect(r.capped, label).toBe(true);
            if (long && textMatches > 0 && authorProjects >= limit) expect(r.capped, label).toBe(true);
            if (!long || (textMatches < limit && authorProjects < limit)) expect(r.capped, label).toBe(false);
            if (!r.capped) expect(r.total, label).toBe(expected.length);
            else if (!byAuthor) expect(r.total, label).toBe(limit);
            else {
              // At least the limit and every project of the authors it names, at most every match.
              expect(r.total, label).toBeGreaterThanOrEqual(Math.max(limit, authorProjects));
              expect(r.total, label).toBeLessThanOrEqual(expected.length);
            }
            foundCapped.push(...r.rows.map((row) => row.id));
          }
          expect(foundCapped, `${term} featured=${featured} pageSize=${pageSize} capped`).toEqual(expected);
        }
        // Every way of fetching a page gives the same page, whichever the service picks by cost
        // (plan.ts pageStrategy): sorting every match, walking with the rarest gram probed per
        // project, and (PostgreSQL) walking with its holders in a hash.
        const search = createSearchSql(t.ctx.db, t.database.dialect);
        const normalised = normaliseTerm(term);
        const info = await search.overview(termGrams(normalised));
        const plan = planSearch(normalised, {
          featured,
          listed: featured ? info.featured : info.listed,
          holders: new Map([...info.counts].map(([g, c]) => [g, featured ? c.featured : c.listed])),
          dialect: t.database.dialect,
        });
        const authors = planAuthors(normalised, new Map([...info.counts].map(([g, c]) => [g, c.authors])));
        // An author's name holds the term exactly when the author plan finds them.
        expect(authors !== null && (await search.authorSummary(authors, false)).authors > 0, term).toBe(
          byAuthor,
        );
        if (authors && byAuthor) {
          // Sorting the text's matches and the authors' projects together, or walking with both
          // tests, gives the same pages.
          for (const page of [1, 2, 3]) {
            const q = { sort: 'latest' as const, featured, page, pageSize: 5 };
            const want = expected.slice((page - 1) * 5, page * 5);
            const ids = (rows: { id: number }[]) => rows.map((r) => Number(r.id));
            for (const [way, p] of plan ? candidateWays(plan) : [['', plan] as const])
              expect(
                ids(await search.sortMixed(p, authors, q)),
                `${term} sorted with authors ${way}`,
              ).toEqual(want);
            expect(ids(await search.walkMixed(plan, authors, q)), `${term} walked with authors`).toEqual(
              want,
            );
            // A 1–2 character term's walk may probe each owner among the gram's holders instead.
            if (authors.exact)
              expect(
                ids(await search.walkMixed(plan, authors, q, true)),
                `${term} walked, owners probed`,
              ).toEqual(want);
          }
          continue;
        }
        // No plan: a gram of the term has no holder, so nothing matches.
        if (!plan) expect(expected, term).toEqual([]);
        for (const page of plan ? [1, 2, 3] : []) {
          const q = { sort: 'latest' as const, featured, page, pageSize: 5 };
          const want = expected.slice((page - 1) * 5, page * 5);
          const ids = (rows: { id: number }[]) => rows.map((r) => Number(r.id));
          for (const [way, p] of candidateWays(plan!)) {
            expect(ids(await search.sortAll(p, q)), `${term} sorted ${way}`).toEqual(want);
            expect(await search.count(p, 1000), `${term} counted ${way}`).toBe(expected.length);
          }
          expect(ids(await search.walk(plan!, q, false)), `${term} walked`).toEqual(want);
          expect(ids(await search.walk(plan!, q, true)), `${term} walked, hashed`).toEqual(want);
        }
        const popular = await repo.list({ search: term, sort: 'popular', featured, page: 1, pageSize: 60 });
        const views = popular.rows.map((r) => Number(r.view_count));
        expect(views).toEqual([...views].sort((a, b) => b - a));
      }
    }
    // Every search of several words that an author's name may hold a word of went author by author too.
    expect([...byOwners].sort()).toEqual(
      [
        'react demo',
        'zhang_react 地图 天气',
        '王璐 相册',
        'react zhang',
        '璐 li_ 博客',
        '博客 react',
        '王 地图 相册',
        'zhang react',
        'demo li_',
        '璐 王',
        '天气 zhang 小游戏',
        'a 博客',
      ].sort(),
    );
  });
});

/**
 * The plan with its candidates found each way there is (search/sql.ts matching): from the gram
 * sets (PostgreSQL), or from the rarest gram's postings with the narrowing grams joined, or
 * probed; a plan with no narrowing gram has one way.
 */
function candidateWays(plan: SearchPlan): Array<[string, SearchPlan]> {
  if (plan.narrows.length === 0) return [['', plan]];
  return [
    ['gram sets', { ...plan, sets: true }],
    ['postings joined', { ...plan, sets: false, joined: plan.narrows.map(() => true) }],
    ['postings probed', { ...plan, sets: false, joined: plan.narrows.map(() => false) }],
  ];
}

/** A plan for a term held by the one listed project `甲项目` (its rarest gram 项目), without planning. */
function onePlan(term: string, exact: boolean, dialect: SearchPlan['dialect']): SearchPlan {
  return {
    term,
    words: [term],
    either: [],
    dialect,
    featured: false,
    exact,
    listed: 1,
    rarest: '项目',
    rarestHolders: 1,
    narrows: [],
    joined: [],
    sets: false,
    expected: 1,
  };
}

describe.skipIf(usingPostgres)('showcase search on SQLite', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await liveProject(t, SIMPLE_SITE, { name: '甲项目' });
    await createShowcaseService(t.ctx.db, t.database.dialect).refreshIndex();
  });
  afterAll(() => t.close());

  it("walks a page in an order index alone, reading a project's row only for the page", async () => {
    if (t.config.database.kind !== 'sqlite') throw new Error('SQLite only');
    const raw = new Database(t.config.database.file);
    const ran: CompiledQuery[] = [];
    const db = new Kysely<Schema>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => {
        ran.push(event.query);
      },
    });
    try {
      const search = createSearchSql(db, 'sqlite');
      const plan = (term: string, exact: boolean) => onePlan(term, exact, 'sqlite');
      const indexOf = { latest: 'showcase_latest', popular: 'showcase_popular', name: 'showcase_name_key' };
      for (const sort of ['latest', 'popular', 'name'] as const) {
        for (const p of [plan('项目', true), plan('甲项目', false)]) {
          ran.length = 0;
          const rows = await search.walk(p, { sort, featured: false, page: 1, pageSize: 12 });
          expect(rows.map((r) => r.name)).toEqual(['甲项目']);
          const query = ran.at(-1)!;
          const steps = (
            raw.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as Array<{
              detail: string;
            }>
          ).map((r) => r.detail);
          // Each walked project is tested from the index (its featured flag included), not its row.
          expect(steps, `${sort} ${p.term}`).toContain(`SCAN p USING COVERING INDEX ${indexOf[sort]}`);
        }
      }
    } finally {
      await db.destroy();
    }
  });
});

/**
 * `count` live public projects of `owner` named `name`1…, approved a minute apart from `from`,
 * each with an approved version, inserted straight into the tables (search text as the server
 * writes it: name, no description, the owner's username).
 */
/** A first version of project `projectId`, approved at `at` (one 1-byte page), and its id. */
async function approvedVersion(t: TestApp, projectId: number, owner: number, at: string): Promise<number> {
  const d = await t.ctx.db
    .insertInto('deployments')
    .values({
      project_id: projectId,
      version: 1,
      status: 'approved',
      upload_type: 'files',
      upload_source: 'files',
      file_count: 1,
      total_size: 1,
      entry_file: 'index.html',
      created_by: owner,
      created_at: at,
      reviewed_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return d.id;
}

async function listedProjects(t: TestApp, owner: number, name: string, count: number, from: string) {
  await sql`insert into projects (owner_id, name, description, status, is_public, featured, view_count,
      download_count, approved_at, created_at, updated_at, search_text)
    select ${owner}, ${name} || n, null, 'approved', 1, 0, 0, 0,
      to_char(${from}::timestamp + n * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"'), ${from}, ${from},
      ${name} || n || chr(10) || chr(10) || (select username from users where id = ${owner})
    from generate_series(1, ${count}) n`.execute(t.ctx.db);
  await sql`insert into deployments (project_id, version, status, upload_type, upload_source, file_count,
      total_size, entry_file, created_by, created_at)
    select id, 1, 'approved', 'files', 'files', 1, 1, 'index.html', owner_id, created_at
    from projects where owner_id = ${owner} and live_deployment_id is null`.execute(t.ctx.db);
  await sql`update projects p set live_deployment_id = d.id from deployments d
    where d.project_id = p.id and p.owner_id = ${owner} and p.live_deployment_id is null`.execute(t.ctx.db);
}

/**
 * A database handle of one PostgreSQL connection to the test app's schema, through the app's own
 * pool (so its prepared statements can be read on that connection), with more settings
 * (`-c name=value …`) and the queries it runs logged to `log`.
 */
function oneConnection(t: TestApp, settings = '', log?: (query: CompiledQuery) => void): Kysely<Schema> {
  if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
  const { url, schema } = t.config.database;
  return new Kysely<Schema>({
    dialect: new PostgresDialect({
      pool: new GuardedPool(
        { connectionString: url, max: 1, options: `-c search_path=${schema} ${settings}` },
        { connectMs: 2_000, acquireMs: 5_000, statementMs: 30_000 },
        { open: true },
      ),
    }),
    ...(log ? { log: (event) => log(event.query) } : {}),
  });
}

describe.skipIf(!usingPostgres)('the showcase’s unsearched page on PostgreSQL', () => {
  // An app of its own: the test analyzes the projects, which would change the plans the tests of
  // the search's statements look at.
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('keeps the unsearched page prepared on a connection, and the kept plan shows every change', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const db = oneConnection(t, '-c join_collapse_limit=1');
    try {
      const showcase = createShowcaseService(db, 'postgres');
      // The statements planned once (a search's are kept apart: the next test).
      const kept = async () =>
        (
          await sql<{
            statement: string;
          }>`select statement from pg_prepared_statements where statement like ${`${PREPARED}%`}
              order by prepare_time`.execute(db)
        ).rows.map((r) => r.statement);
      const owner = await t.createUser({ username: 'kept_lists' });
      const latest = { sort: 'latest', featured: false, page: 1, pageSize: 3 } as const;
      const before = await showcase.list(latest);
      expect(await kept()).toHaveLength(1);
      expect((await kept())[0]).toMatch(/^\/\* prepared \*\/ select .* limit 3 offset 0\b/s);
      // Newer than every other project: the kept plan lists them first, and counts them.
      await listedProjects(t, owner.id, '预备', 2, '2030-01-01');
      const after = await showcase.list(latest);
      expect(after.total).toBe(before.total + 2);
      expect(after.rows.map((p) => p.name).slice(0, 2)).toEqual(['预备2', '预备1']);
      // New statistics invalidate the plan; the page answers the same.
      await sql`analyze projects`.execute(db);
      expect((await showcase.list(latest)).rows.map((p) => p.id)).toEqual(after.rows.map((p) => p.id));
      // Another sort and page is another statement; a search is never planned once (its values are parameters).
      const popular = await showcase.list({ ...latest, sort: 'popular', page: 2 });
      expect(popular.total).toBe(after.total);
      await showcase.list({ ...latest, search: '预备' });
      const statements = await kept();
      expect(statements).toHaveLength(2);
      expect(statements[1]).toMatch(/order by p\.view_count desc, p\.id desc limit 3 offset 3\b/);
    } finally {
      await db.destroy();
    }
  });

  it('keeps a search’s statements parsed on a connection, one for each shape whatever its words', async () => {
    const db = oneConnection(t, '-c join_collapse_limit=1');
    try {
      const showcase = createShowcaseService(db, 'postgres', { rememberCounts: false });
      const kept = async () =>
        (
          await sql<{ statement: string; plans: number }>`select statement,
              generic_plans + custom_plans as plans from pg_prepared_statements
              where statement like ${`${KEPT}%`} order by prepare_time`.execute(db)
        ).rows.map((r) => ({ statement: r.statement, plans: Number(r.plans) }));
      const owner = await t.createUser({ username: 'kept_searches' });
      await listedProjects(t, owner.id, '备忘', 3, '2031-01-01');
      await listedProjects(t, owner.id, '便签', 3, '2031-02-01');
      const page = { sort: 'latest', featured: false, page: 1, pageSize: 12 } as const;
      const first = await showcase.list({ ...page, search: '备忘' });
      expect(first.rows.map((p) => p.name)).toEqual(['备忘3', '备忘2', '备忘1']);
      const once = await kept();
      // The grams' counts (asked again once the changes above were indexed), then the page: its
      // words as parameters.
      expect(once.length).toBeGreaterThanOrEqual(2);
      expect(once.some((s) => s.statement.includes('备忘'))).toBe(false);
      // Other words of the same shape: the same statements, asked again by name, and their answer.
      const second = await showcase.list({ ...page, search: '便签' });
      expect(second.rows.map((p) => p.name)).toEqual(['便签3', '便签2', '便签1']);
      const twice = await kept();
      expect(twice.map((s) => s.statement)).toEqual(once.map((s) => s.statement));
      expect(twice.every((s, i) => s.plans > once[i]!.plans)).toBe(true);
      // Longer terms of one shape (a bigram narrowed by another, its text tested): one statement too.
      expect((await showcase.list({ ...page, search: '备忘3' })).rows.map((p) => p.name)).toEqual(['备忘3']);
      const longer = await kept();
      expect((await showcase.list({ ...page, search: '便签2' })).rows.map((p) => p.name)).toEqual(['便签2']);
      expect((await kept()).map((s) => s.statement)).toEqual(longer.map((s) => s.statement));
      expect(longer.some((s) => /备忘|便签/.test(s.statement))).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});

describe.skipIf(!usingPostgres)('showcase search on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('plans with each common gram’s real count and joins in the order written', async () => {
    const target = await sql<{ attstattarget: number }>`select attstattarget from pg_attribute
      where attrelid = 'showcase_grams'::regclass and attname = 'gram'`.execute(t.ctx.db);
    expect(Number(target.rows[0]!.attstattarget)).toBe(1000);
    // Every connection of the pool, not just one: the search may run on any.
    const limits = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.ctx.db.connection().execute((c) =>
          sql<{ limit: string; jit: string }>`select current_setting('join_collapse_limit') as limit,
              current_setting('jit') as jit`.execute(c),
        ),
      ),
    );
    expect(limits.map((r) => r.rows[0]!.limit)).toEqual(['1', '1', '1', '1']);
    // No plan is compiled first (14 ms for a walk at 1,000,000 projects that ran in 4).
    expect(limits.map((r) => r.rows[0]!.jit)).toEqual(['off', 'off', 'off', 'off']);
  });

  it('walks with the rarest gram in a hashed subplan, in the order index, when the plan says so', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const ran: CompiledQuery[] = [];
    const logged = oneConnection(t, '-c join_collapse_limit=1', (query) => ran.push(query));
    const search = createSearchSql(logged, 'postgres');
    const plan = onePlan('项目', true, 'postgres');
    for (const hashed of [true, false]) {
      ran.length = 0;
      await search.walk(plan, { sort: 'latest', featured: false, page: 1, pageSize: 12 }, hashed);
      const query = ran.at(-1)!;
      const explained = await t.ctx.db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
      );
      const text = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text, text).toContain('showcase_latest');
      expect(text.includes('hashed SubPlan'), text).toBe(hashed);
    }
    await logged.destroy();
  });

  it('walks a page while counting its matches, and walks it whole when the first projects hold less', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const author = await t.createUser({ username: 'zhang_react' });
    const other = await t.createUser({ username: 'other_one' });
    // zhang_react's 40 projects are the oldest, other_one's 70 the newest: every project holds
    // 地图, and zhang 地图 finds zhang_react's 40.
    await listedProjects(t, author.id, '地图', 40, '2024-01-01');
    await listedProjects(t, other.id, '地图天气', 70, '2025-01-01');
    // Counted up to 30 (500+ at scale), expected past it (every project holds 地图, zhang_react's
    // 40 of 110 may hold zhang): the page is walked while the matches are counted, within the
    // first 74 listed projects (4 × 5 × 110 / 30, rounded up), of which zhang_react’s hold only 4: the page
    // is then walked whole.
    const showcase = createShowcaseService(t.ctx.db, 'postgres', { countCap: 30, rememberCounts: false });
    for (const page of [1, 2]) {
      const r = await showcase.list({
        search: 'zhang 地图',
        sort: 'latest',
        featured: false,
        page,
        pageSize: 5,
      });
      expect(r.total).toBe(30);
      expect(r.capped).toBe(true);
      expect(r.rows.map((p) => p.name)).toEqual(
        Array.from({ length: 5 }, (_, i) => `地图${40 - (page - 1) * 5 - i}`),
      );
    }
  });

  it('walks the page of a search found author by author while counting its matches, when a walk finds it sooner than a sort', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const author = await t.createUser({ username: 'wang_vue' });
    const other = await t.createUser({ username: 'other_two' });
    const listed = (owner: number, name: string, count: number, from: string) =>
      listedProjects(t, owner, name, count, from);
    // wang_vue's 100 projects (花园), newer than other_two's 20 (花园天气): wang 花园 finds the 100,
    // as many as expected, most of those listed, so a walk of a few projects finds a page where a
    // sort would read all 100. The count (under its limit) sorts nothing.
    await listed(author.id, '花园', 100, '2030-01-01');
    await listed(other.id, '花园天气', 20, '2029-01-01');
    const ran: CompiledQuery[] = [];
    const logged = oneConnection(t, '', (query) => ran.push(query));
    const showcase = createShowcaseService(logged, 'postgres', { rememberCounts: false });
    const bounded = /limit \$\d+\) p\b/;
    try {
      // A deep page (21: past the last) is cheaper sorted: the count sorts, and nothing is walked.
      for (const [page, names, walked] of [
        [1, ['花园100', '花园99', '花园98', '花园97', '花园96'], true],
        [3, ['花园90', '花园89', '花园88', '花园87', '花园86'], true],
        [21, [], false],
      ] as const) {
        ran.length = 0;
        const r = await showcase.list({
          search: 'wang 花园',
          sort: 'latest',
          featured: false,
          page,
          pageSize: 5,
        });
        expect(r.total).toBe(100);
        expect(r.capped).toBe(false);
        expect(r.rows.map((p) => p.name)).toEqual(names);
        const pages = ran.filter((query) => query.sql.includes('as page_id'));
        const counts = pages.filter((query) => query.sql.includes('as matches'));
        expect(counts.map((query) => query.sql.includes('and false'))).toEqual([walked]);
        const walks = pages.filter((query) => !query.sql.includes('as matches'));
        expect(walks.map((query) => bounded.test(query.sql))).toEqual(walked ? [true] : []);
      }
    } finally {
      await logged.destroy();
    }
  });

  it('walks a one-word page while counting its matches, and walks it whole when the first projects hold less', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const owner = await t.createUser({ username: 'one_word_owner' });
    const listed = (name: string, count: number, from: string) =>
      listedProjects(t, owner.id, name, count, from);
    const ran: CompiledQuery[] = [];
    const logged = oneConnection(t, '', (query) => ran.push(query));
    const showcase = createShowcaseService(logged, 'postgres', { countCap: 30, rememberCounts: false });
    // Each term's 40 matches are counted up to 30 (500+ at scale), and 40 are expected (every
    // holder of its rarest gram holds the word): the page is walked while they are counted, a
    // walk with its own LIMIT: on the projects whose gram bloom holds the word's bits, tested in
    // the order index's scan (plan.ts walkAheadPasses: 4 × as many as the first 4 × page × 5 ×
    // listed / 30 listed projects are expected to hold).
    const bounded = /\(p\.gram_bloom & \$\d+::varbit\) = \$\d+::varbit\s+order by [^)]* limit \$\d+\) p\b/;
    const search = async (term: string, page: number) => {
      ran.length = 0;
      const r = await showcase.list({ search: term, sort: 'latest', featured: false, page, pageSize: 5 });
      expect(r.total).toBe(30);
      expect(r.capped).toBe(true);
      const walks = ran.filter((query) => query.sql.includes('as page_id'));
      return { names: r.rows.map((p) => p.name), walks: walks.map((query) => bounded.test(query.sql)) };
    };
    const newest = (name: string, page: number) =>
      Array.from({ length: 5 }, (_, i) => `${name}${40 - (page - 1) * 5 - i}`);
    try {
      // 地图站's matches are newer than 70 地图馆站 (no 图站): the first walk finds the page, and
      // nothing is walked after it.
      await listed('地图馆站', 70, '2024-01-01');
      await listed('地图站', 40, '2025-01-01');
      for (const page of [1, 2])
        expect(await search('地图站', page)).toEqual({ names: newest('地图站', page), walks: [true] });
      // 天气站's matches are the oldest, under 200 newer 天气馆站凌 (no 气站, but 凌 has its bit:
      // the first byte of each gram's MD5 is 22, search/bloom.ts gramBit): their bits pass, they
      // are not expected to match (气站's holders are 天气站's 40), and the first that many projects
      // whose bits pass hold none: the page is walked again whole.
      expect(gramBit('凌')).toBe(gramBit('气站'));
      await listed('天气站', 40, '2023-01-01');
      await listed('天气馆站凌', 200, '2027-01-01');
      expect(await search('天气站', 1)).toEqual({ names: newest('天气站', 1), walks: [true, false] });
      // 海风站's, under 200 newer 海风馆站 (no 风站, so their bits fail but by chance): the walk
      // ahead passes over them in the index's scan and finds the page.
      await listed('海风站', 40, '2023-06-01');
      await listed('海风馆站', 200, '2028-01-01');
      expect(await search('海风站', 1)).toEqual({ names: newest('海风站', 1), walks: [true] });
    } finally {
      await logged.destroy();
    }
  });

  it('answers from the count’s own plan when a walk ahead bounded by its bits finds fewer matches than expected', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const owner = await t.createUser({ username: 'few_matches_owner' });
    // 40 newer 雨亭云雨 hold both of 云雨亭's bigrams (and its bits) but not the term: 45 holders
    // expected to match, past the count's 30, so the page is walked ahead on the passes; the
    // count finds the 5 云雨亭 alone, and the page comes from its own plan, not from that walk.
    await listedProjects(t, owner.id, '云雨亭', 5, '2022-01-01');
    await listedProjects(t, owner.id, '雨亭云雨', 40, '2032-01-01');
    const ran: CompiledQuery[] = [];
    const logged = oneConnection(t, '', (query) => ran.push(query));
    const showcase = createShowcaseService(logged, 'postgres', { countCap: 30, rememberCounts: false });
    try {
      const r = await showcase.list({
        search: '云雨亭',
        sort: 'latest',
        featured: false,
        page: 1,
        pageSize: 12,
      });
      expect(r.total).toBe(5);
      expect(r.capped).toBe(false);
      expect(r.rows.map((p) => p.name)).toEqual(['云雨亭5', '云雨亭4', '云雨亭3', '云雨亭2', '云雨亭1']);
      // The walk ahead on the bits' passes did run (its statement ends on its connection).
      const bounded = /\(p\.gram_bloom & \$\d+::varbit\) = \$\d+::varbit\s+order by [^)]* limit \$\d+\) p\b/;
      await expect.poll(() => ran.some((query) => bounded.test(query.sql))).toBe(true);
    } finally {
      await logged.destroy();
    }
  });

  it("reads the server's hash memory, so a small work_mem hashes fewer holders", async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const small = oneConnection(t, '-c work_mem=64kB -c hash_mem_multiplier=2');
    try {
      expect(await createSearchSql(small, 'postgres').hashMemory()).toBe(128 * 1024);
      expect(await createSearchSql(t.ctx.db, 'postgres').hashMemory()).toBeGreaterThan(0);
    } finally {
      await small.destroy();
    }
  });
});

describe.skipIf(!usingPostgres)('gram blooms on PostgreSQL', () => {
  let t: TestApp;
  const page = { sort: 'latest', featured: false, page: 1, pageSize: 12 } as const;
  const bits = (bit: '0' | '1') => sql.raw(`B'${bit.repeat(BLOOM_BITS)}'`);
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('holds each listed project’s own grams, written with its entry', async () => {
    for (const name of ['地图小站', 'React 😀 地图', '个人博客']) await liveProject(t, SIMPLE_SITE, { name });
    await createShowcaseService(t.ctx.db, 'postgres').refreshIndex();
    const rows = await sql<{ bloom: string; text: string }>`select p.gram_bloom::text as bloom, e.text
      from projects p join showcase_entries e on e.project_id = p.id`.execute(t.ctx.db);
    expect(rows.rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows.rows) expect(row.bloom, row.text).toBe(bloomOf(gramsOf(row.text)));
  });

  it('writes a project’s bloom with its search text, so indexing it writes no second row version', async () => {
    const { id, owner } = await liveProject(t, SIMPLE_SITE, { name: '庚项目 Ｂloom 地图' });
    const row = async () =>
      (
        await sql<{ ctid: string; bloom: string; queued: number }>`select p.ctid::text as ctid,
            p.gram_bloom::text as bloom, (select count(*) from showcase_queue q where q.project_id = p.id) as queued
          from projects p where p.id = ${id}`.execute(t.ctx.db)
      ).rows[0]!;
    const entryText = async () =>
      (
        await sql<{ text: string }>`select text from showcase_entries where project_id = ${id}`.execute(
          t.ctx.db,
        )
      ).rows[0]!.text;
    // Listed and queued, its bloom already its own text's; the index leaves the row as it is.
    for (const change of [null, { name: '辛项目 改名', description: '新的说明 React' }] as const) {
      if (change) {
        const renamed = await t.request({
          method: 'PUT',
          url: `/api/projects/${id}`,
          token: owner.token,
          body: change,
        });
        expect(renamed.statusCode, renamed.body).toBe(200);
      }
      const before = await row();
      expect(Number(before.queued)).toBe(1);
      await createShowcaseService(t.ctx.db, 'postgres').refreshIndex();
      const after = await row();
      expect(Number(after.queued)).toBe(0);
      expect(after.ctid).toBe(before.ctid);
      expect(after.bloom).toBe(bloomOf(gramsOf(await entryText())));
    }
    expect(await entryText()).toContain('辛项目 改名');
  });

  it('tests a walked project’s bloom before its postings, in the order index', async () => {
    const { id } = await liveProject(t, SIMPLE_SITE, { name: '乙项目' });
    await createShowcaseService(t.ctx.db, 'postgres').refreshIndex();
    const ran: CompiledQuery[] = [];
    const logged = oneConnection(t, '-c join_collapse_limit=1', (query) => ran.push(query));
    try {
      const search = createSearchSql(logged, 'postgres');
      const plan: SearchPlan = { ...onePlan('乙项目', false, 'postgres'), rarest: '乙项' };
      const walked = async (hashed: boolean) => (await search.walk(plan, page, hashed)).map((r) => r.name);
      for (const hashed of [false, true]) {
        expect(await walked(hashed)).toEqual(['乙项目']);
        const query = ran.at(-1)!;
        const explained = await t.ctx.db.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        const text = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
        // The bits come with the index the walk reads: no project's row is read to test them.
        expect(text, text).toMatch(/Index Only Scan( Backward)? using showcase_latest/);
        expect(text, text).toContain('gram_bloom &');
      }
      // Bits cleared, the walk passes the project by without a probe: the bloom is tested.
      await sql`update projects set gram_bloom = ${bits('0')} where id = ${id}`.execute(t.ctx.db);
      expect(await walked(false)).toEqual([]);
      expect(await walked(true)).toEqual([]);
      // Every bit set (a row whose bloom is not written yet), its postings decide.
      await sql`update projects set gram_bloom = ${bits('1')} where id = ${id}`.execute(t.ctx.db);
      expect(await walked(false)).toEqual(['乙项目']);
    } finally {
      await logged.destroy();
    }
  });

  it('returns when every row of a full batch is held, and applies them once let go', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const showcase = createShowcaseService(t.ctx.db, 'postgres');
    await showcase.refreshIndex();
    const owner = await t.createUser();
    // A batch's worth of new projects, each queued by the triggers.
    await sql`insert into projects (owner_id, name, description, status, is_public, featured, view_count,
        download_count, created_at, updated_at, search_text)
      select ${owner.id}, '整批' || n, null, 'pending', 1, 0, 0, 0, '2025-01-01', '2025-01-01', '整批' || n
      from generate_series(1, ${QUEUE_BATCH}) n`.execute(t.ctx.db);
    const queued = async () =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from showcase_queue`.execute(t.ctx.db)).rows[0]!.n,
      );
    expect(await queued()).toBe(QUEUE_BATCH);
    const { url, schema } = t.config.database;
    const other = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(`select id from projects where name like '整批%' for no key update`);
      // Nothing of the batch can be applied: the run ends instead of claiming it again and again.
      await showcase.refreshIndex();
      expect(await queued()).toBe(QUEUE_BATCH);
      await other.query('commit');
    } finally {
      await other.end();
    }
    await showcase.refreshIndex();
    expect(await queued()).toBe(0);
  });

  it('looks a page’s owner and live version up by key, whatever join the planner would rather make', async () => {
    const ran: CompiledQuery[] = [];
    // Joins other than nested loops made the cheapest: a join of the page with every user (or
    // version) is what PostgreSQL would then make, where a lookup by key can't be one.
    const logged = oneConnection(t, '-c enable_nestloop=off -c enable_seqscan=off', (query) =>
      ran.push(query),
    );
    try {
      const rows = (await createShowcaseService(logged, 'postgres').list({ ...page })).rows;
      expect(rows.length).toBeGreaterThanOrEqual(2);
      const query = ran.at(-1)!;
      const explained = await logged.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain (analyze, costs off, timing off) ${query.sql}`, [...query.parameters]),
      );
      const text = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      // Each looked up once a page row: as many loops as rows.
      for (const table of ['users u', 'deployments d'])
        expect(text, text).toMatch(
          new RegExp(`using \\w+ on ${table} \\(actual rows=1 loops=${rows.length}\\)`),
        );
    } finally {
      await logged.destroy();
    }
  });

  it('leaves a project another transaction holds queued, indexes the rest, and it once let go', async () => {
    const showcase = createShowcaseService(t.ctx.db, 'postgres');
    const held = await liveProject(t, SIMPLE_SITE, { name: '丙项目' });
    const free = await liveProject(t, SIMPLE_SITE, { name: '戊项目' });
    await showcase.refreshIndex();
    const rename = (id: number, from: string, to: string) =>
      sql`update projects set name = ${to}, search_text = replace(search_text, ${from}, ${to})
        where id = ${id}`.execute(t.ctx.db);
    await rename(held.id, '丙项目', '丁项目');
    await rename(free.id, '戊项目', '己项目');
    // Found by the text indexed: the cards show the project as it is now.
    const found = async (search: string) => (await showcase.list({ ...page, search })).rows.map((r) => r.id);
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const { url, schema } = t.config.database;
    const other = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await other.connect();
    try {
      // A request's transaction holding the project's row (a decision on it, say).
      await other.query('begin');
      await other.query('select 1 from projects where id = $1 for no key update', [held.id]);
      // The answer does not wait for it: the held project is found as it was indexed.
      expect(await found('己项目')).toEqual([free.id]);
      expect(await found('戊项目')).toEqual([]);
      expect(await found('丙项目')).toEqual([held.id]);
      expect(await found('丁项目')).toEqual([]);
      const queued = await sql<{ project_id: number }>`select project_id from showcase_queue`.execute(
        t.ctx.db,
      );
      expect(queued.rows.map((r) => Number(r.project_id))).toEqual([held.id]);
      await other.query('commit');
    } finally {
      await other.end();
    }
    expect(await found('丁项目')).toEqual([held.id]);
    expect(await found('丙项目')).toEqual([]);
    const row = await sql<{
      bloom: string;
    }>`select gram_bloom::text as bloom from projects where id = ${held.id}`.execute(t.ctx.db);
    const entry = await sql<{
      text: string;
    }>`select text from showcase_entries where project_id = ${held.id}`.execute(t.ctx.db);
    expect(row.rows[0]!.bloom).toBe(bloomOf(gramsOf(entry.rows[0]!.text)));
  });
});

describe.skipIf(!usingPostgres)('showcase authors on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('indexes a new author once when two processes apply the queue at once', async () => {
    if (t.config.database.kind !== 'postgres') throw new Error('PostgreSQL only');
    const author = await t.createUser({ username: 'race_author' });
    // 3,000 live projects of one new author, queued by the triggers: three batches.
    const at = new Date().toISOString();
    await sql`insert into projects (owner_id, name, description, status, is_public, featured, view_count,
        download_count, approved_at, created_at, updated_at, search_text)
      select ${author.id}, '并发项目' || n, null, 'approved', 1, 0, 0, 0, ${at}, ${at}, ${at},
        '并发项目' || n || chr(10) || chr(10) || 'race_author'
      from generate_series(1, 3000) n`.execute(t.ctx.db);
    await sql`insert into deployments (project_id, version, status, upload_type, upload_source, file_count,
        total_size, entry_file, created_by, created_at)
      select id, 1, 'approved', 'files', 'files', 1, 1, 'index.html', ${author.id}, ${at}
      from projects where owner_id = ${author.id}`.execute(t.ctx.db);
    await sql`update projects p set live_deployment_id = d.id from deployments d
      where d.project_id = p.id and p.owner_id = ${author.id}`.execute(t.ctx.db);

    const other = oneConnection(t);
    try {
      // Each takes batches the other has not locked: both meet the same new author.
      await Promise.all([
        createShowcaseService(t.ctx.db, 'postgres').refreshIndex(),
        createShowcaseService(other, 'postgres').refreshIndex(),
      ]);
    } finally {
      await other.destroy();
    }
    const row = await t.ctx.db
      .selectFrom('showcase_authors')
      .selectAll()
      .where('owner_id', '=', author.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.listed)).toBe(3000);
    const grams = await t.ctx.db
      .selectFrom('showcase_author_grams')
      .select('gram')
      .where('owner_id', '=', author.id)
      .execute();
    expect(grams.map((g) => g.gram).sort()).toEqual([...gramsOf('race_author')].sort());
    // Each gram's author count is the authors holding it, counted once.
    const counts = await sql<{ gram: string; authors: number; holders: number }>`select c.gram, c.authors,
        (select count(*) from showcase_author_grams ag where ag.gram = c.gram) as holders
      from showcase_gram_counts c where c.gram in (${sql.join([...gramsOf('race_author')])})`.execute(
      t.ctx.db,
    );
    for (const c of counts.rows) expect(Number(c.authors), c.gram).toBe(Number(c.holders));
    // And the author's projects counted once on each gram of their name (the only author here).
    const projects = await t.ctx.db
      .selectFrom('showcase_gram_counts')
      .select('author_listed')
      .where('gram', 'in', [...gramsOf('race_author')])
      .execute();
    expect(projects.map((p) => Number(p.author_listed))).toEqual(projects.map(() => 3000));
    const res = await t.request({ url: '/api/projects/public?search=race_author' });
    expect(res.json().data.pagination.total_count).toBe(3000);
  });
});

describe('a live version without a home page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is listed without a link or picture of the 404 its address opens', async () => {
    const { id: without } = await liveProject(
      t,
      [
        { name: 'dist/index.html', content: '<!doctype html><p>构建结果</p>' },
        { name: 'README.md', content: '# myapp' },
      ],
      { name: '没有首页' },
    );
    const { id: withIndex } = await liveProject(t, SIMPLE_SITE, { name: '有首页' });
    // A picture as the render stores one, for both.
    await t.ctx.db
      .updateTable('deployments')
      .set({ thumbnail_sha256: 'a'.repeat(64) })
      .where('project_id', 'in', [without, withIndex])
      .execute();
    const res = await t.request({ url: '/api/projects/public' });
    const cards = res.json().data.projects as Card[];
    expect(cards.find((c) => c.id === without)).toMatchObject({ access_url: null, thumbnail_url: null });
    expect(cards.find((c) => c.id === withIndex)).toMatchObject({ access_url: `/sites/${withIndex}/` });
    expect(cards.find((c) => c.id === withIndex)?.thumbnail_url).toEqual(expect.any(String));
  });
});

describe("an author's projects found by the author's name alone", () => {
  // An app of its own: 400 listed projects of another author make a sort of the named author's
  // three cheaper than a walk of the showcase (search/plan.ts mixedStrategy), on both engines.
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Listed projects of `owner`, written as the server writes them (search text, name order). */
  async function listed(
    owner: { id: number; username: string },
    projects: Array<{ name: string; approvedAt: string; views?: number; featured?: boolean }>,
  ) {
    const rows = await t.ctx.db
      .insertInto('projects')
      .values(
        projects.map((p) => ({
          owner_id: owner.id,
          name: p.name,
          description: null,
          status: 'approved' as const,
          is_public: 1 as const,
          featured: p.featured ? (1 as const) : (0 as const),
          view_count: p.views ?? 0,
          download_count: 0,
          approved_at: p.approvedAt,
          created_at: p.approvedAt,
          updated_at: p.approvedAt,
          search_text: searchText(p.name, null, owner.username, null),
          name_sort_key: nameSortKey(p.name),
        })),
      )
      .returning(['id', 'created_at'])
      .execute();
    for (const row of rows) {
      const d = await approvedVersion(t, row.id, owner.id, row.created_at);
      await t.ctx.db
        .updateTable('projects')
        .set({ live_deployment_id: d })
        .where('id', '=', row.id)
        .execute();
    }
  }

  it('sorts them as their rows are read, in each order, a page at a time and featured only', async () => {
    const others = await t.createUser({ username: 'many_others' });
    await listed(
      others,
      Array.from({ length: 400 }, (_, i) => ({
        name: `其他${i}`,
        approvedAt: new Date(Date.UTC(2031, 0, 1, 0, i)).toISOString(),
      })),
    );
    // No project's own text holds zq_sorted: its author's three projects are the matches.
    const author = await t.createUser({ username: 'zq_sorted' });
    await listed(author, [
      { name: '甲站', approvedAt: '2030-01-03T00:00:00.000Z', views: 5 },
      { name: '乙站', approvedAt: '2030-01-01T00:00:00.000Z', views: 9 },
      { name: '丙站', approvedAt: '2030-01-02T00:00:00.000Z', featured: true },
    ]);
    const search = async (query: string) => {
      const res = await t.request({ url: `/api/projects/public?search=zq_sorted&${query}` });
      expect(res.statusCode).toBe(200);
      const data = res.json().data as { projects: Card[]; pagination: { total_count: number } };
      return { names: data.projects.map((p) => p.name), total: data.pagination.total_count };
    };
    for (const [sort, order] of [
      ['latest', ['甲站', '丙站', '乙站']],
      ['popular', ['乙站', '甲站', '丙站']],
      // Pinyin: bing, jia, yi.
      ['name', ['丙站', '甲站', '乙站']],
    ] as const) {
      const found: string[] = [];
      for (const page of [1, 2, 3]) {
        const r = await search(`sort=${sort}&page_size=1&page=${page}`);
        expect(r.total).toBe(3);
        found.push(...r.names);
      }
      expect(found).toEqual(order);
      expect((await search(`sort=${sort}`)).names).toEqual(order);
    }
    expect(await search('featured=true')).toEqual({ names: ['丙站'], total: 1 });
  });
});
