/**
 * Sessions: opaque random bearer tokens (32 bytes) stored only as SHA-256 hashes. Remember-me keeps
 * a session 30 days, otherwise 12 hours. Refresh rotates the token, never past the sign-in's own
 * lifetime (docs/decisions/accounts.md "Sessions").
 */
import { createHash, randomBytes } from 'node:crypto';
import { type DB, now } from '../db/database.js';
import type { SessionEndReason, UserRow } from '../db/types.js';
import type { SessionsRepository } from '../repositories/sessions.js';

export const SESSION_TTL_MS = { remember: 30 * 24 * 3600_000, normal: 12 * 3600_000 } as const;
/**
 * How long one sign-in lasts however often it is refreshed: a remembered one its 30 days, another
 * a week. A stolen token that is refreshed before it runs out still ends.
 */
export const SESSION_MAX_MS = { remember: SESSION_TTL_MS.remember, normal: 7 * 24 * 3600_000 } as const;
const TOUCH_EVERY_MS = 5 * 60_000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface IssuedSession {
  token: string;
  expiresAt: string;
  sessionId: number;
}

export function createSessionService(db: DB, repo: SessionsRepository) {
  /** `signedInAt`: the sign-in a refresh continues (absent: this is a sign-in). */
  async function issue(
    user: UserRow,
    opts: { remember: boolean; ip?: string; userAgent?: string; signedInAt?: string },
  ): Promise<IssuedSession> {
    const token = newToken();
    const at = now();
    // Expired sessions are dead weight: each sign-in clears them (an indexed range delete).
    await repo.deleteExpired(db, at);
    const kind = opts.remember ? 'remember' : 'normal';
    const signedInAt = opts.signedInAt ?? at;
    const expiresAt = new Date(
      Math.min(Date.parse(at) + SESSION_TTL_MS[kind], Date.parse(signedInAt) + SESSION_MAX_MS[kind]),
    ).toISOString();
    const row = await repo.insert(db, {
      user_id: user.id,
      token_hash: hashToken(token),
      remember: opts.remember ? 1 : 0,
      created_at: at,
      signed_in_at: signedInAt,
      expires_at: expiresAt,
      last_used_at: at,
      ip: opts.ip ?? null,
      user_agent: opts.userAgent?.slice(0, 300) ?? null,
    });
    return { token, expiresAt, sessionId: row.id };
  }

  return {
    issue,

    /**
     * The user of a live token; disabled accounts have no live sessions. A session ended for a
     * reason its holder should hear (the account was disabled) answers that reason instead.
     */
    async authenticate(
      token: string,
    ): Promise<{ user: UserRow; sessionId: number; remember: boolean } | { ended: SessionEndReason } | null> {
      const at = now();
      const found = await repo.findValid(db, hashToken(token), at);
      if (!found) return null;
      if (found.session.ended_reason) return { ended: found.session.ended_reason };
      if (found.user.disabled) return null;
      if (Date.parse(at) - Date.parse(found.session.last_used_at) > TOUCH_EVERY_MS) {
        await repo.touch(db, found.session.id, at);
      }
      return { user: found.user, sessionId: found.session.id, remember: found.session.remember === 1 };
    },

    /**
     * Refresh: ends this session and issues a new one with the same remember-me choice and a full
     * lifetime, cut at the sign-in's end (SESSION_MAX_MS). Null when the session is already gone (a
     * concurrent refresh or logout won).
     */
    async rotate(
      sessionId: number,
      user: UserRow,
      meta: { ip?: string; userAgent?: string },
    ): Promise<IssuedSession | null> {
      const old = await repo.take(db, sessionId);
      if (!old) return null;
      return issue(user, {
        remember: old.remember === 1,
        signedInAt: old.signed_in_at ?? old.created_at,
        ...meta,
      });
    },

    revoke(sessionId: number) {
      return repo.delete(db, sessionId);
    },
    revokeAllOf(userId: number, exceptSessionId?: number) {
      return repo.deleteForUser(db, userId, exceptSessionId);
    },
    /** Ends every session of a disabled account; their holders are told why on their next request. */
    endForDisabledAccount(userId: number) {
      return repo.endForUser(db, userId, 'account_disabled');
    },
    deleteExpired() {
      return repo.deleteExpired(db, now());
    },
  };
}
export type SessionService = ReturnType<typeof createSessionService>;
