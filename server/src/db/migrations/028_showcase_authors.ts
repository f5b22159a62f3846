/**
 * The showcase's author index (docs/decisions/serving.md "Authors apart"): a project's grams hold
 * its name and description only, and each author with a listed project is indexed once, by the
 * grams of their username, with how many listed (and featured) projects they have. An author's
 * grams used to be held by every one of their projects: at 1,000,000 projects an author's bigrams
 * were held by tens of thousands each, and a search for an author tested thousands of candidates.
 *
 * A search that names authors tests each walked project's owner, and sorts the authors' listed
 * projects: the order indexes gain `owner_id` (a walk still reads its order index alone, as in
 * migration 027), and on SQLite the listed projects get an index by owner holding what a sort
 * collects.
 *
 * The index is rebuilt from the queue: every project is queued again (search/index-maintenance.ts).
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const LISTED = sql`live_deployment_id is not null and is_public = 1`;
/** What a walk reads of each project besides the order's own columns (migration 027, and the owner). */
const WALKED = sql`featured, live_deployment_id, is_public, owner_id`;

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  const bytes = dialect === 'postgres' ? sql` collate "C"` : sql``;
  for (const [name, columns] of [
    ['showcase_latest', sql`approved_at, id, ${WALKED}`],
    ['showcase_popular', sql`view_count, id, ${WALKED}`],
    ['showcase_name_key', sql`name_sort_key${bytes}, name${bytes}, id, ${WALKED}`],
  ] as const) {
    await sql`drop index if exists ${sql.id(name)}`.execute(db);
    await sql`create index ${sql.id(name)} on projects (${columns}) where ${LISTED}`.execute(db);
  }
  // SQLite reads an author's listed projects from this index alone (PostgreSQL reads the rows
  // anyway, where projects_owner serves, and would take this small partial index for a walk).
  if (dialect === 'sqlite')
    await sql`create index showcase_owner on projects (owner_id, featured, id, live_deployment_id, is_public)
      where ${LISTED}`.execute(db);

  // Each entry's owner: which author's counts its listing moves.
  await db.schema
    .alterTable('showcase_entries')
    .addColumn('owner_id', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // How many listed authors hold each gram (the rarest picks the author candidates), and how many
  // listed (featured) projects those authors have: a 1–2 character term's authors' projects
  // without reading the authors (a letter most usernames hold names thousands of them).
  for (const column of ['authors', 'author_listed', 'author_featured'])
    await db.schema
      .alterTable('showcase_gram_counts')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

  // One row per author with a listed project: the normalised username and their listed counts.
  await db.schema
    .createTable('showcase_authors')
    .addColumn('owner_id', 'integer', (c) => c.primaryKey())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('listed', 'integer', (c) => c.notNull())
    .addColumn('featured', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('showcase_author_grams')
    .addColumn('gram', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('showcase_author_grams_pk', ['gram', 'owner_id'])
    .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
    .execute();

  // The index as it stood held authors' grams on every project: built again from the queue.
  await sql`delete from showcase_grams`.execute(db);
  await sql`delete from showcase_gram_counts`.execute(db);
  await sql`delete from showcase_entries`.execute(db);
  await sql`update showcase_totals set listed = 0, featured = 0, version = version + 1`.execute(db);
  await sql`insert into showcase_queue (project_id) select id from projects where true
    on conflict (project_id) do nothing`.execute(db);
}
