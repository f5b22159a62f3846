import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';

/** The engine a migration runs on (db/dialect.ts). */
export type MigrationDialect = Dialect;

/** An auto-incrementing integer primary key named id, written for each engine. */
export function idColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: MigrationDialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
