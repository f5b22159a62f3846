/**
 * Migration 033 (site names searched, docs/decisions/serving.md "Showcase listing and search"): a
 * project that had a site name before it is found by that name after the upgrade, through the
 * queue that keeps the showcase index; a project without one keeps its text. On both engines.
 */
import { describe, expect, it } from 'vitest';
import { createShowcaseService } from '../src/services/showcase.js';
import { acrossMigration, insertOldLiveProject, insertOldUser } from './helpers.js';

describe('search site names migration', () => {
  it('writes the search text of the projects that have a site name, and the showcase finds them by it', async () => {
    const ids: Record<string, number> = {};
    await acrossMigration(
      '032_deploy_base',
      async (db) => {
        const owner = await insertOldUser(db);
        for (const [name, siteName] of [
          ['路由测试站', 'route-demo'],
          ['没有名字的站', null],
        ] as const) {
          ids[name] = await insertOldLiveProject(db, owner, name, { site_name: siteName });
        }
        // The index as it stood had applied both projects: their queue entries are gone. (Today's
        // index code can't write the index of this schema: migration 035 gave its postings an
        // owner. The project whose text stays is queued again after the upgrade, below.)
        await db.deleteFrom('showcase_queue').execute();
      },
      async (handle) => {
        const texts = await handle.db
          .selectFrom('projects')
          .select(['id', 'search_text'])
          .orderBy('id')
          .execute();
        expect(texts.map((r) => r.search_text)).toEqual([
          '路由测试站\n说明\nroute-demo\nold',
          '没有名字的站\n说明\nold',
        ]);
        // Only the project whose text changed waits in the queue.
        const queued = await handle.db.selectFrom('showcase_queue').select('project_id').execute();
        expect(queued.map((q) => Number(q.project_id))).toEqual([ids.路由测试站]);

        await handle.db.insertInto('showcase_queue').values({ project_id: ids.没有名字的站! }).execute();
        const showcase = createShowcaseService(handle.db, handle.dialect);
        const list = (search: string) =>
          showcase.list({ search, sort: 'latest', featured: false, page: 1, pageSize: 12 });
        for (const term of ['route-demo', 'route', '路由 demo']) {
          const found = await list(term);
          expect(
            found.rows.map((r) => r.id),
            term,
          ).toEqual([ids.路由测试站]);
        }
        expect((await list('说明')).total).toBe(2);
      },
    );
  });
});
