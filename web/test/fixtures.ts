import type { AdminUserDto, UserDto } from '@sitehall/contracts';
import { saveSession } from '../src/lib/session';

export function makeUser(overrides: Partial<UserDto> = {}): UserDto {
  return {
    id: 2,
    username: 'alice',
    email: 'alice@example.com',
    role: 'user',
    avatar: null,
    disabled: false,
    created_at: '2024-05-01T08:00:00.000Z',
    updated_at: '2024-05-01T08:00:00.000Z',
    last_login_at: null,
    email_notifications: true,
    password_initial: false,
    ...overrides,
  };
}

export const adminUser = (overrides: Partial<UserDto> = {}) =>
  makeUser({ id: 1, username: 'admin', email: null, role: 'admin', ...overrides });

export function makeAdminUser(overrides: Partial<AdminUserDto> = {}): AdminUserDto {
  return {
    ...makeUser(),
    project_count: 0,
    storage_used_bytes: 0,
    storage_quota_bytes: null,
    storage_limit_bytes: 1024 ** 3,
    locked_until: null,
    ...overrides,
  };
}

/** Stores a signed-in session the way a real sign-in does. */
export function signIn(user: UserDto, { remember = false, token = `token-${user.username}` } = {}) {
  const expiresAt = new Date(Date.now() + 12 * 60 * 60 * 1000).toISOString();
  saveSession({ token, user, expiresAt, remember });
  return token;
}
