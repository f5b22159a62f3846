/**
 * Storage quota and upload rate queries (docs/decisions.md "Storage quota and upload rate"): an
 * owner's used space, the account row the commit locks, and the log of accepted uploads.
 */
import type { DB } from '../db/database.js';
import type { MigrationDialect } from '../db/migrations/helpers.js';

export function createStorageRepository(db: DB, dialect: MigrationDialect) {
  return {
    /** The stored size of every version of every project the account owns, whatever its status. */
    async usedBytes(ownerId: number, trx: DB = db): Promise<number> {
      const row = await trx
        .selectFrom('projects')
        .innerJoin('deployments', 'deployments.project_id', 'projects.id')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('deployments.total_size'), eb.lit(0)).as('used'))
        .where('projects.owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(row.used);
    },

    /** The used space of several accounts in one query (those without versions are left out). */
    async usedBytesByOwner(ownerIds: readonly number[]): Promise<Map<number, number>> {
      const used = new Map<number, number>();
      if (ownerIds.length === 0) return used;
      const rows = await db
        .selectFrom('projects')
        .innerJoin('deployments', 'deployments.project_id', 'projects.id')
        .select((eb) => ['projects.owner_id', eb.fn.sum<number>('deployments.total_size').as('used')])
        .where('projects.owner_id', 'in', [...ownerIds])
        .groupBy('projects.owner_id')
        .execute();
      for (const r of rows) used.set(r.owner_id, Number(r.used));
      return used;
    },

    /** The account's own quota (null = the platform's), or undefined when the account is gone. */
    async quotaOf(userId: number, trx: DB = db): Promise<number | null | undefined> {
      const row = await trx
        .selectFrom('users')
        .select('storage_quota_bytes')
        .where('id', '=', userId)
        .executeTakeFirst();
      return row ? row.storage_quota_bytes : undefined;
    },

    /**
     * The same, inside a commit, holding the account's row until the transaction ends so uploads
     * to one account are checked one at a time. NO KEY UPDATE, not UPDATE: signing in and other
     * rows that reference the account (their foreign keys take KEY SHARE) are not held up. SQLite's
     * write transactions already run one at a time.
     */
    async lockAccount(trx: DB, userId: number): Promise<number | null | undefined> {
      let query = trx.selectFrom('users').select('storage_quota_bytes').where('id', '=', userId);
      if (dialect === 'postgres') query = query.forNoKeyUpdate();
      const row = await query.executeTakeFirst();
      return row ? row.storage_quota_bytes : undefined;
    },

    /**
     * When the account's `nth` newest upload since `since` was accepted, or undefined when it made
     * fewer: with nth = the hourly limit, the time the next upload waits for.
     */
    async nthUploadSince(userId: number, since: string, nth: number, trx: DB = db) {
      const row = await trx
        .selectFrom('upload_events')
        .select('created_at')
        .where('user_id', '=', userId)
        .where('created_at', '>', since)
        .orderBy('created_at', 'desc')
        .limit(1)
        .offset(nth - 1)
        .executeTakeFirst();
      return row?.created_at;
    },

    /** Logs an accepted upload and forgets the account's uploads older than `forgetBefore`. */
    async recordUpload(trx: DB, userId: number, at: string, forgetBefore: string): Promise<void> {
      await trx
        .deleteFrom('upload_events')
        .where('user_id', '=', userId)
        .where('created_at', '<=', forgetBefore)
        .execute();
      await trx.insertInto('upload_events').values({ user_id: userId, created_at: at }).execute();
    },
  };
}
export type StorageRepository = ReturnType<typeof createStorageRepository>;
