/**
 * A database as of one moment, for the backup (backup/backup.ts): engine plumbing, so the backup
 * itself writes no SQL and holds no driver (docs/architecture.md "Where SQL lives"). What it reads
 * inside the snapshot it reads through repositories/ and db/probe.ts, as the app does.
 */
import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig, DB } from './database.js';
import type { Database } from './types.js';

/**
 * Copies a SQLite database file with SQLite's online backup API (page by page, never blocking the
 * running server for long), makes the copy a database of its own (one file, no WAL beside it), and
 * hands the copy to `read`.
 */
export async function copySqliteFile<T>(
  file: string,
  dest: string,
  read: (copy: DB) => Promise<T>,
): Promise<T> {
  await fs.promises.rm(dest, { force: true });
  const source = new SqliteDatabase(file, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 10000');
    await source.backup(dest);
  } finally {
    source.close();
  }
  const copy = new SqliteDatabase(dest, { fileMustExist: true });
  copy.pragma('journal_mode = DELETE');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: copy }) });
  try {
    return await read(db);
  } finally {
    await db.destroy();
  }
}

/**
 * Runs `work` in a read-only repeatable-read transaction whose snapshot is exported: `work` gets
 * the snapshot's id (for `pg_dump --snapshot`) and reads what the dump will hold. The snapshot
 * lives as long as the transaction, so `work` must not return before pg_dump has started reading.
 */
export async function inPostgresSnapshot<T>(
  database: Extract<DatabaseConfig, { kind: 'postgres' }>,
  work: (trx: DB, snapshotId: string) => Promise<T>,
): Promise<T> {
  // One connection of its own, as the URL says (the app's pool and its timeouts are not for a dump).
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    return await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const { rows } = await sql<{ id: string }>`select pg_export_snapshot() as id`.execute(trx);
        return work(trx, rows[0]!.id);
      });
  } finally {
    await db.destroy();
  }
}
