/** The review_comments table: the history of review decisions and rollbacks of each project. */
import type { Insertable } from 'kysely';
import type { DB } from '../db/database.js';
import type { ReviewCommentsTable } from '../db/types.js';

export async function add(trx: DB, row: Insertable<ReviewCommentsTable>): Promise<void> {
  await trx.insertInto('review_comments').values(row).execute();
}
