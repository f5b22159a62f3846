/**
 * Notices and their e-mail (docs/notifications.md): the notices each account reads under the bell,
 * the durable outbox the mail worker delivers from (written in the same transaction as the action
 * that caused it, claimed under a lease like render jobs, retried with backoff), and each
 * account's choice to receive e-mail.
 */
import type { Kysely } from 'kysely';
import { idColumn, type MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  await idColumn(db.schema.createTable('notifications'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // approved | version_live | rejected | taken_down | rolled_back | upload_pending
    .addColumn('kind', 'text', (c) => c.notNull())
    // No foreign key: a notice outlives its project (the name is kept; the link then leads nowhere).
    .addColumn('project_id', 'integer')
    .addColumn('project_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer')
    .addColumn('reason', 'text')
    .addColumn('read_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notifications_user')
    .on('notifications')
    .columns(['user_id', 'read_at', 'id'])
    .execute();

  await idColumn(db.schema.createTable('mail_outbox'), dialect)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // queued | sending | sent | failed | skipped
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'run_after']).execute();

  await db.schema
    .alterTable('users')
    .addColumn('email_notifications', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
