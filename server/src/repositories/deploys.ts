import type { DB } from '../db/database.js';
import type { DeployRow } from '../db/types.js';

export function createDeploysRepository(db: DB) {
  return {
    async insert(d: DeployRow, trx: DB = db): Promise<void> {
      await trx.insertInto('deploys').values(d).execute();
    },
    /** A deploy of this user that has not expired. */
    byId(id: string, userId: number, at: string): Promise<DeployRow | undefined> {
      return db
        .selectFrom('deploys')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('expires_at', '>', at)
        .executeTakeFirst();
    },
    /**
     * The same check without the manifest (a PUT's: does the deploy exist, is it this user's, has
     * it not expired), so that a PUT neither reads nor parses some hundred KB per file.
     */
    openById(id: string, userId: number, at: string): Promise<{ project_id: number | null } | undefined> {
      return db
        .selectFrom('deploys')
        .select('project_id')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('expires_at', '>', at)
        .executeTakeFirst();
    },
    /** A deploy's manifest (JSON), for an instance that did not begin it. */
    async manifestOf(id: string): Promise<string | undefined> {
      const row = await db.selectFrom('deploys').select('manifest').where('id', '=', id).executeTakeFirst();
      return row?.manifest;
    },
    /** Deletes a deploy and says whether this call did (of two concurrent finishes one wins). */
    async take(id: string, trx: DB = db): Promise<boolean> {
      const r = await trx.deleteFrom('deploys').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /**
     * Adds received bytes unless the total would pass `max`, in one statement (concurrent uploads
     * to one deploy can't pass the limit together). False when it would.
     */
    async addReceived(id: string, bytes: number, max: number): Promise<boolean> {
      const r = await db
        .updateTable('deploys')
        .set((eb) => ({ received_bytes: eb('received_bytes', '+', bytes) }))
        .where('id', '=', id)
        .where((eb) => eb(eb('received_bytes', '+', bytes), '<=', max))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Deploys nobody finished in time (the leftover sweep removes them). */
    expired(at: string): Promise<DeployRow[]> {
      return db.selectFrom('deploys').selectAll().where('expires_at', '<=', at).execute();
    },
  };
}
export type DeploysRepository = ReturnType<typeof createDeploysRepository>;
