/**
 * Idempotency keys of uploads (docs/decisions/review.md "An answer is never lost"): the first upload an
 * account made with a key, so that a retry with the same key answers with that upload's project
 * and version instead of storing (and charging) a second one. Kept a day.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('upload_keys')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('deployment_id', 'integer', (c) =>
      c.notNull().references('deployments.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_keys_pk', ['user_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('upload_keys_created').on('upload_keys').column('created_at').execute();
}
