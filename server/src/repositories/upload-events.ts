/**
 * The upload_events table: each account's accepted uploads of the last hour, for the hourly limit
 * (docs/decisions/uploads.md "Storage quota and upload rate").
 */
import type { DB } from '../db/database.js';

/**
 * When the account's `nth` newest upload since `since` was accepted, or undefined when it made
 * fewer: with nth = the hourly limit, the time the next upload waits for.
 */
export async function nthSince(db: DB, userId: number, since: string, nth: number) {
  const row = await db
    .selectFrom('upload_events')
    .select('created_at')
    .where('user_id', '=', userId)
    .where('created_at', '>', since)
    .orderBy('created_at', 'desc')
    .limit(1)
    .offset(nth - 1)
    .executeTakeFirst();
  return row?.created_at;
}

/** Logs an accepted upload and forgets the account's uploads older than `forgetBefore`. */
export async function record(trx: DB, userId: number, at: string, forgetBefore: string): Promise<void> {
  await trx
    .deleteFrom('upload_events')
    .where('user_id', '=', userId)
    .where('created_at', '<=', forgetBefore)
    .execute();
  await trx.insertInto('upload_events').values({ user_id: userId, created_at: at }).execute();
}
