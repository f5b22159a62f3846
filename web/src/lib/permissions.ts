/** Spec §6: an admin passes every check; the user permission is granted to users and admins; anything else is denied. */
import type { Role, UserDto } from '@sitehall/contracts';

export type Permission = Role;

export function hasPermission(
  user: Pick<UserDto, 'role'> | null | undefined,
  permission: Permission,
): boolean {
  if (!user) return false;
  if (user.role === 'admin') return true;
  return permission === 'user' && user.role === 'user';
}
