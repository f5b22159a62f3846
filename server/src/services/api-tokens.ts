/**
 * Personal API tokens for the command line and CI (docs/decisions/deploys.md "API tokens"): 32 random
 * bytes behind a recognisable prefix, shown once, stored only as a SHA-256 hash.
 */
import {
  API_TOKEN_PREFIX,
  API_TOKEN_SHOWN_CHARS,
  API_TOKENS_MAX,
  format,
  messages,
} from '@sitehall/contracts';
import { type DB, now } from '../db/database.js';
import type { UserRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { Conflict, NotFound } from '../domain/errors.js';
import type { RequestMeta } from '../domain/request-meta.js';
import type { ApiTokensRepository } from '../repositories/api-tokens.js';
import type { UsersRepository } from '../repositories/users.js';
import type { AuditService } from './audit.js';
import { hashToken, newToken } from './sessions.js';

const m = messages.deploy;
/** last_used_at is written at most this often per token (a CI job calls many times a minute). */
const TOUCH_EVERY_MS = 60_000;

export function isApiToken(token: string): boolean {
  return token.startsWith(API_TOKEN_PREFIX);
}

export function createApiTokenService(deps: {
  db: DB;
  tokens: ApiTokensRepository;
  users: Pick<UsersRepository, 'byId'>;
  audit: AuditService;
}) {
  const { db, tokens, users, audit } = deps;
  return {
    async create(actor: Actor, name: string, meta: RequestMeta) {
      if ((await tokens.countOf(db, actor.id)) >= API_TOKENS_MAX) {
        throw new Conflict(format(m.tooManyTokens, { n: API_TOKENS_MAX }));
      }
      const token = `${API_TOKEN_PREFIX}${newToken()}`;
      const row = await tokens.insert(db, {
        user_id: actor.id,
        name,
        token_hash: hashToken(token),
        prefix: token.slice(0, API_TOKEN_PREFIX.length + API_TOKEN_SHOWN_CHARS),
        created_at: now(),
        last_used_at: null,
      });
      await audit.record({
        actor,
        action: 'token.create',
        targetType: 'user',
        targetId: actor.id,
        detail: { token_id: row.id, name },
        ip: meta.ip,
      });
      return { id: row.id, name: row.name, token };
    },

    list(actor: Actor) {
      return tokens.listOf(db, actor.id);
    },

    async revoke(actor: Actor, id: number, meta: RequestMeta) {
      if (!(await tokens.deleteOf(db, actor.id, id))) throw new NotFound(m.tokenNotFound);
      await audit.record({
        actor,
        action: 'token.revoke',
        targetType: 'user',
        targetId: actor.id,
        detail: { token_id: id },
        ip: meta.ip,
      });
    },

    /** Any account's tokens, for an administrator (the route is admin-only). */
    async listOfUser(userId: number) {
      if (!(await users.byId(db, userId))) throw new NotFound(messages.auth.userNotFound);
      return tokens.listOf(db, userId);
    },

    /** An administrator revokes one of another account's tokens (a leak, a job gone). */
    async revokeOfUser(actor: Actor, userId: number, id: number, meta: RequestMeta) {
      const token = await tokens.oneOf(db, userId, id);
      if (!token || !(await tokens.deleteOf(db, userId, id))) throw new NotFound(m.tokenNotFound);
      await audit.record({
        actor,
        action: 'token.admin_revoke',
        targetType: 'user',
        targetId: userId,
        detail: { token_id: id, name: token.name },
        ip: meta.ip,
      });
    },

    /** The user of a live token; a disabled account's tokens sign no one in (and were deleted). */
    async authenticate(token: string): Promise<{ user: UserRow; tokenId: number } | null> {
      const found = await tokens.findByHash(db, hashToken(token));
      if (!found || found.user.disabled) return null;
      const at = now();
      const last = found.token.last_used_at;
      if (!last || Date.parse(at) - Date.parse(last) > TOUCH_EVERY_MS)
        await tokens.touch(db, found.token.id, at);
      return { user: found.user, tokenId: found.token.id };
    },

    /**
     * A new password (changed, reset on the web or the command line) or a disabled account revokes
     * every token of the account for good (unlike sessions, nobody is told why). Returns how many.
     */
    revokeAllOf(userId: number) {
      return tokens.deleteAllOf(db, userId);
    },
  };
}
export type ApiTokenService = ReturnType<typeof createApiTokenService>;
