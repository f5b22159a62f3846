/**
 * The showcase's indexes (docs/decisions/serving.md "Serving and showcase"): partial indexes for each sort
 * of the listed (live and public) projects, and a 1- and 2-character n-gram index for search that
 * finds Chinese substrings of any length. Triggers on projects queue every change that may alter
 * what the showcase lists or finds; services/showcase.ts applies the queue before it answers.
 * Also indexes preview_tokens for revoking a project's links and purging expired ones.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const LISTED = sql`live_deployment_id is not null and is_public = 1`;

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  for (const [name, columns] of [
    ['showcase_latest', sql`approved_at, id`],
    ['showcase_popular', sql`view_count, id`],
    ['showcase_name', sql`name, id`],
  ] as const) {
    await sql`create index ${sql.id(name)} on projects (${columns}) where ${LISTED}`.execute(db);
  }

  // One row per distinct 1- and 2-character gram of a listed project's search text. featured sits
  // in the key so a featured-only search is a range of the same index.
  await db.schema
    .createTable('showcase_grams')
    .addColumn('gram', 'text', (c) => c.notNull())
    .addColumn('featured', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('showcase_grams_pk', ['gram', 'featured', 'project_id'])
    .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
    .execute();

  // How many listed (and listed featured) projects hold each gram: picks the rarest gram of a
  // term, and is the exact match count of a 1- or 2-character term.
  await db.schema
    .createTable('showcase_gram_counts')
    .addColumn('gram', 'text', (c) => c.primaryKey())
    .addColumn('listed', 'integer', (c) => c.notNull())
    .addColumn('featured', 'integer', (c) => c.notNull())
    .execute();

  // What is indexed for each listed project: its normalised text (substring checks of longer
  // terms, and the grams to remove when it changes) and its featured flag.
  await db.schema
    .createTable('showcase_entries')
    .addColumn('project_id', 'integer', (c) => c.primaryKey())
    .addColumn('featured', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .execute();

  // Projects whose listing may have changed since the index last looked (filled by triggers).
  await db.schema
    .createTable('showcase_queue')
    .addColumn('project_id', 'integer', (c) => c.primaryKey())
    .execute();

  // The listed totals, kept up to date as the queue is applied: the showcase count costs nothing.
  // version grows with every applied change, so counts remembered for a search know they're stale.
  await db.schema
    .createTable('showcase_totals')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('listed', 'integer', (c) => c.notNull())
    .addColumn('featured', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into showcase_totals (id, listed, featured, version) values (1, 0, 0, 0)`.execute(db);

  const watched = sql`old.search_text is distinct from new.search_text
    or old.live_deployment_id is distinct from new.live_deployment_id
    or old.is_public is distinct from new.is_public
    or old.featured is distinct from new.featured`;
  if (dialect === 'sqlite') {
    await sql`create trigger showcase_queue_insert after insert on projects
      begin insert or ignore into showcase_queue (project_id) values (new.id); end`.execute(db);
    await sql`create trigger showcase_queue_update
      after update of search_text, live_deployment_id, is_public, featured on projects
      when ${watched}
      begin insert or ignore into showcase_queue (project_id) values (new.id); end`.execute(db);
    await sql`create trigger showcase_queue_delete after delete on projects
      begin insert or ignore into showcase_queue (project_id) values (old.id); end`.execute(db);
  } else {
    await sql`create function showcase_enqueue() returns trigger language plpgsql as $$
      begin
        insert into showcase_queue (project_id)
          values (case when tg_op = 'DELETE' then old.id else new.id end)
          on conflict do nothing;
        return null;
      end $$`.execute(db);
    await sql`create trigger showcase_queue_insert after insert or delete on projects
      for each row execute function showcase_enqueue()`.execute(db);
    await sql`create trigger showcase_queue_update after update on projects
      for each row when (${watched}) execute function showcase_enqueue()`.execute(db);
  }
  // Projects that exist already are indexed on first use.
  await sql`insert into showcase_queue (project_id) select id from projects`.execute(db);

  await db.schema.createIndex('preview_tokens_project').on('preview_tokens').column('project_id').execute();
  await db.schema.createIndex('preview_tokens_expires').on('preview_tokens').column('expires_at').execute();
}
