/** What the readiness check and a restore ask of the database (http/health.ts, backup/restore.ts). */
import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
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

/**
 * The other connections to this PostgreSQL database (any client: an instance, whatever its
 * application_name, or a console), which a restore would pull the tables from under.
 */
export async function otherConnections(db: DB): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`.execute(
    db,
  );
  return rows[0]?.n ?? 0;
}

/**
 * Whether another process has this SQLite file open: a server keeps its connection for its whole
 * life, and in WAL mode an open connection keeps an exclusive lock from being taken (tried at once,
 * never waited for). A file that is not a database is nobody's.
 */
export function sqliteInUse(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const probe = new SqliteDatabase(file, { fileMustExist: true, timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('begin exclusive');
    probe.exec('rollback');
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'SQLITE_BUSY';
  } finally {
    probe.close();
  }
}
