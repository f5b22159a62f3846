/**
 * The showcase's 名称 order is pinyin order (domain/name-order.ts), the same on SQLite and
 * PostgreSQL, kept when a project is renamed, and given to projects that existed before the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acrossMigration,
  createTestApp,
  insertOldLiveProject,
  insertOldUser,
  liveProject,
  type TestApp,
} from './helpers.js';

describe('showcase name order', () => {
  let t: TestApp;
  let ownerToken = '';
  const ids: Record<string, number> = {};
  const byName = async () => {
    const res = await t.request({ url: '/api/projects/public?sort=name' });
    expect(res.statusCode).toBe(200);
    return (res.json().data.projects as { name: string }[]).map((p) => p.name);
  };

  beforeAll(async () => {
    t = await createTestApp();
    const owner = await t.createUser();
    ownerToken = owner.token;
    for (const name of ['上海', '中秋', '北京', 'Apple', '长城']) {
      ids[name] = (await liveProject(t, undefined, { name, owner })).id;
    }
  });
  afterAll(() => t.close());

  it('lists names by pinyin, not by code point', async () => {
    expect(await byName()).toEqual(['Apple', '北京', '长城', '上海', '中秋']);
  });

  it('pages through the same order', async () => {
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await t.request({ url: `/api/projects/public?sort=name&page_size=2&page=${page}` });
      pages.push(...(res.json().data.projects as { name: string }[]).map((p) => p.name));
    }
    expect(pages).toEqual(['Apple', '北京', '长城', '上海', '中秋']);
  });

  it('lists numbers in names by value', async () => {
    const t2 = await createTestApp();
    try {
      const owner = await t2.createUser();
      for (const name of ['站点10', '站点2', '站点1']) await liveProject(t2, undefined, { name, owner });
      const res = await t2.request({ url: '/api/projects/public?sort=name' });
      expect((res.json().data.projects as { name: string }[]).map((p) => p.name)).toEqual([
        '站点1',
        '站点2',
        '站点10',
      ]);
    } finally {
      await t2.close();
    }
  });

  it('moves a renamed project to its new place', async () => {
    const res = await t.request({
      method: 'PUT',
      url: `/api/projects/${ids.中秋}`,
      token: ownerToken,
      body: { name: '阿里' },
    });
    expect(res.statusCode).toBe(200);
    expect(await byName()).toEqual(['阿里', 'Apple', '北京', '长城', '上海']);
  });
});

describe('name sort key migration', () => {
  it('gives projects that existed before it their keys', async () => {
    await acrossMigration(
      '004_showcase_statistics',
      async (db) => {
        const at = new Date().toISOString();
        const ownerId = await insertOldUser(db);
        for (const name of ['中秋', '北京']) {
          await db
            .insertInto('projects')
            .values({
              owner_id: ownerId,
              name,
              description: null,
              status: 'pending',
              is_public: 1,
              live_deployment_id: null,
              latest_deployment_id: null,
              view_count: 0,
              download_count: 0,
              approved_at: null,
              approved_by: null,
              published_at: null,
              created_at: at,
              updated_at: at,
              search_text: name,
            })
            .execute();
        }
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('projects')
          .select(['name', 'name_sort_key'])
          .orderBy('name_sort_key')
          .execute();
        expect(rows).toEqual([
          { name: '北京', name_sort_key: 'bei jing' },
          { name: '中秋', name_sort_key: 'zhong qiu' },
        ]);
      },
    );
  });
});

describe('name sort numbers migration', () => {
  it('writes the keys of names with numbers so that they list by value, and leaves the others', async () => {
    await acrossMigration(
      '040_username_width_fold',
      async (db) => {
        const owner = await insertOldUser(db);
        // The keys as the old code wrote them: digits as they are.
        for (const [name, key] of [
          ['站点10', 'zhan dian 10'],
          ['站点2', 'zhan dian 2'],
          ['北京', 'bei jing'],
        ] as const) {
          const id = await insertOldLiveProject(db, owner, name);
          await db.updateTable('projects').set({ name_sort_key: key }).where('id', '=', id).execute();
        }
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('projects')
          .select(['name', 'name_sort_key'])
          .orderBy('name_sort_key')
          .execute();
        expect(rows).toEqual([
          { name: '北京', name_sort_key: 'bei jing' },
          { name: '站点2', name_sort_key: 'zhan dian 012' },
          { name: '站点10', name_sort_key: 'zhan dian 0210' },
        ]);
      },
    );
  });
});
