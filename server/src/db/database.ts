/** The Kysely instance: dialect choice (SQLite or PostgreSQL) and migrations, in one place. */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
} from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect.js';
import { migrationProvider } from './migrations/index.js';
import {
  DatabaseUnavailable,
  GuardedPool,
  isDatabaseUnavailable,
  type PostgresTimeouts,
  TOOL_POSTGRES_TIMEOUTS,
} from './postgres-pool.js';
import type { Database } from './types.js';

export type DB = Kysely<Database>;

/** Which database to open: a SQLite file, or a PostgreSQL URL (and a schema: tests use one each). */
export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema?: string };

export interface DatabaseHandle {
  db: DB;
  dialect: Dialect;
  /** The PostgreSQL schema in use when one is configured (tests use one each). */
  schema?: string;
  /** PostgreSQL: the pool, which knows whether the database can be reached (db/postgres-pool.ts). */
  pool?: GuardedPool;
  /** PostgreSQL: a connection outside the pool, without its statement timeout (migrations). */
  withoutTimeouts?<T>(work: (db: DB) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL bounds: the app's (config.databaseTimeouts), else a command-line tool's. */
  timeouts?: PostgresTimeouts;
  /**
   * PostgreSQL: every query fails with DatabaseUnavailable until `pool.open()` (the app opens it
   * once it has migrated). Tools that migrate before they query leave it open.
   */
  closed?: boolean;
}

// PostgreSQL returns bigint (count(*), sums, bigint columns) as strings by default; every number
// here fits in a double, so read them as numbers on both engines.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/**
 * Writes take the lock when the transaction starts (BEGIN IMMEDIATE), so a transaction never fails
 * with SQLITE_BUSY half-way when another process (the password-reset command) writes too; waiting
 * for the lock is bounded by busy_timeout.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #sqlite: SqliteDatabase.Database;
  constructor(config: { database: SqliteDatabase.Database }) {
    super({ database: withStatementCache(config.database) });
    this.#sqlite = config.database;
  }
  override async beginTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  /**
   * SQLite rolls a transaction back by itself after some errors (SQLITE_FULL on a full disk): a
   * second rollback would fail with "cannot rollback - no transaction is active" and hide the
   * error that caused it (docs/decisions/faults.md "Disk full").
   */
  override async rollbackTransaction(connection: DatabaseConnection) {
    if (this.#sqlite.inTransaction) await super.rollbackTransaction(connection);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: { database: SqliteDatabase.Database };
  constructor(config: { database: SqliteDatabase.Database }) {
    super(config);
    this.#config = config;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** Prepared statements kept per database, the most recently used (distinct SQL texts). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The database as Kysely sees it: `prepare` answers a statement already prepared for the same SQL
 * text when there is one (Kysely prepares every query afresh: tens of microseconds each, about
 * 0.3 s of CPU over a 5,000-file first deploy). Only Kysely gets this view, and it changes no
 * statement's mode (raw, pluck, expand), so a kept statement behaves as a fresh one. (While a
 * statement is being iterated, a streamed select, the connection runs no other; a busy one is still
 * never handed out: a fresh one is prepared beside it.)
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  const kept = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(source: string): SqliteDatabase.Statement {
      const hit = kept.get(source);
      if (hit && !hit.busy) {
        kept.delete(source);
        kept.set(source, hit);
        return hit;
      }
      const statement = sqlite.prepare(source);
      if (!hit) {
        kept.set(source, statement);
        if (kept.size > STATEMENT_CACHE_SIZE) kept.delete(kept.keys().next().value!);
      }
      return statement;
    },
  };
}

export function openSqlite(file: string): SqliteDatabase.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  return sqlite;
}

export function openDatabase(database: DatabaseConfig, opts: OpenDatabaseOptions = {}): DatabaseHandle {
  if (database.kind === 'sqlite') {
    const sqlite = openSqlite(database.file);
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const connection: pg.PoolConfig = {
    connectionString: database.url,
    // Names the connections in pg_stat_activity (a URL's own application_name wins).
    application_name: 'sitehall',
    max: 10,
    // Parallel workers cost more to start than these short queries take (the showcase: several
    // times slower on small machines), so every query runs in its own backend. Joins run in the
    // order written (as SQLite runs them): the showcase search writes its gram joins rarest and
    // farthest-apart first, and PostgreSQL's own order, from estimates that can't see how often
    // grams come together, probed a common gram thousands of times instead of merging it (the
    // author search of bench:showcase: twice as slow). It also plans these queries faster. No JIT:
    // a plan whose estimate passes jit_above_cost is compiled first, 14 ms at 1,000,000 projects
    // for a walk of the showcase that then ran in 4 (its estimate counts the whole order index,
    // blind to where the page's matches are; docs/decisions/data.md).
    options: [
      '-c max_parallel_workers_per_gather=0',
      '-c join_collapse_limit=1',
      '-c jit=off',
      ...(database.schema ? [`-c search_path=${database.schema}`] : []),
    ].join(' '),
  };
  const timeouts = opts.timeouts ?? TOOL_POSTGRES_TIMEOUTS;
  const pool = new GuardedPool(connection, timeouts, { open: !opts.closed });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    schema: database.schema,
    pool,
    async withoutTimeouts(work) {
      // No statement timeout, but a server that stops answering is still given up on (10 min).
      const own = new pg.Pool({
        ...connection,
        max: 1,
        connectionTimeoutMillis: timeouts.connectMs,
        query_timeout: 10 * 60_000,
      });
      own.on('error', () => {});
      const ownDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: own }) });
      try {
        return await work(ownDb);
      } finally {
        await ownDb.destroy();
      }
    },
    close: () => db.destroy(),
  };
}

export async function migrateToLatest(handle: DatabaseHandle): Promise<void> {
  // Migrations may run longer than any request's statement: on PostgreSQL, outside the pool.
  if (handle.withoutTimeouts) return handle.withoutTimeouts((db) => migrateWith(handle, db));
  return migrateWith(handle, handle.db);
}

async function migrateWith(handle: DatabaseHandle, db: DB): Promise<void> {
  const { error, results } = await migratorFor(handle, db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    // An outage during the migration is not a broken migration: the caller may try again.
    if (isDatabaseUnavailable(error)) throw new DatabaseUnavailable('connection', { cause: error });
    throw new Error(
      `Database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The migrator for this database (tests use it to stop at an older migration).
 *
 * On PostgreSQL, Kysely's migrator asks whether its own tables exist by reading the catalog of
 * every schema, calling pg_get_serial_sequence on each column of each table. When anyone drops a
 * schema, a table or a column during that read (parallel test runs drop their schemas all the
 * time; an operator may share the database), the read fails: 3F000, 42P01 or 42703. Its database
 * here answers those two questions from this schema's catalog alone, and nothing else changes.
 */
export function migratorFor(handle: DatabaseHandle, db: DB = handle.db): Migrator {
  return new Migrator({
    db: handle.dialect === 'postgres' ? withOwnSchemaIntrospection(db, handle.schema) : db,
    provider: migrationProvider(handle.dialect),
    // Kysely looks for its migration tables in every schema unless told which one: without this,
    // another schema's tables (a parallel test's) make it skip creating its own.
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
}

/** `db`, whose `introspection` sees one schema only (the configured one, else the current). */
function withOwnSchemaIntrospection(db: DB, schema: string | undefined): DB {
  const own = schema === undefined ? sql<string>`current_schema()` : sql<string>`${schema}`;
  const introspector: DatabaseIntrospector = {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`
        select nspname as name from pg_catalog.pg_namespace where nspname = ${own}`.execute(db);
      return rows;
    },
    async getTables() {
      const { rows } = await sql<{ name: string; schema: string; kind: string }>`
        select c.relname as name, n.nspname as schema, c.relkind as kind
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${own} and c.relkind in ('r', 'v', 'p')`.execute(db);
      return rows.map((r) => ({ name: r.name, schema: r.schema, isView: r.kind === 'v', columns: [] }));
    },
    async getMetadata() {
      return { tables: await this.getTables() };
    },
  };
  // Kysely keeps its state in private fields, so its methods and getters run on the instance itself.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** ISO-8601 UTC timestamp, the one format every table stores. */
export function now(): string {
  return new Date().toISOString();
}
