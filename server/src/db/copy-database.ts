/**
 * Copies a SQLite database into an empty PostgreSQL one (npm run migrate-storage --to-database):
 * the target is migrated to the same schema, then every table is copied in foreign-key order, in
 * batches, inside one PostgreSQL transaction (a failed copy leaves the target empty, ready for
 * another try), and the id sequences are moved past the copied ids. The SQLite side is read in
 * one read transaction: a consistent snapshot even if something writes meanwhile.
 *
 * The showcase's search tables are not copied: they are derived from projects, and the triggers
 * on projects queue every copied project for indexing, which the showcase applies on first use.
 */
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { type DatabaseHandle, migrateToLatest, openDatabase, openSqlite } from './database.js';

const DERIVED = /^showcase_/;
const INTERNAL = /^(sqlite_|kysely_)/;
const BATCH_ROWS = 500;

export interface CopyDatabaseProgress {
  table: string;
  rows: number;
}

export class DatabaseCopyError extends Error {}

/** The PostgreSQL schema a URL's connections land in (its search_path), for the migrator. */
async function currentSchema(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string | null }>('select current_schema() as schema');
    if (!rows[0]?.schema)
      throw new DatabaseCopyError('The target database has no schema to create tables in');
    return rows[0].schema;
  } finally {
    await client.end();
  }
}

export async function copySqliteToPostgres(
  sqliteFile: string,
  postgresUrl: string,
  onTable?: (progress: CopyDatabaseProgress) => void,
): Promise<CopyDatabaseProgress[]> {
  // The source is brought to the latest schema first, so both sides have the same tables.
  const sourceHandle = openDatabase({ kind: 'sqlite', file: sqliteFile });
  try {
    await migrateToLatest(sourceHandle);
  } finally {
    await sourceHandle.close();
  }
  const target = openDatabase({
    kind: 'postgres',
    url: postgresUrl,
    schema: await currentSchema(postgresUrl),
  });
  const sqlite = openSqlite(sqliteFile);
  try {
    await migrateToLatest(target);
    const tables = tablesInDependencyOrder(sqlite);
    await assertEmpty(target, tables);
    const done: CopyDatabaseProgress[] = [];
    sqlite.exec('begin');
    try {
      // Table names come from the source at run time: the copy works on untyped rows.
      const untyped = target.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      await untyped.transaction().execute(async (trx) => {
        for (const table of tables) {
          const rows = await copyTable(sqlite, trx, table);
          done.push({ table, rows });
          onTable?.({ table, rows });
        }
        for (const table of tables) if (hasIdColumn(sqlite, table)) await resetSequence(trx, table);
      });
    } finally {
      sqlite.exec('commit');
    }
    return done;
  } finally {
    sqlite.close();
    await target.close();
  }
}

type Sqlite = ReturnType<typeof openSqlite>;

/** The tables to copy, each after every table it references. */
function tablesInDependencyOrder(sqlite: Sqlite): string[] {
  const names = (
    sqlite.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{
      name: string;
    }>
  )
    .map((r) => r.name)
    .filter((n) => !INTERNAL.test(n) && !DERIVED.test(n));
  const deps = new Map<string, Set<string>>();
  for (const name of names) {
    const refs = sqlite.prepare(`pragma foreign_key_list(${quote(name)})`).all() as Array<{ table: string }>;
    deps.set(name, new Set(refs.map((r) => r.table).filter((t) => t !== name && names.includes(t))));
  }
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    if (visiting.has(name)) throw new DatabaseCopyError(`Foreign keys form a cycle through ${name}`);
    visiting.add(name);
    for (const dep of deps.get(name) ?? []) visit(dep);
    visiting.delete(name);
    ordered.push(name);
  };
  for (const name of names) visit(name);
  return ordered;
}

async function assertEmpty(target: DatabaseHandle, tables: string[]): Promise<void> {
  for (const table of tables) {
    const row = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(target.db);
    if (Number(row.rows[0]?.n) > 0) {
      throw new DatabaseCopyError(
        `The target database is not empty (table ${table} has rows): copy only into a new, empty database`,
      );
    }
  }
}

async function copyTable(
  sqlite: Sqlite,
  trx: Kysely<Record<string, Record<string, unknown>>>,
  table: string,
): Promise<number> {
  // Every copied table is a rowid table: batches follow the rowid, whatever the primary key.
  const select = sqlite.prepare(
    `select rowid as "__rowid", * from ${quote(table)} where rowid > ? order by rowid limit ${BATCH_ROWS}`,
  );
  let after = 0;
  let copied = 0;
  for (;;) {
    const batch = select.all(after) as Array<Record<string, unknown> & { __rowid: number }>;
    if (batch.length === 0) return copied;
    after = batch.at(-1)!.__rowid;
    const rows = batch.map(({ __rowid, ...row }) => row);
    await trx.insertInto(table).values(rows).execute();
    copied += rows.length;
  }
}

function hasIdColumn(sqlite: Sqlite, table: string): boolean {
  const columns = sqlite.prepare(`pragma table_info(${quote(table)})`).all() as Array<{ name: string }>;
  return columns.some((c) => c.name === 'id');
}

/** serial columns: the next id is past every copied one. */
async function resetSequence(
  trx: Kysely<Record<string, Record<string, unknown>>>,
  table: string,
): Promise<void> {
  const seq = await sql<{
    seq: string | null;
  }>`select pg_get_serial_sequence(${quote(table)}, 'id') as seq`.execute(trx);
  const name = seq.rows[0]?.seq;
  if (!name) return;
  await sql`select setval(${name}, coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(
    trx,
  );
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
