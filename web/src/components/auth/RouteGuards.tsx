/**
 * Route guards of docs/product.md §2: signed-out visitors go to /login remembering where they were headed;
 * admin pages send others to /dashboard; guest-only pages send signed-in users to /dashboard
 * (or back to the page they were sent from, right after signing in).
 */
import type { Role } from '@sitehall/contracts';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { type FromState, useAuth } from '../../hooks/useAuth';
import type { Permission } from '../../lib/permissions';
import { PageLoading } from '../PageLoading';

/** Where 开始使用 leads someone signed in: admins to the admin panel, users to the upload page. */
export function startPath(role: Role | undefined): string {
  return role === 'admin' ? '/admin' : '/upload';
}

/**
 * Where to go after signing in: the remembered page, else the dashboard. Someone who came by 开始使用,
 * or by /register without being an admin (who would only read 访问受限 there), goes to startPath.
 */
export function returnPath(state: unknown, role?: Role): string {
  const { from, start } = (state as FromState | null) ?? {};
  if (start || (from?.pathname === '/register' && role !== 'admin')) return startPath(role);
  if (!from?.pathname?.startsWith('/') || from.pathname.startsWith('//') || from.pathname === '/login') {
    return '/dashboard';
  }
  return `${from.pathname}${from.search ?? ''}${from.hash ?? ''}`;
}

export function RequireAuth({
  permission = 'user',
  children,
}: {
  permission?: Permission;
  children: ReactNode;
}) {
  const { loading, user, hasPermission, endedReason } = useAuth();
  const location = useLocation();
  if (loading) return <PageLoading fullscreen />;
  if (!user) {
    const state: FromState = {
      from: { pathname: location.pathname, search: location.search, hash: location.hash },
      // Why the stored session ended (账号已被停用), for the sign-in page.
      ...(endedReason ? { reason: endedReason } : {}),
    };
    return <Navigate to="/login" replace state={state} />;
  }
  if (!hasPermission(permission)) return <Navigate to="/dashboard" replace />;
  return children;
}

export function GuestOnly({ children }: { children: ReactNode }) {
  const { loading, user } = useAuth();
  const location = useLocation();
  if (loading) return <PageLoading fullscreen />;
  if (user) return <Navigate to={returnPath(location.state, user.role)} replace />;
  return children;
}
