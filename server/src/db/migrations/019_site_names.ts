/**
 * Site names (docs/decisions/names.md): each project may have one, `projects.site_name`, and
 * `site_names` holds every name a project holds or gave up, keyed by its look-alike skeleton
 * (contracts' siteNameSkeleton), so no two projects can hold names that read the same. A name a
 * project gave up (renamed, or the project deleted) keeps its row with `retired_at` for
 * SITE_NAME_HOLD_DAYS: it still leads to the project (or to nothing), and no one else may take it.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('projects').addColumn('site_name', 'text').execute();
  await db.schema
    .createIndex('projects_site_name_unique')
    .on('projects')
    .column('site_name')
    .unique()
    .execute();
  await db.schema
    .createTable('site_names')
    .addColumn('skeleton', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // Null once its project is deleted: the name then leads nowhere until it is free again.
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  await db.schema.createIndex('site_names_project').on('site_names').column('project_id').execute();
}
