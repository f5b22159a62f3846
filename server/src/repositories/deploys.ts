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
    /** Deletes a deploy and says whether this call did (of two concurrent finishes one wins). */
    async take(id: string, trx: DB = db): Promise<boolean> {
      const r = await trx.deleteFrom('deploys').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async expiredIds(at: string): Promise<string[]> {
      const rows = await db.selectFrom('deploys').select('id').where('expires_at', '<=', at).execute();
      return rows.map((r) => r.id);
    },
  };
}
export type DeploysRepository = ReturnType<typeof createDeploysRepository>;
