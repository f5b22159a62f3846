/**
 * A takedown becomes a state of its own (docs/decisions/honest-states.md "Taken down is a state of its own"):
 * projects.status may now be taken_down. Until now a takedown stored rejected, but every review
 * decision is also a review_comments row with its action, so existing takedowns can be told apart:
 * a rejected project whose latest decision was a takedown was taken down (a new upload after it
 * would have made the project pending, and a rejection of that upload would be the latest).
 *
 * SQLite cannot change a CHECK constraint in place: the table is rebuilt (SQLite's documented
 * twelve-step procedure, with foreign keys off so that dropping the old table cascades nothing),
 * and its indexes and triggers are created again from their stored definitions.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const OLD_CHECK = "status in ('pending', 'approved', 'published', 'rejected')";
const NEW_CHECK = "status in ('pending', 'approved', 'published', 'rejected', 'taken_down')";

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table projects drop constraint if exists projects_status_check`.execute(db);
    await sql`alter table projects add constraint projects_status_check check (${sql.raw(NEW_CHECK)})`.execute(
      db,
    );
  } else {
    await rebuildSqliteProjects(db);
  }
  await sql`update projects set status = 'taken_down'
    where status = 'rejected'
      and (select rc.action from review_comments rc
           where rc.project_id = projects.id
           order by rc.id desc limit 1) = 'takedown'`.execute(db);
}

async function rebuildSqliteProjects(db: Kysely<unknown>): Promise<void> {
  const table = await sql<{ sql: string }>`select sql from sqlite_master
    where type = 'table' and name = 'projects'`.execute(db);
  const createSql = table.rows[0]?.sql;
  if (!createSql?.includes(OLD_CHECK)) throw new Error('015: projects has an unexpected definition');
  const dependents = await sql<{ sql: string }>`select sql from sqlite_master
    where tbl_name = 'projects' and type in ('index', 'trigger') and sql is not null`.execute(db);
  // Kysely runs SQLite migrations outside a transaction (no transactional DDL), so the pragma
  // applies; the rebuild itself is one transaction.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      const created = createSql
        .replace(OLD_CHECK, NEW_CHECK)
        .replace(/^create table\s+("?)projects\1/i, 'create table "projects_015"');
      await sql.raw(created).execute(db);
      await sql`insert into projects_015 select * from projects`.execute(db);
      await sql`drop table projects`.execute(db);
      await sql`alter table projects_015 rename to projects`.execute(db);
      for (const d of dependents.rows) await sql.raw(d.sql).execute(db);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error('015: the rebuild broke a foreign key');
      await sql`commit`.execute(db);
    } catch (err) {
      await sql`rollback`.execute(db);
      throw err;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
