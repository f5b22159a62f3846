/**
 * PostgreSQL only: statistics that let the planner tell a common search gram from a rare one
 * (docs/decisions/serving.md "Serving and showcase"). With the default target (100 most common values of
 * some 35,000 grams) it guessed ~1,000 holders for every gram, so joining a gram held by 11,000
 * projects after two narrower ones looked like a handful of index probes and cost thousands; with
 * 1,000 most common values it sees each common gram's real count. The search's joins then follow
 * the order search/sql.ts writes them in (join_collapse_limit=1, db/database.ts).
 * SQLite plans these joins in the order written already and needs nothing.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table showcase_grams alter column gram set statistics 1000`.execute(db);
  // Now rather than at autovacuum's next visit: an install with projects searches well at once.
  await sql`analyze showcase_grams`.execute(db);
}
