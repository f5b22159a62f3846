/**
 * Storage quota and upload rate per account (docs/decisions/uploads.md "Storage quota and upload rate"):
 * an account's own quota (null = the platform's setting), an index that makes an owner's used space
 * an index-only sum, and the log of accepted uploads the hourly limit counts.
 */
import type { Kysely } from 'kysely';
import { idColumn, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema.alterTable('users').addColumn('storage_quota_bytes', big).execute();

  // Used space = the sum of total_size over an owner's projects' deployments: with the size in
  // the index, the sum reads the index alone (projects_owner finds the projects).
  await db.schema
    .createIndex('deployments_project_size')
    .on('deployments')
    .columns(['project_id', 'total_size'])
    .execute();

  // Not the deployments themselves: deleting a project must not give its uploads back to the
  // hourly limit. Rows older than an hour are removed as the account uploads again.
  await idColumn(db.schema.createTable('upload_events'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('upload_events_user_time')
    .on('upload_events')
    .columns(['user_id', 'created_at'])
    .execute();
}
