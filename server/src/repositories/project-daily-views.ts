/** The project_daily_views table: views per project per UTC day. */
import { sql } from 'kysely';
import type { DB } from '../db/database.js';

/** Adds n views to a project's day, made by the database (an upsert), never a read-then-write. */
export async function add(trx: DB, projectId: number, day: string, n: number): Promise<void> {
  await trx
    .insertInto('project_daily_views')
    .values({ project_id: projectId, day, views: n })
    .onConflict((oc) =>
      oc.columns(['project_id', 'day']).doUpdateSet({ views: sql`project_daily_views.views + ${n}` }),
    )
    .execute();
}

/** Views per UTC day of one project from `fromDay` (YYYY-MM-DD) on. */
export function ofProjectFrom(db: DB, projectId: number, fromDay: string) {
  return db
    .selectFrom('project_daily_views')
    .select(['day', 'views'])
    .where('project_id', '=', projectId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute();
}

/** Site views over all projects on UTC days in [fromDay, beforeDay). */
export async function totalBetween(db: DB, fromDay: string, beforeDay: string): Promise<number> {
  const row = await db
    .selectFrom('project_daily_views')
    .where('day', '>=', fromDay)
    .where('day', '<', beforeDay)
    .select(sql<number>`coalesce(sum(views), 0)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the views of UTC days before `beforeDay` (a project's total stays in projects.view_count). */
export async function expireBefore(db: DB, beforeDay: string): Promise<number> {
  const r = await db.deleteFrom('project_daily_views').where('day', '<', beforeDay).executeTakeFirst();
  return Number(r.numDeletedRows);
}
