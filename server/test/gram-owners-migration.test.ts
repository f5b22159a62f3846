/**
 * Migration 035 (owners on the postings, docs/decisions/serving.md "Owners on the postings"): the
 * gram index's postings gain their project's owner, copied from the index's entries, so the index
 * answers through the upgrade and nothing is queued again. On both engines.
 */
import { describe, expect, it } from 'vitest';
import { gramsOf } from '../src/search/plan.js';
import { acrossMigration, insertOldLiveProject, insertOldUser } from './helpers.js';

describe('gram owners migration', () => {
  it('gives every posting its project’s owner and queues nothing', async () => {
    const expected: Array<[string, number, number, number]> = [];
    await acrossMigration(
      '034_initial_passwords',
      async (db) => {
        const first = await insertOldUser(db);
        const second = await insertOldUser(db, 'other');
        for (const [owner, name, featured] of [
          [first, '地图小站', 0],
          [second, 'react 地图', 1],
        ] as const) {
          const id = await insertOldLiveProject(db, owner, name, {
            featured,
            search_text: `${name}\n说明\n\n${owner === first ? 'old' : 'other'}`,
          });
          // The index as it stood (migration 028's): the entry with its owner, postings without.
          const text = `${name}\n说明\n`;
          await db
            .insertInto('showcase_entries')
            .values({ project_id: id, featured, text, owner_id: owner })
            .execute();
          for (const gram of gramsOf(text)) {
            await db.insertInto('showcase_grams').values({ gram, featured, project_id: id }).execute();
            expected.push([gram, featured, owner, id]);
          }
        }
        await db.deleteFrom('showcase_queue').execute();
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('showcase_grams')
          .select(['gram', 'featured', 'owner_id', 'project_id'])
          .execute();
        const key = (r: [string, number, number, number]) => r.join('|');
        expect(
          rows.map((r) => key([r.gram, Number(r.featured), Number(r.owner_id), Number(r.project_id)])).sort(),
        ).toEqual(expected.map(key).sort());
        expect(await handle.db.selectFrom('showcase_queue').selectAll().execute()).toEqual([]);
      },
    );
  });
});
