/** Accounts: sign-in, the first admin, registration by admins, profiles and user administration. */
import { createHash } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { type AuditActionOn, AVATAR_MAX_PIXELS_SIDE, format, messages, type Role } from '@sitehall/contracts';
import { type DB, now } from '../db/database.js';
import type { UserRow, UserUpdate } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { Conflict, Forbidden, Invalid, NotFound, Unauthorized } from '../domain/errors.js';
import type { LoginThrottle, Reservation } from '../domain/login-throttle.js';
import { weakPasswordReason } from '../domain/password-strength.js';
import { generatePassword, type PasswordHasher } from '../domain/passwords.js';
import type { RequestMeta } from '../domain/request-meta.js';
import * as notices from '../repositories/notifications.js';
import { type UsersRepository, uniqueViolation, usernameKey } from '../repositories/users.js';
import type { ApiTokenService } from './api-tokens.js';
import type { AuditService } from './audit.js';
import type { SessionService } from './sessions.js';

const m = messages.auth;

/**
 * Names an account's current password for the sign-in throttle's keys: a new password (its hash
 * has a new salt) is a new name, so its counts start afresh on every instance, whoever set it
 * (docs/decisions/accounts.md "Sign-in throttling").
 */
function passwordGeneration(user: UserRow): string {
  const password = createHash('sha256').update(user.password_hash).digest('base64url').slice(0, 12);
  // An admin's unlock adds one to the epoch: the same fresh start, keeping the password.
  return user.sign_in_epoch ? `${password}:${user.sign_in_epoch}` : password;
}

/** Whole minutes until `resetAt` (epoch ms), at least 1. */
const minutesUntil = (resetAt: number) => Math.max(1, Math.ceil((resetAt - Date.now()) / 60_000));

/** From this many failures left, a wrong password says how many (docs/decisions/accounts.md "Lock-outs admins can see"). */
const WARN_FROM_LEFT = 2;

export function createAccountService(deps: {
  db: DB;
  users: UsersRepository;
  sessions: SessionService;
  hasher: PasswordHasher;
  throttle: LoginThrottle;
  audit: AuditService;
  /** A new password or a disabled account revokes the account's API tokens. */
  apiTokens: Pick<ApiTokenService, 'revokeAllOf'>;
}) {
  const { db, users, sessions, hasher, throttle, audit } = deps;

  async function requireUser(id: number): Promise<UserRow> {
    const user = await users.byId(db, id);
    if (!user) throw new NotFound(m.userNotFound);
    return user;
  }

  async function assertEmailFree(email: string | null | undefined, exceptId?: number) {
    if (!email) return;
    const other = await users.byEmail(db, email);
    if (other && other.id !== exceptId) throw new Conflict(m.emailTaken, 'email');
  }

  /** Runs a write; losing a race on a unique username or email gives the same 409 as the check. */
  async function uniquely<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      const field = uniqueViolation(err);
      if (field === 'username') throw new Conflict(m.usernameTaken, 'username');
      if (field === 'email') throw new Conflict(m.emailTaken, 'email');
      throw err;
    }
  }

  async function createAccount(input: {
    username: string;
    email: string | null;
    role: Role;
    password: string;
    /** The password was generated (the owner is asked to choose their own). */
    generated: boolean;
  }): Promise<UserRow> {
    const username = input.username.trim().normalize('NFC');
    const at = now();
    const passwordHash = await hasher.hash(input.password);
    return uniquely(() =>
      users.insert(db, {
        username,
        username_key: usernameKey(username),
        email: input.email,
        role: input.role,
        avatar: null,
        password_hash: passwordHash,
        disabled: 0,
        created_at: at,
        updated_at: at,
        last_login_at: null,
        password_initial: input.generated ? 1 : 0,
      }),
    );
  }

  return {
    /**
     * Unknown accounts and wrong passwords get the same answer after the same work (a verification
     * against a dummy hash), so neither the message nor the timing tells which accounts exist.
     */
    async login(input: { username: string; password: string; remember: boolean }, meta: RequestMeta) {
      const user = await users.byLogin(db, input.username);
      // One budget per account and password, whether it is named by username or by email.
      const account = user
        ? `user:${user.id}:${passwordGeneration(user)}`
        : `login:${usernameKey(input.username)}`;
      let reserved: Reservation;
      try {
        reserved = await throttle.reserve(account, meta.ip);
      } catch (err) {
        await audit.record({
          action: 'auth.login_throttled',
          targetType: 'user',
          targetId: user?.id,
          detail: { login: input.username.slice(0, 100) },
          ip: meta.ip,
        });
        throw err;
      }
      // An account failing from many addresses: every sign-in of it waits a little, right or wrong.
      if (reserved.delayMs > 0) await setTimeout(reserved.delayMs);
      let ok: boolean;
      try {
        ok = user
          ? await hasher.verify(user.password_hash, input.password)
          : await hasher.verifyNothing(input.password);
      } catch (err) {
        // Not verified (too many sign-ins hashing at once): the attempt does not count.
        await throttle.cancelled(account, meta.ip);
        throw err;
      }
      if (!user || !ok) {
        await throttle.failed(account, meta.ip);
        await audit.record({
          action: 'auth.login_failed',
          targetType: 'user',
          targetId: user?.id,
          detail: { login: input.username.slice(0, 100) },
          ip: meta.ip,
        });
        // Unknown names are counted and warned the same way: the answer tells no account apart.
        const { attemptsLeft, resetAt } = reserved;
        if (attemptsLeft <= 0) {
          if (user) await users.update(db, user.id, { locked_until: new Date(resetAt).toISOString() });
          throw new Unauthorized(format(m.badCredentialsLocked, { minutes: minutesUntil(resetAt) }));
        }
        if (attemptsLeft <= WARN_FROM_LEFT)
          throw new Unauthorized(
            format(m.badCredentialsLeft, {
              n: attemptsLeft,
              minutes: Math.round(throttle.limits.windowMs / 60_000),
            }),
          );
        throw new Unauthorized(m.badCredentials);
      }
      if (user.disabled) {
        await audit.record({
          actor: user,
          action: 'auth.login_disabled',
          targetType: 'user',
          targetId: user.id,
          ip: meta.ip,
        });
        throw new Forbidden(m.accountDisabled);
      }
      await throttle.succeeded(account, meta.ip);
      const session = await sessions.issue(user, { remember: input.remember, ...meta });
      const updated = (await users.update(db, user.id, { last_login_at: now() })) ?? user;
      await audit.record({
        actor: user,
        action: 'auth.login',
        targetType: 'user',
        targetId: user.id,
        detail: { remember: input.remember },
        ip: meta.ip,
      });
      return { session, user: updated };
    },

    async logout(actor: Actor, meta: RequestMeta) {
      await sessions.revoke(actor.sessionId);
      await audit.record({
        actor,
        action: 'auth.logout',
        targetType: 'user',
        targetId: actor.id,
        ip: meta.ip,
      });
    },

    /** A new token for the same session kind; the old token stops working at once. */
    async refresh(actor: Actor, meta: RequestMeta) {
      const user = await requireUser(actor.id);
      const session = await sessions.rotate(actor.sessionId, user, meta);
      if (!session) throw new Unauthorized(messages.common.sessionExpired);
      return { session, user };
    },

    profile: requireUser,

    /** Own email, avatar and password; a password change needs the current one. */
    async updateProfile(
      actor: Actor,
      input: {
        email?: string | null;
        avatar?: string | null;
        current_password?: string;
        new_password?: string;
        email_notifications?: boolean;
      },
      meta: RequestMeta,
    ): Promise<{ user: UserRow; passwordChanged: boolean }> {
      const user = await requireUser(actor.id);
      const patch: UserUpdate = {};
      if (
        input.email_notifications !== undefined &&
        Number(input.email_notifications) !== user.email_notifications
      )
        patch.email_notifications = input.email_notifications ? 1 : 0;
      if (input.email !== undefined && input.email !== user.email) {
        await assertEmailFree(input.email, user.id);
        patch.email = input.email;
      }
      if (input.avatar !== undefined && input.avatar !== user.avatar) {
        if (input.avatar !== null) await checkAvatarImage(input.avatar);
        patch.avatar = input.avatar;
      }
      if (input.new_password !== undefined) {
        if (!input.current_password) throw new Invalid('current_password', m.currentPasswordRequired);
        // Keeping the password would clear the "choose your own" flag of one the admin saw
        // (docs/decisions/accounts.md "A new password is new"). Two strings the caller sent are
        // compared: the stored one is not read for this.
        if (input.new_password === input.current_password)
          throw new Invalid('new_password', m.newPasswordSame);
        const weak = weakPasswordReason(input.new_password, {
          username: user.username,
          email: patch.email !== undefined ? patch.email : user.email,
        });
        if (weak) throw new Invalid('new_password', weak);
        // A stolen session must not become a way to guess the password.
        const account = `password:${user.id}:${passwordGeneration(user)}`;
        await throttle.reserve(account, undefined, m.currentPasswordThrottled);
        const right = await hasher.verify(user.password_hash, input.current_password).catch(async (err) => {
          await throttle.cancelled(account);
          throw err;
        });
        if (!right) {
          await throttle.failed(account);
          throw new Invalid('current_password', m.currentPasswordWrong);
        }
        await throttle.succeeded(account);
        patch.password_hash = await hasher.hash(input.new_password);
        patch.password_initial = 0;
      }
      if (Object.keys(patch).length === 0) return { user, passwordChanged: false };

      const updated = await uniquely(() => users.update(db, user.id, { ...patch, updated_at: now() }));
      if (!updated) throw new NotFound(m.userNotFound);
      if (patch.password_hash) {
        // A password change signs out every other session of the account and ends its API tokens:
        // whoever knew the old password may have made one (docs/decisions/deploys.md "API tokens").
        await sessions.revokeAllOf(user.id, actor.sessionId);
        const tokensRevoked = await deps.apiTokens.revokeAllOf(user.id);
        await audit.record({
          actor,
          action: 'user.password_changed',
          targetType: 'user',
          targetId: user.id,
          detail: tokensRevoked > 0 ? { tokens_revoked: tokensRevoked } : undefined,
          ip: meta.ip,
        });
      }
      if (patch.email !== undefined) {
        await audit.record({
          actor,
          action: 'user.email_change',
          targetType: 'user',
          targetId: user.id,
          ip: meta.ip,
        });
      }
      return { user: updated, passwordChanged: patch.password_hash !== undefined };
    },

    /** Creates an account with a generated password, returned once. */
    async register(actor: Actor, input: { username: string; email?: string; role: Role }, meta: RequestMeta) {
      if (await users.byUsername(db, input.username)) throw new Conflict(m.usernameTaken, 'username');
      await assertEmailFree(input.email);
      const password = generatePassword();
      const user = await createAccount({
        username: input.username,
        email: input.email ?? null,
        role: input.role,
        password,
        generated: true,
      });
      await audit.record({
        actor,
        action: 'user.create',
        targetType: 'user',
        targetId: user.id,
        detail: { username: user.username, role: user.role },
        ip: meta.ip,
      });
      return { user, password };
    },

    list: (q: Parameters<UsersRepository['list']>[1]) => users.list(db, q),

    /**
     * An admin changes role, disabled or email. Nobody demotes or disables themselves, and the
     * last enabled administrator stays one (checked in the same transaction as the change).
     */
    async updateUser(
      actor: Actor,
      id: number,
      input: { role?: Role; disabled?: boolean; email?: string | null; storage_quota_bytes?: number | null },
      meta: RequestMeta,
    ): Promise<UserRow> {
      const user = await requireUser(id);
      const patch: UserUpdate = {};
      if (input.role !== undefined && input.role !== user.role) {
        if (user.id === actor.id) throw new Conflict(m.cannotChangeOwnRole, 'role');
        patch.role = input.role;
      }
      if (input.disabled !== undefined && (input.disabled ? 1 : 0) !== user.disabled) {
        if (user.id === actor.id) throw new Conflict(m.cannotDisableSelf, 'disabled');
        patch.disabled = input.disabled ? 1 : 0;
      }
      if (input.email !== undefined && input.email !== user.email) {
        await assertEmailFree(input.email, user.id);
        patch.email = input.email;
      }
      if (input.storage_quota_bytes !== undefined && input.storage_quota_bytes !== user.storage_quota_bytes) {
        patch.storage_quota_bytes = input.storage_quota_bytes;
      }
      if (Object.keys(patch).length === 0) return user;

      const updated = await uniquely(() =>
        users.updateKeepingAnAdmin(db, user.id, { ...patch, updated_at: now() }),
      );
      if (updated === 'missing') throw new NotFound(m.userNotFound);
      if (updated === 'last-admin') throw new Conflict(m.lastAdmin);
      if (patch.disabled === 1) {
        await sessions.endForDisabledAccount(user.id);
        await deps.apiTokens.revokeAllOf(user.id);
      }
      // Enabled again: the sessions it ended stay over, and no longer say 账号已被停用.
      if (patch.disabled === 0) await sessions.revokeAllOf(user.id);
      // No reviewer any more: the uploads its bell counted wait for others, behind pages it can't open.
      if (patch.role === 'user') await notices.settleReviewsOf(db, user.id, now());

      const record = (action: AuditActionOn<'user'>, detail?: Record<string, unknown>) =>
        audit.record({ actor, action, targetType: 'user', targetId: user.id, detail, ip: meta.ip });
      if (patch.role) await record('user.role_change', { from: user.role, to: patch.role });
      if (patch.disabled !== undefined) await record(patch.disabled ? 'user.disable' : 'user.enable');
      if (patch.email !== undefined) await record('user.email_change');
      if (patch.storage_quota_bytes !== undefined) {
        await record('user.quota_change', {
          storage_quota_bytes: { from: user.storage_quota_bytes, to: patch.storage_quota_bytes },
        });
      }
      return updated;
    },

    /**
     * Sets a new generated password (shown once), signs the account out everywhere and revokes its
     * API tokens. The actor
     * is null when run from the command line.
     */
    async resetPassword(actor: Actor | null, id: number, meta: RequestMeta) {
      // An admin's own password is changed with the current one (the profile): a stolen session
      // must not get a new password, and sign the owner out, through this route.
      if (actor && actor.id === id) throw new Conflict(m.cannotResetOwnPassword);
      const user = await requireUser(id);
      const password = generatePassword();
      const updated = await users.update(db, user.id, {
        password_hash: await hasher.hash(password),
        password_initial: 1,
        updated_at: now(),
      });
      if (!updated) throw new NotFound(m.userNotFound);
      await sessions.revokeAllOf(user.id);
      // Earlier failed sign-ins do not lock the owner out of the new password: the throttle's keys
      // name the password (passwordGeneration), here as when the command line resets it.
      const tokensRevoked = await deps.apiTokens.revokeAllOf(user.id);
      await audit.record({
        actor,
        action: 'user.password_reset',
        targetType: 'user',
        targetId: user.id,
        detail:
          actor && tokensRevoked === 0
            ? undefined
            : {
                ...(actor ? {} : { via: 'cli' }),
                ...(tokensRevoked > 0 ? { tokens_revoked: tokensRevoked } : {}),
              },
        ip: meta.ip,
      });
      return { user: updated, password };
    },

    /**
     * Lifts a sign-in lock-out: the account's throttle counts start afresh on every instance (its
     * epoch, part of their keys, moves on), the password stays (docs/decisions/accounts.md "Lock-outs admins can see").
     */
    async unlock(actor: Actor, id: number, meta: RequestMeta): Promise<UserRow> {
      const user = await requireUser(id);
      if (!user.locked_until || user.locked_until <= new Date().toISOString())
        throw new Conflict(m.userNotLocked);
      const updated = await users.update(db, user.id, {
        locked_until: null,
        sign_in_epoch: user.sign_in_epoch + 1,
        updated_at: now(),
      });
      if (!updated) throw new NotFound(m.userNotFound);
      await audit.record({
        actor,
        action: 'user.unlock',
        targetType: 'user',
        targetId: user.id,
        detail: { locked_until: user.locked_until },
        ip: meta.ip,
      });
      return updated;
    },

    /** Users who own projects can't be deleted: their sites would vanish. Disable them instead. */
    async deleteUser(actor: Actor, id: number, meta: RequestMeta) {
      if (id === actor.id) throw new Conflict(m.cannotDeleteSelf);
      const deleted = await users.deleteIfUnowned(db, id);
      if (deleted === 'missing') throw new NotFound(m.userNotFound);
      if (deleted === 'last-admin') throw new Conflict(m.lastAdmin);
      if (deleted === 'has-projects') throw new Conflict(m.userHasProjects);
      await audit.record({
        actor,
        action: 'user.delete',
        targetType: 'user',
        targetId: deleted.id,
        detail: { username: deleted.username },
        ip: meta.ip,
      });
    },

    /**
     * First start with no users: create `admin`, with ADMIN_PASSWORD or a generated password. A
     * weak ADMIN_PASSWORD is refused (Invalid, field ADMIN_PASSWORD): main.ts stops the server.
     */
    async ensureFirstAdmin(
      adminPassword?: string,
    ): Promise<{ created: boolean; password?: string; generated: boolean }> {
      if ((await users.count(db)) > 0) return { created: false, generated: false };
      // The most powerful account passes the same strength rule as every chosen password.
      const weak =
        adminPassword === undefined ? null : weakPasswordReason(adminPassword, { username: 'admin' });
      if (weak) throw new Invalid('ADMIN_PASSWORD', format(m.adminPasswordWeak, { reason: weak }));
      const password = adminPassword ?? generatePassword();
      let admin: Awaited<ReturnType<typeof createAccount>>;
      try {
        admin = await createAccount({
          username: 'admin',
          email: null,
          role: 'admin',
          password,
          generated: adminPassword === undefined,
        });
      } catch (err) {
        // Instances started together (docs/deploy.md) race for the first account: the one whose
        // insert lands creates it; for the others the database already has its users.
        if (err instanceof Conflict && (await users.count(db)) > 0)
          return { created: false, generated: false };
        throw err;
      }
      await audit.record({ action: 'user.bootstrap_admin', targetType: 'user', targetId: admin.id });
      return { created: true, password: adminPassword ? undefined : password, generated: !adminPassword };
    },

    async userByUsername(username: string) {
      return users.byUsername(db, username);
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;

/**
 * An avatar's bytes are an image of the type its data: URL names, of a size a page can draw: its
 * header is read (sharp), never its pixels. SVG labelled PNG, a file cut short, or a PNG claiming
 * 32000 × 32000 pixels is refused, where the browser would draw nothing.
 */
async function checkAvatarImage(dataUrl: string): Promise<void> {
  const match = /^data:image\/(png|jpeg|gif|webp);base64,(.+)$/.exec(dataUrl);
  if (!match) throw new Invalid('avatar', m.avatarInvalid);
  // Loaded with the first avatar, not at start (as the render's pictures: services/render.ts).
  const sharp = (await import('sharp')).default;
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(Buffer.from(match[2]!, 'base64'), { limitInputPixels: false }).metadata();
  } catch {
    throw new Invalid('avatar', m.avatarUnreadable);
  }
  if (meta.format !== match[1] || !meta.width || !meta.height)
    throw new Invalid('avatar', m.avatarUnreadable);
  if (meta.width > AVATAR_MAX_PIXELS_SIDE || meta.height > AVATAR_MAX_PIXELS_SIDE)
    throw new Invalid('avatar', format(m.avatarDimensions, { max: AVATAR_MAX_PIXELS_SIDE }));
}
