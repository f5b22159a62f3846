/**
 * Whether an account still signs in with a password it did not choose (docs/decisions/accounts.md
 * "Initial passwords"): one an administrator's 新建用户 or 重置密码, the reset-password command or
 * the first start generated. 1 until the owner sets their own; existing accounts start at 0.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('password_initial', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
