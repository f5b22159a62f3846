import type { DB } from '../db/database.js';
import type { SessionEndReason, SessionRow, UserRow } from '../db/types.js';

export function createSessionsRepository() {
  return {
    async insert(db: DB, s: Omit<SessionRow, 'id' | 'ended_reason'>): Promise<SessionRow> {
      return db.insertInto('sessions').values(s).returningAll().executeTakeFirstOrThrow();
    },
    /** The unexpired session of a token hash (live, or ended with a reason), with its user. */
    async findValid(
      db: DB,
      tokenHash: string,
      at: string,
    ): Promise<{ session: SessionRow; user: UserRow } | undefined> {
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .select([
          'sessions.id as s_id',
          'sessions.user_id as s_user_id',
          'sessions.token_hash as s_token_hash',
          'sessions.remember as s_remember',
          'sessions.created_at as s_created_at',
          'sessions.signed_in_at as s_signed_in_at',
          'sessions.expires_at as s_expires_at',
          'sessions.last_used_at as s_last_used_at',
          'sessions.ip as s_ip',
          'sessions.user_agent as s_user_agent',
          'sessions.ended_reason as s_ended_reason',
        ])
        .where('sessions.token_hash', '=', tokenHash)
        .where('sessions.expires_at', '>', at)
        .executeTakeFirst();
      if (!row) return undefined;
      const {
        s_id,
        s_user_id,
        s_token_hash,
        s_remember,
        s_created_at,
        s_signed_in_at,
        s_expires_at,
        s_last_used_at,
        s_ip,
        s_user_agent,
        s_ended_reason,
        ...user
      } = row;
      return {
        session: {
          id: s_id,
          user_id: s_user_id,
          token_hash: s_token_hash,
          remember: s_remember,
          created_at: s_created_at,
          signed_in_at: s_signed_in_at,
          expires_at: s_expires_at,
          last_used_at: s_last_used_at,
          ip: s_ip,
          user_agent: s_user_agent,
          ended_reason: s_ended_reason,
        },
        user,
      };
    },
    async touch(db: DB, id: number, at: string): Promise<void> {
      await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute();
    },
    async delete(db: DB, id: number): Promise<void> {
      await db.deleteFrom('sessions').where('id', '=', id).execute();
    },
    /** Deletes a session and returns it, in one statement: of two concurrent takes only one wins. */
    take(db: DB, id: number): Promise<SessionRow | undefined> {
      return db.deleteFrom('sessions').where('id', '=', id).returningAll().executeTakeFirst();
    },
    async deleteForUser(db: DB, userId: number, exceptId?: number): Promise<void> {
      let q = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
      await q.execute();
    },
    /** Ends every session of a user, keeping them (until they expire) to tell why. */
    async endForUser(db: DB, userId: number, reason: SessionEndReason): Promise<void> {
      await db.updateTable('sessions').set({ ended_reason: reason }).where('user_id', '=', userId).execute();
    },
    async deleteExpired(db: DB, at: string): Promise<number> {
      const r = await db.deleteFrom('sessions').where('expires_at', '<=', at).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
