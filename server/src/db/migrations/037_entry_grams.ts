/**
 * PostgreSQL only: each index entry carries its own text's grams as an array under a GIN index
 * (docs/decisions/serving.md "Grams as sets on PostgreSQL"). A search whose candidates must hold
 * several grams (a longer term's narrowing grams, the words of a term of several words) finds them
 * as one intersection inside the GIN index, a few nanoseconds a posting, where a merge or hash
 * join of two grams' postings read every posting as a row (`react 地图` at 100,000 projects: 3,509
 * and 10,076 postings joined in ≈2.5 ms, the GIN index's intersection and the 378 texts in ≈0.9).
 * The postings (showcase_grams) stay: they are ordered by project, which a walk and an author's
 * range need, and SQLite answers from them alone.
 *
 * The arrays are the entries' postings, gathered per project; fastupdate off, so a search never
 * reads a pending list of unmerged entries (the index is written by the queue's batches).
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table showcase_entries add column grams text[]`.execute(db);
  await sql`update showcase_entries e set grams = g.grams
    from (select project_id, array_agg(gram order by gram) as grams from showcase_grams group by project_id) g
    where g.project_id = e.project_id`.execute(db);
  // An entry with no postings (no own text) holds no gram; every entry written from now on names
  // its grams (search/sql.ts insertEntries), so none can be left out of a search by a missing array.
  await sql`update showcase_entries set grams = '{}' where grams is null`.execute(db);
  await sql`alter table showcase_entries alter column grams set not null`.execute(db);
  await sql`create index showcase_entries_grams on showcase_entries using gin (grams) with (fastupdate = off)`.execute(
    db,
  );
  await sql`analyze showcase_entries`.execute(db);
}
