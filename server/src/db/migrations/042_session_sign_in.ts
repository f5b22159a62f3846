/**
 * A session remembers when its sign-in happened, and a refresh carries that time to the session it
 * issues: no chain of refreshes outlives the sign-in's own lifetime (docs/decisions/accounts.md
 * "Sessions"). Sessions made before this migration count from their own creation.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('signed_in_at', 'text').execute();
  await sql`update sessions set signed_in_at = created_at`.execute(db);
}
