/**
 * Route guards of docs/product.md §2: signed-out visitors go to /login remembering where they were headed;
 * admin pages send others to /dashboard; guest-only pages send signed-in users to /dashboard
 * (or back to the page they were sent from, right after signing in).
 */
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { type FromState, useAuth } from '../../hooks/useAuth';
import type { Permission } from '../../lib/permissions';
import { PageLoading } from '../PageLoading';

/** Where to go after signing in: the remembered page, else the dashboard. */
export function returnPath(state: unknown): string {
  const from = (state as FromState | null)?.from;
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
  if (user) return <Navigate to={returnPath(location.state)} replace />;
  return children;
}
