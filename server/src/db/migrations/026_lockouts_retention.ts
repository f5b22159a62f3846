/**
 * Sign-in lock-outs an admin can see and lift, and the expiry of notices and owner analytics
 * (docs/decisions/accounts.md "Lock-outs admins can see"; docs/notifications.md "How long rows are
 * kept").
 *
 * - users.locked_until: until when some client address is refused for the account after too many
 *   wrong passwords (set as the lock-out begins; shown in the admin's user list).
 * - users.sign_in_epoch: part of the sign-in throttle's keys; an admin's unlock adds one, so every
 *   count of the account starts afresh on every instance, as a new password does.
 * - Indexes on the columns the retention job deletes by.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('locked_until', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('sign_in_epoch', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
  await db.schema.createIndex('notifications_created').on('notifications').column('created_at').execute();
  for (const table of ['project_daily_pages', 'project_daily_referrers', 'project_daily_bytes']) {
    await db.schema.createIndex(`${table}_day`).on(table).column('day').execute();
  }
}
