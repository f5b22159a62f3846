/**
 * Each posting of the showcase's gram index knows its project's owner
 * (docs/decisions/serving.md "Owners on the postings"): the key becomes (gram, featured, owner_id,
 * project_id), so the projects of one author holding a gram are one range of the index. A search
 * of several words, some of which an author's name may hold, then finds an author's projects that
 * hold the other words without testing each of them (search/sql.ts `byOwners`). A probe of one
 * project's gram names its owner too, and stays one lookup.
 *
 * The postings are copied with their owners from showcase_entries (one row per indexed project,
 * its owner since migration 028), so the index answers throughout; nothing is queued again.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('showcase_grams_owned')
    .addColumn('gram', 'text', (c) => c.notNull())
    .addColumn('featured', 'integer', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('showcase_grams_owned_pk', ['gram', 'featured', 'owner_id', 'project_id'])
    .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
    .execute();
  // In key order: each row lands beside the last.
  await sql`insert into showcase_grams_owned (gram, featured, owner_id, project_id)
    select g.gram, g.featured, e.owner_id, g.project_id from showcase_grams g
    join showcase_entries e on e.project_id = g.project_id
    order by g.gram, g.featured, e.owner_id, g.project_id`.execute(db);
  await db.schema.dropTable('showcase_grams').execute();
  await db.schema.alterTable('showcase_grams_owned').renameTo('showcase_grams').execute();
  if (dialect === 'postgres') {
    // As migration 004 set on the table it replaces: each common gram's real count.
    await sql`alter table showcase_grams alter column gram set statistics 1000`.execute(db);
    await sql`analyze showcase_grams`.execute(db);
  }
}
