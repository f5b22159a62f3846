/**
 * Migration 038 (docs/decisions/serving.md "Gram blooms on the walk"): on PostgreSQL each project's
 * row gains the bloom of its entry's grams, the same bits the index writes (search/bloom.ts), and
 * the order indexes hold it; a project with no entry keeps every bit set, one whose entry holds no
 * gram none. Searches answer at once after the upgrade, nothing queued again. SQLite is left as it
 * is. On both engines.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { BLOOM_BITS, bloomOf, FULL_BLOOM } from '../src/search/bloom.js';
import { gramsOf } from '../src/search/plan.js';
import { createShowcaseService } from '../src/services/showcase.js';
import { acrossMigration, insertOldLiveProject, insertOldUser, usingPostgres } from './helpers.js';

describe('gram blooms migration', () => {
  it('gives every project the bloom of its entry’s grams, and walks by them at once', async () => {
    const texts = new Map<number, string | null>();
    const counts = new Map<string, number>();
    await acrossMigration(
      '037_entry_grams',
      async (db) => {
        const owner = await insertOldUser(db);
        // Names of letters, Chinese, an emoji (a gram of two UTF-16 units) and a project not yet
        // indexed (no entry).
        for (const [name, indexed] of [
          ['地图小站', true],
          ['React 😀 地图', true],
          ['未索引', false],
        ] as const) {
          const id = await insertOldLiveProject(db, owner, name, { search_text: `${name}\n说明\n\nold` });
          if (!indexed) {
            texts.set(id, null);
            continue;
          }
          const text = `${name.toLowerCase()}\n说明\n`;
          texts.set(id, text);
          const grams = [...gramsOf(text)];
          // The entry as migration 037 left it: with its grams on PostgreSQL.
          await db
            .insertInto('showcase_entries')
            .values({
              project_id: id,
              featured: 0,
              text,
              owner_id: owner,
              ...(usingPostgres ? { grams: sql`${grams}::text[]` } : {}),
            })
            .execute();
          for (const gram of grams) {
            counts.set(gram, (counts.get(gram) ?? 0) + 1);
            await db
              .insertInto('showcase_grams')
              .values({ gram, featured: 0, owner_id: owner, project_id: id })
              .execute();
          }
        }
        // The index as it stood: counts and totals too.
        for (const [gram, listed] of counts)
          await db
            .insertInto('showcase_gram_counts')
            .values({ gram, listed, featured: 0, authors: 0, author_listed: 0, author_featured: 0 })
            .execute();
        await db.updateTable('showcase_totals').set({ listed: 2, featured: 0 }).where('id', '=', 1).execute();
        await db.deleteFrom('showcase_queue').execute();
      },
      async (handle) => {
        if (handle.dialect !== 'postgres') {
          const columns = await sql<{ name: string }>`select name from pragma_table_info('projects')`.execute(
            handle.db,
          );
          expect(columns.rows.map((c) => c.name)).not.toContain('gram_bloom');
          return;
        }
        const r = await sql<{
          id: number;
          bloom: string;
        }>`select id, gram_bloom::text as bloom from projects`.execute(handle.db);
        expect(r.rows.length).toBe(3);
        for (const row of r.rows) {
          const text = texts.get(Number(row.id));
          expect(row.bloom, String(text)).toBe(text == null ? FULL_BLOOM : bloomOf(gramsOf(text)));
          expect(row.bloom).toHaveLength(BLOOM_BITS);
        }
        const indexes = await sql<{ def: string }>`select pg_get_indexdef(indexrelid) as def from pg_index
          where indrelid = 'projects'::regclass`.execute(handle.db);
        const walked = indexes.rows.filter((i) => i.def.includes('INCLUDE (gram_bloom)'));
        expect(walked.map((i) => i.def.match(/INDEX (\w+)/)![1]).sort()).toEqual([
          'showcase_latest',
          'showcase_name_key',
          'showcase_popular',
        ]);
        expect(await handle.db.selectFrom('showcase_queue').selectAll().execute()).toEqual([]);
        const showcase = createShowcaseService(handle.db, handle.dialect);
        const names = async (search: string) =>
          (await showcase.list({ sort: 'name', featured: false, page: 1, pageSize: 12, search })).rows.map(
            (p) => p.name,
          );
        expect(await names('😀 地图')).toEqual(['React 😀 地图']);
        expect(await names('小站')).toEqual(['地图小站']);
        expect(await names('未索引')).toEqual([]);
      },
    );
  });

  it('leaves no bit of an entry without grams set', async () => {
    let id = 0;
    await acrossMigration(
      '037_entry_grams',
      async (db) => {
        const owner = await insertOldUser(db);
        id = await insertOldLiveProject(db, owner, '空', { search_text: '\n\nold' });
        await db
          .insertInto('showcase_entries')
          .values({
            project_id: id,
            featured: 0,
            text: '',
            owner_id: owner,
            ...(usingPostgres ? { grams: sql`'{}'::text[]` } : {}),
          })
          .execute();
        await db.deleteFrom('showcase_queue').execute();
      },
      async (handle) => {
        if (handle.dialect !== 'postgres') return;
        const r = await sql<{
          bloom: string;
        }>`select gram_bloom::text as bloom from projects where id = ${id}`.execute(handle.db);
        expect(r.rows[0]!.bloom).toBe('0'.repeat(BLOOM_BITS));
        // And the showcase still answers (nothing found in an empty text).
        const showcase = createShowcaseService(handle.db, handle.dialect);
        const rows = await showcase.list({
          sort: 'latest',
          featured: false,
          page: 1,
          pageSize: 12,
          search: '空',
        });
        expect(rows.rows).toEqual([]);
      },
    );
  });
});
