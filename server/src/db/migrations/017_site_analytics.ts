/**
 * A site's analytics for its owner (docs/notifications.md "Owner analytics"): page views per path,
 * views per referring host and bytes served, per project and UTC day. Counted in memory on the
 * serving path and written in batches with the views (services/views.ts); no address, cookie or
 * visitor id is stored.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('project_daily_pages')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('views', big, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('project_daily_pages_pk', ['project_id', 'day', 'path'])
    .execute();
  await db.schema
    .createTable('project_daily_referrers')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('views', big, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('project_daily_referrers_pk', ['project_id', 'day', 'host'])
    .execute();
  await db.schema
    .createTable('project_daily_bytes')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('bytes', big, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('project_daily_bytes_pk', ['project_id', 'day'])
    .execute();
}
