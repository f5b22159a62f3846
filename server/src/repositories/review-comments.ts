/** The review_comments table: the history of review decisions and rollbacks of each project. */
import type { Insertable } from 'kysely';
import type { DB } from '../db/database.js';
import type { ReviewCommentsTable } from '../db/types.js';

export async function add(trx: DB, row: Insertable<ReviewCommentsTable>): Promise<void> {
  await trx.insertInto('review_comments').values(row).execute();
}

/** A project's review history, the newest first, with who decided and on which version. */
export function ofProject(db: DB, projectId: number) {
  return db
    .selectFrom('review_comments')
    .leftJoin('users', 'users.id', 'review_comments.actor_id')
    .leftJoin('deployments', 'deployments.id', 'review_comments.deployment_id')
    .select([
      'review_comments.id',
      'review_comments.action',
      'review_comments.comment',
      'review_comments.created_at',
      'users.username as reviewer',
      'deployments.version as deployment_version',
    ])
    .where('review_comments.project_id', '=', projectId)
    .orderBy('review_comments.id', 'desc')
    .execute();
}

/** Review decisions of these actions made in [from, before) (ISO timestamps). */
export async function countBetween(db: DB, actions: string[], from: string, before: string): Promise<number> {
  const row = await db
    .selectFrom('review_comments')
    .where('action', 'in', actions)
    .where('created_at', '>=', from)
    .where('created_at', '<', before)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
