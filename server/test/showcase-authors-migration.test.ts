/**
 * Migration 028 (authors apart, docs/decisions/serving.md): an index built before it held each
 * author's grams on every project; the upgrade clears it and queues every project, and the index
 * built again holds projects' own text and each author once. On both engines.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createShowcaseService } from '../src/services/showcase.js';
import { acrossMigration, insertOldLiveProject, insertOldUser } from './helpers.js';

describe('showcase authors migration', () => {
  it('rebuilds an index that held authors on every project, and finds the author after it', async () => {
    const ids: number[] = [];
    await acrossMigration(
      '027_showcase_order_featured',
      async (db) => {
        const owner = await insertOldUser(db);
        for (const name of ['旧项目一', '旧项目二']) {
          ids.push(await insertOldLiveProject(db, owner, name));
        }
        // The index as the code before 028 left it: the author's grams on each project, applied.
        await db.deleteFrom('showcase_queue').execute();
        for (const id of ids) {
          await db
            .insertInto('showcase_entries')
            .values({ project_id: id, featured: 0, text: '…\nold' })
            .execute();
          for (const gram of ['o', 'ol', 'l', 'ld', 'd'])
            await db.insertInto('showcase_grams').values({ gram, featured: 0, project_id: id }).execute();
        }
        for (const gram of ['o', 'ol', 'l', 'ld', 'd'])
          await db.insertInto('showcase_gram_counts').values({ gram, listed: 2, featured: 0 }).execute();
        await sql`update showcase_totals set listed = 2`.execute(db);
      },
      async (handle) => {
        const queued = await handle.db.selectFrom('showcase_queue').select('project_id').execute();
        expect(queued.map((q) => Number(q.project_id)).sort()).toEqual([...ids].sort());
        expect(await handle.db.selectFrom('showcase_grams').selectAll().execute()).toEqual([]);

        const showcase = createShowcaseService(handle.db, handle.dialect);
        const found = await showcase.list({
          search: 'old',
          sort: 'latest',
          featured: false,
          page: 1,
          pageSize: 12,
        });
        expect(found.total).toBe(2);
        expect(found.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
        // The author once, by their name's grams; no project holds them.
        const own = await handle.db
          .selectFrom('showcase_grams')
          .select('gram')
          .where('gram', '=', 'ol')
          .execute();
        expect(own).toEqual([]);
        const authors = await handle.db.selectFrom('showcase_authors').selectAll().execute();
        expect(authors.map((a) => [a.text, Number(a.listed)])).toEqual([['old', 2]]);
        const counts = await handle.db
          .selectFrom('showcase_gram_counts')
          .select(['listed', 'authors'])
          .where('gram', '=', 'ol')
          .executeTakeFirstOrThrow();
        expect([Number(counts.listed), Number(counts.authors)]).toEqual([0, 1]);
        expect(
          (await showcase.list({ search: '旧项目', sort: 'latest', featured: false, page: 1, pageSize: 12 }))
            .total,
        ).toBe(2);
      },
    );
  });
});
