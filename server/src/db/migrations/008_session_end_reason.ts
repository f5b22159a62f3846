/**
 * Sessions ended by disabling their account are kept (until they expire) with the reason, so the
 * next request with such a token is told 账号已被停用 rather than only 请先登录
 * (docs/decisions/accounts.md "Accounts and sessions").
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('ended_reason', 'text').execute();
}
