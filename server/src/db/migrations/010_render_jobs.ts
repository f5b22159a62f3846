/**
 * The render worker (docs/render.md): one durable job per deployment (queued, running under a
 * lease, done or failed with its reason), and the two thumbnails a finished render stores on the
 * deployment (blob hashes, so the orphan sweep keeps them while the deployment exists).
 */
import type { Kysely } from 'kysely';
import { idColumn, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  await idColumn(db.schema.createTable('render_jobs'), dialect)
    .addColumn('deployment_id', 'integer', (c) => c.notNull().unique())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    // queued | running | done | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    // The instance running it and until when: an expired lease is taken again (the holder died).
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'text')
    // Not before this moment (a retry waits a little).
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('render_jobs_status')
    .on('render_jobs')
    .columns(['status', 'run_after'])
    .execute();
  await db.schema.alterTable('deployments').addColumn('thumbnail_sha256', 'text').execute();
  await db.schema.alterTable('deployments').addColumn('thumbnail_small_sha256', 'text').execute();
  await db.schema.alterTable('deployments').addColumn('rendered_at', 'text').execute();
}
