import type { DB } from '../db/database.js';
import type { ApiTokenRow, UserRow } from '../db/types.js';

export function createApiTokensRepository() {
  return {
    insert(trx: DB, t: Omit<ApiTokenRow, 'id'>): Promise<ApiTokenRow> {
      return trx.insertInto('api_tokens').values(t).returningAll().executeTakeFirstOrThrow();
    },
    async countOf(trx: DB, userId: number): Promise<number> {
      const r = await trx
        .selectFrom('api_tokens')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    listOf(db: DB, userId: number): Promise<ApiTokenRow[]> {
      return db
        .selectFrom('api_tokens')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .execute();
    },
    /** The token of a hash, with its user. */
    async findByHash(db: DB, tokenHash: string): Promise<{ token: ApiTokenRow; user: UserRow } | undefined> {
      const token = await db
        .selectFrom('api_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!token) return undefined;
      const user = await db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', token.user_id)
        .executeTakeFirst();
      return user ? { token, user } : undefined;
    },
    async touch(db: DB, id: number, at: string): Promise<void> {
      await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
    },
    /** True when the user's token existed (and is now gone). */
    async deleteOf(db: DB, userId: number, id: number): Promise<boolean> {
      const r = await db
        .deleteFrom('api_tokens')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** The user's token of that id, if it is one of theirs. */
    oneOf(db: DB, userId: number, id: number): Promise<ApiTokenRow | undefined> {
      return db
        .selectFrom('api_tokens')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },
    /** How many of the user's tokens there were (all gone now). */
    async deleteAllOf(trx: DB, userId: number): Promise<number> {
      const r = await trx.deleteFrom('api_tokens').where('user_id', '=', userId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>;
