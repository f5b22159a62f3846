import { z } from 'zod';
import {
  formatBytes,
  PASSWORD_MAX,
  PASSWORD_MIN,
  USER_STORAGE_BOUNDS,
  USERNAME_MAX,
  USERNAME_MIN,
} from '../limits.js';
import { authMessages as m } from '../messages/auth.js';
import { commonMessages } from '../messages/common.js';
import { format } from '../messages.js';
import { ROLES } from '../statuses.js';
import { drawsAsStored } from './look-alike.js';
import { pageParam, pageSizeParam } from './paging.js';

const trimmed = (required: string) => z.string({ error: required }).trim().min(1, { error: required });

/** No control characters (NUL can't even be stored in PostgreSQL text). */
export const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f]*$/;

/**
 * A list's search box: trimmed, up to 100 characters, no control characters (a NUL would reach
 * the database, and PostgreSQL refuses it in text). Empty means no search.
 */
export const searchParam = z
  .string({ error: commonMessages.searchInvalid })
  .trim()
  .max(100, { error: commonMessages.searchInvalid })
  .regex(NO_CONTROL_CHARS, { error: commonMessages.searchInvalid })
  .optional();

/** The longest password accepted at sign-in and as a current password. */
export const LOGIN_PASSWORD_MAX = 1024;

export const loginBody = z.object({
  username: trimmed(m.usernameOrEmailRequired)
    .max(254, { error: m.badCredentials })
    .regex(NO_CONTROL_CHARS, { error: m.badCredentials }),
  password: z
    .string({ error: m.passwordRequired })
    .min(1, { error: m.passwordRequired })
    .max(LOGIN_PASSWORD_MAX, { error: m.badCredentials }),
  remember: z.boolean().optional().default(false),
});
export type LoginBody = z.input<typeof loginBody>;

/** What a username is made of, in its NFKC form (the form its uniqueness key compares). */
const USERNAME_CHARS = /^[\p{L}\p{N}_-][\p{L}\p{M}\p{N}_-]*$/u;

/**
 * Letters of any script (with their combining marks), digits, _ and -; NFC so one name has one
 * form. The characters are judged in the NFKC form, as the uniqueness key folds them: an input
 * method's full-width mode types ＿ and － for _ and -, as it types ｆ for f (docs/decisions/accounts.md
 * "A name typed in full width").
 */
export const username = trimmed(m.usernameRequired)
  .normalize('NFC')
  .min(USERNAME_MIN, { error: m.usernameTooShort })
  .max(USERNAME_MAX, { error: m.usernameTooLong })
  .refine((name) => USERNAME_CHARS.test(name.normalize('NFKC')), { error: m.usernameInvalid })
  // Hangul fillers are letters and the combining grapheme joiner a mark, but neither draws anything.
  .refine(drawsAsStored, { error: m.usernameInvisible });

export const email = z
  .string({ error: m.emailInvalid })
  .trim()
  .toLowerCase()
  .email({ error: m.emailInvalid })
  .max(254, { error: m.emailInvalid });

/** The password is always generated and shown once: a `password` sent here is refused, not ignored. */
export const registerBody = z
  .object({
    username,
    email: email.optional().or(z.literal('').transform(() => undefined)),
    role: z.enum(ROLES, { error: m.roleInvalid }).optional().default('user'),
  })
  .strict();
export type RegisterBody = z.input<typeof registerBody>;

export const newPassword = z
  .string({ error: m.passwordRequired })
  .min(PASSWORD_MIN, { error: m.newPasswordTooShort })
  .max(PASSWORD_MAX, { error: m.newPasswordTooLong });

/** The longest avatar, as a data: URL (about 150 KB of image). */
export const AVATAR_MAX_CHARS = 200_000;
/** An avatar's widest side (the server reads its header: docs/decisions/accounts.md "Avatars"). */
export const AVATAR_MAX_PIXELS_SIDE = 4096;
const AVATAR_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * An avatar is a small image held in the account itself (a data: URL of PNG, JPEG, GIF or WebP),
 * never an address: a remote picture would load in every viewer's browser, the administrator's
 * included, telling its host who looked and when (docs/decisions/accounts.md "Avatars").
 */
export function isAllowedAvatar(value: string): boolean {
  return value.length <= AVATAR_MAX_CHARS && AVATAR_DATA_URL.test(value);
}

/** Why a value can't be an avatar, in words its owner can act on; null when it can. */
function avatarProblem(v: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return m.avatarRemote;
  if (v.length > AVATAR_MAX_CHARS) return m.avatarTooLarge;
  return isAllowedAvatar(v) ? null : m.avatarInvalid;
}

export const avatar = z
  .string()
  .trim()
  .superRefine((v, ctx) => {
    const problem = avatarProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const updateProfileBody = z
  .object({
    email: email
      .nullable()
      .optional()
      .or(z.literal('').transform(() => null)),
    avatar: avatar
      .nullable()
      .optional()
      .or(z.literal('').transform(() => null)),
    current_password: z
      .string({ error: m.currentPasswordRequired })
      .max(LOGIN_PASSWORD_MAX, { error: m.currentPasswordWrong })
      .optional(),
    new_password: newPassword.optional(),
    email_notifications: z.boolean({ error: m.emailNotificationsInvalid }).optional(),
  })
  .strict();
export type UpdateProfileBody = z.input<typeof updateProfileBody>;

/** A positive whole number from a query string, up to max; one message for every way it can be wrong. */
export const userListQuery = z.object({
  page: pageParam,
  page_size: pageSizeParam(100, 20),
  search: searchParam,
  role: z.enum(ROLES, { error: m.roleInvalid }).optional(),
});
export type UserListQuery = z.input<typeof userListQuery>;

const storageQuotaError = format(m.storageQuotaInvalid, {
  min: formatBytes(USER_STORAGE_BOUNDS.min),
  max: formatBytes(USER_STORAGE_BOUNDS.max),
});
/** An account's own storage quota in bytes; null gives it the platform's setting again. */
const storageQuota = z
  .number({ error: storageQuotaError })
  .int({ error: storageQuotaError })
  .min(USER_STORAGE_BOUNDS.min, { error: storageQuotaError })
  .max(USER_STORAGE_BOUNDS.max, { error: storageQuotaError });

export const updateUserBody = z
  .object({
    role: z.enum(ROLES, { error: m.roleInvalid }).optional(),
    disabled: z.boolean({ error: m.disabledInvalid }).optional(),
    email: email
      .nullable()
      .optional()
      .or(z.literal('').transform(() => null)),
    storage_quota_bytes: storageQuota.nullable().optional(),
  })
  .strict();
export type UpdateUserBody = z.input<typeof updateUserBody>;
