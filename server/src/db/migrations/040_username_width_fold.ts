/**
 * Usernames are one name however wide their letters are typed (docs/decisions/accounts.md "A name
 * typed in full width"): `username_key` becomes the NFKC form, so ｆｕｚｚｅｒ (an input method's
 * full-width mode) signs in as fuzzer and can't be registered beside it. An account whose folded
 * key another account already holds keeps its old key, and signs in by its name exactly as it
 * was written (repositories/users.ts `byUsername`).
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  const { rows } = await sql<{ id: number; username: string; username_key: string }>`
    select id, username, username_key from users order by id`.execute(db);
  const held = new Set(rows.map((r) => r.username_key));
  for (const row of rows) {
    const folded = row.username.trim().normalize('NFKC').toLowerCase();
    if (folded === row.username_key || held.has(folded)) continue;
    await sql`update users set username_key = ${folded} where id = ${row.id}`.execute(db);
    held.delete(row.username_key);
    held.add(folded);
  }
}
