/**
 * Turns of the render queue (migration 030) of accounts deleted before an account's turn went with
 * it (repositories/users.ts deleteIfUnowned): nothing reads them, and they stayed for good.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await sql`delete from render_turns where owner_id not in (select id from users)`.execute(db);
}
