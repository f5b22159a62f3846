/** What the readiness check asks of the database (http/health.ts). */
import { DEFAULT_MIGRATION_TABLE, sql } from 'kysely';
import type { DB } from './database.js';

/** One round trip: fails when the database can't answer. */
export async function ping(db: DB): Promise<void> {
  await sql`select 1`.execute(db);
}

/** The names of the migrations applied to this database. */
export async function appliedMigrations(db: DB): Promise<Set<string>> {
  const rows = await sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`.execute(
    db,
  );
  return new Set(rows.rows.map((r) => r.name));
}
