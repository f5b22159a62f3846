/** The only place a user row becomes JSON: the password hash never leaves the server. */
import { type AdminUserDto, isAllowedAvatar, type UserDto } from '@sitehall/contracts';
import type { UserRow } from '../db/types.js';

export function presentUser(u: UserRow): UserDto {
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    role: u.role,
    // A remote address saved before avatars had to be images of their own is not shown.
    avatar: u.avatar !== null && isAllowedAvatar(u.avatar) ? u.avatar : null,
    disabled: u.disabled === 1,
    created_at: u.created_at,
    updated_at: u.updated_at,
    last_login_at: u.last_login_at,
    email_notifications: u.email_notifications !== 0,
    password_initial: u.password_initial === 1,
  };
}

/** usedBytes: the account's used space; platformQuota: the quota of accounts without their own. */
export function presentAdminUser(
  u: UserRow & { project_count: number | null },
  usedBytes: number,
  platformQuota: number,
): AdminUserDto {
  return {
    ...presentUser(u),
    project_count: Number(u.project_count ?? 0),
    storage_used_bytes: usedBytes,
    storage_quota_bytes: u.storage_quota_bytes === null ? null : Number(u.storage_quota_bytes),
    storage_limit_bytes: Number(u.storage_quota_bytes ?? platformQuota),
    // A lock-out that has run out is no lock-out (the column is cleared only by an unlock).
    locked_until: u.locked_until && u.locked_until > new Date().toISOString() ? u.locked_until : null,
  };
}
