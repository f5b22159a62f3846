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
