/**
 * The deployments table: one row per uploaded version of a project. Functions take the executor
 * (the database or the caller's transaction): services own the transaction.
 */
import type { Insertable } from 'kysely';
import type { DB } from '../db/database.js';
import type { DeploymentsTable } from '../db/types.js';

/** Status, entry and dates of one deployment (what serving a site needs), or undefined. */
export function servingFacts(db: DB, id: number) {
  return db
    .selectFrom('deployments')
    .select(['id', 'project_id', 'entry_file', 'reviewed_at', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A deployment's status, or undefined when there is no such deployment. */
export async function statusOf(db: DB, id: number) {
  const row = await db.selectFrom('deployments').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

export async function insert(trx: DB, row: Insertable<DeploymentsTable>): Promise<number> {
  const d = await trx.insertInto('deployments').values(row).returning('id').executeTakeFirstOrThrow();
  return d.id;
}

/** A pending version nobody reviewed yet is replaced by a newer one. */
export async function supersedePending(trx: DB, projectId: number): Promise<void> {
  await trx
    .updateTable('deployments')
    .set({ status: 'superseded' })
    .where('project_id', '=', projectId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Records a review decision on a deployment; with `onlyIf`, only while its status is one of
 * those.
 */
export async function markReviewed(
  trx: DB,
  id: number,
  review: {
    status: 'approved' | 'rejected';
    at: string;
    by: number;
    comment: string | null;
    onlyIf?: Array<'pending' | 'rejected'>;
  },
): Promise<void> {
  let q = trx
    .updateTable('deployments')
    .set({
      status: review.status,
      reviewed_at: review.at,
      reviewed_by: review.by,
      review_comment: review.comment,
    })
    .where('id', '=', id);
  if (review.onlyIf) q = q.where('status', 'in', review.onlyIf);
  await q.execute();
}
