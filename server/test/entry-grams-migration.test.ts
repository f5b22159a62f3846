/**
 * Migration 037 (docs/decisions/serving.md "Grams as sets on PostgreSQL"): on PostgreSQL each
 * index entry gains its grams as a set, gathered from its postings, so a search that needs several
 * grams answers from the sets at once after the upgrade, and nothing is queued again; on SQLite the
 * index is left as it is. On both engines.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { gramsOf } from '../src/search/plan.js';
import { createShowcaseService } from '../src/services/showcase.js';
import { acrossMigration, insertOldLiveProject, insertOldUser } from './helpers.js';

describe('entry grams migration', () => {
  it('gives every entry the set of its postings’ grams, and searches by them at once', async () => {
    const postings = new Map<number, string[]>();
    await acrossMigration(
      '036_site_name_owners',
      async (db) => {
        const owner = await insertOldUser(db);
        const counts = new Map<string, [number, number]>();
        for (const [name, featured] of [
          ['地图小站', 0],
          ['react 地图', 1],
        ] as const) {
          const id = await insertOldLiveProject(db, owner, name, {
            featured,
            search_text: `${name}\n说明\n\nold`,
          });
          // The index as it stood (migration 035's): the entry and its postings, no gram set.
          const text = `${name}\n说明\n`;
          await db
            .insertInto('showcase_entries')
            .values({ project_id: id, featured, text, owner_id: owner })
            .execute();
          const grams = [...gramsOf(text)];
          postings.set(id, grams);
          for (const gram of grams) {
            await db
              .insertInto('showcase_grams')
              .values({ gram, featured, owner_id: owner, project_id: id })
              .execute();
            const [listed, feat] = counts.get(gram) ?? [0, 0];
            counts.set(gram, [listed + 1, feat + featured]);
          }
        }
        for (const [gram, [listed, featured]] of counts)
          await db
            .insertInto('showcase_gram_counts')
            .values({ gram, listed, featured, authors: 0, author_listed: 0, author_featured: 0 })
            .execute();
        await db.updateTable('showcase_totals').set({ listed: 2, featured: 1 }).where('id', '=', 1).execute();
        await db.deleteFrom('showcase_queue').execute();
      },
      async (handle) => {
        if (handle.dialect === 'postgres') {
          const r = await sql<{ project_id: number; grams: string[] }>`
            select project_id, grams from showcase_entries`.execute(handle.db);
          expect(r.rows.length).toBe(2);
          for (const e of r.rows)
            expect([...e.grams].sort()).toEqual([...postings.get(e.project_id)!].sort());
        } else {
          const columns = await sql<{
            name: string;
          }>`select name from pragma_table_info('showcase_entries')`.execute(handle.db);
          expect(columns.rows.map((c) => c.name).sort()).toEqual([
            'featured',
            'owner_id',
            'project_id',
            'text',
          ]);
        }
        expect(await handle.db.selectFrom('showcase_queue').selectAll().execute()).toEqual([]);
        // Terms of several grams (the sets' intersection on PostgreSQL) and of one.
        const showcase = createShowcaseService(handle.db, handle.dialect);
        const names = async (search: string) =>
          (await showcase.list({ sort: 'name', featured: false, page: 1, pageSize: 12, search })).rows.map(
            (p) => p.name,
          );
        expect(await names('地图小站')).toEqual(['地图小站']);
        expect(await names('react 地图')).toEqual(['react 地图']);
        expect(await names('图小')).toEqual(['地图小站']);
        expect((await names('地图')).sort()).toEqual(['react 地图', '地图小站'].sort());
        expect(await names('小站 react')).toEqual([]);
      },
    );
  });
});
