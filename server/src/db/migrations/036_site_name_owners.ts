/**
 * Each row of `site_names` names the account whose site held it (docs/decisions/names.md "A
 * deleted project's names count too"): a name outlives its project by SITE_NAME_HOLD_DAYS, and the
 * limit on the names an account gives up counts them by this column, so deleting a project no
 * longer wipes its names from its owner's count (an account held 11 names per upload by renaming,
 * deleting and starting again). Rows of projects deleted before this migration have no owner left
 * to name (null).
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('site_names').addColumn('owner_id', 'integer').execute();
  await sql`update site_names set owner_id =
    (select owner_id from projects where projects.id = site_names.project_id)
    where project_id is not null`.execute(db);
  await db.schema
    .createIndex('site_names_owner_retired')
    .on('site_names')
    .columns(['owner_id', 'retired_at'])
    .execute();
}
