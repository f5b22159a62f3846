/**
 * The analytics tables of migration 017: page views per path, views per referring host and bytes
 * served, per project and UTC day. Every write adds with an upsert made by the database, never a
 * read-then-write, so several instances' flushes add up (as project_daily_views does).
 */
import { sql } from 'kysely';
import type { DB } from '../db/database.js';

export async function addPage(trx: DB, projectId: number, day: string, path: string, n: number) {
  await trx
    .insertInto('project_daily_pages')
    .values({ project_id: projectId, day, path, views: n })
    .onConflict((oc) =>
      oc.columns(['project_id', 'day', 'path']).doUpdateSet({ views: sql`project_daily_pages.views + ${n}` }),
    )
    .execute();
}

export async function addReferrer(trx: DB, projectId: number, day: string, host: string, n: number) {
  await trx
    .insertInto('project_daily_referrers')
    .values({ project_id: projectId, day, host, views: n })
    .onConflict((oc) =>
      oc
        .columns(['project_id', 'day', 'host'])
        .doUpdateSet({ views: sql`project_daily_referrers.views + ${n}` }),
    )
    .execute();
}

export async function addBytes(trx: DB, projectId: number, day: string, n: number) {
  await trx
    .insertInto('project_daily_bytes')
    .values({ project_id: projectId, day, bytes: n })
    .onConflict((oc) =>
      oc.columns(['project_id', 'day']).doUpdateSet({ bytes: sql`project_daily_bytes.bytes + ${n}` }),
    )
    .execute();
}

/** The pages (`project_daily_pages`) or referring hosts (`project_daily_referrers`) of one site's day. */
type KeyedTable =
  | { table: 'project_daily_pages'; column: 'path' }
  | { table: 'project_daily_referrers'; column: 'host' };

/** How many pages or hosts one site's day holds. */
export async function keysOfDayCount(
  trx: DB,
  of: KeyedTable,
  projectId: number,
  day: string,
): Promise<number> {
  const row = await trx
    .selectFrom(of.table)
    .select(sql<number>`count(*)`.as('n'))
    .where('project_id', '=', projectId)
    .where('day', '=', day)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The pages or hosts one site's day holds (at most MAX_DAY_KEYS of services/site-analytics.ts). */
export async function keysOfDay(trx: DB, of: KeyedTable, projectId: number, day: string): Promise<string[]> {
  if (of.table === 'project_daily_pages') {
    const rows = await trx
      .selectFrom('project_daily_pages')
      .select('path')
      .where('project_id', '=', projectId)
      .where('day', '=', day)
      .execute();
    return rows.map((r) => r.path);
  }
  const rows = await trx
    .selectFrom('project_daily_referrers')
    .select('host')
    .where('project_id', '=', projectId)
    .where('day', '=', day)
    .execute();
  return rows.map((r) => r.host);
}

/** The most viewed paths of a project from `fromDay` on. */
export async function topPages(db: DB, projectId: number, fromDay: string, limit: number) {
  const rows = await db
    .selectFrom('project_daily_pages')
    .select(['path', sql<number>`sum(views)`.as('views')])
    .where('project_id', '=', projectId)
    .where('day', '>=', fromDay)
    .groupBy('path')
    .orderBy(sql`sum(views)`, 'desc')
    .orderBy('path')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ path: r.path, views: Number(r.views) }));
}

/** The hosts that sent the most visitors to a project from `fromDay` on. */
export async function topReferrers(db: DB, projectId: number, fromDay: string, limit: number) {
  const rows = await db
    .selectFrom('project_daily_referrers')
    .select(['host', sql<number>`sum(views)`.as('views')])
    .where('project_id', '=', projectId)
    .where('day', '>=', fromDay)
    .groupBy('host')
    .orderBy(sql`sum(views)`, 'desc')
    .orderBy('host')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ host: r.host, views: Number(r.views) }));
}

/** Bytes served per UTC day of a project from `fromDay` on. */
export async function bytesByDay(db: DB, projectId: number, fromDay: string) {
  const rows = await db
    .selectFrom('project_daily_bytes')
    .select(['day', 'bytes'])
    .where('project_id', '=', projectId)
    .where('day', '>=', fromDay)
    .execute();
  return new Map(rows.map((r) => [r.day, Number(r.bytes)]));
}

/** Deletes the pages, referrers and bytes of UTC days before `beforeDay`; returns how many rows. */
export async function expireBefore(db: DB, beforeDay: string): Promise<number> {
  let n = 0;
  for (const table of ['project_daily_pages', 'project_daily_referrers', 'project_daily_bytes'] as const) {
    const r = await db.deleteFrom(table).where('day', '<', beforeDay).executeTakeFirst();
    n += Number(r.numDeletedRows);
  }
  return n;
}
