/** What the readiness check and a restore ask of the database (http/health.ts, backup/restore.ts). */
import { DEFAULT_MIGRATION_TABLE, sql } from 'kysely';
import type { DB } from './database.js';

/** The migrations this build knows, in order (db/migrations/: only db/ imports that folder). */
export { migrationNames } from './migrations/index.js';

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

/** Whether a table is there (`schema.table` or a name on the search path): a restore's "already an install". */
export async function hasTable(db: DB, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`select to_regclass(${name}) as found`.execute(db);
  return Boolean(rows[0]?.found);
}
