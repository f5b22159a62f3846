/**
 * Who is signed in (docs/product.md §4 "Auth state"): loading at first, then the stored token and user are read;
 * login, logout and refresh keep the browser's copy and this state in step.
 */
import { authMessages, commonMessages, type UserDto } from '@sitehall/contracts';
import { useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { authApi, useProfileQuery } from '../api/auth';
import { onAdminRefused, onUnauthorized, toApiError } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { hasPermission, type Permission } from '../lib/permissions';
import {
  clearSession,
  loadSession,
  refreshDelay,
  SESSION_KEYS,
  type StoredSession,
  saveSession,
  saveSessionUser,
} from '../lib/session';

export interface LoginCredentials {
  username: string;
  password: string;
  remember: boolean;
}

/** Where a guard sent the visitor from, so login can bring them back. */
export interface FromState {
  from?: { pathname: string; search?: string; hash?: string };
  expired?: boolean;
  /** Sent by 开始使用: after signing in, go where this role starts (RouteGuards.startPath). */
  start?: boolean;
  /** Why the session ended, in the server's words (账号已被停用), for the sign-in page. */
  reason?: string;
}

/** Said on the dashboard to an admin made a user while in the admin panel. */
export const ADMIN_REVOKED_NOTE = '你的账号已不再是管理员，无法继续使用管理后台，已返回控制台。';

/** What the dashboard is told when the app sends someone there (ADMIN_REVOKED_NOTE). */
export interface DashboardState {
  notice?: string;
}

export interface AuthContextValue {
  user: UserDto | null;
  loading: boolean;
  isAuthenticated: boolean;
  /** The last sign-in failure or why the session ended, for the login screen. */
  error: string | null;
  /** Why the stored session ended, when the server said more than that it expired (账号已被停用). */
  endedReason: string | null;
  login(credentials: LoginCredentials): Promise<UserDto>;
  /**
   * Signs out and goes to the home page; resolves false when the server call failed (the local
   * session is cleared anyway).
   */
  logout(): Promise<boolean>;
  refresh(): Promise<void>;
  hasPermission(permission: Permission): boolean;
  /** Keeps the signed-in user current after a profile change. */
  setUser(user: UserDto): void;
}

interface AuthState {
  loading: boolean;
  session: StoredSession | null;
  /** The last refresh moved the end no further: the sign-in's lifetime is spent (no more refreshes). */
  final?: boolean;
  error: string | null;
  endedReason?: string | null;
}

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ loading: true, session: null, error: null });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const locationRef = useRef(location);
  locationRef.current = location;

  const signedOut = useCallback(
    (error: string | null = null, endedReason: string | null = null) => {
      clearSession();
      queryClient.clear();
      setState({ loading: false, session: null, error, endedReason });
    },
    [queryClient],
  );

  // Start: read what the browser kept; follow sign-in and sign-out in other tabs.
  useEffect(() => {
    setState({ loading: false, session: loadSession(), error: null });
    const onStorage = (event: StorageEvent) => {
      if (event.key !== null && !(SESSION_KEYS as readonly string[]).includes(event.key)) return;
      const session = loadSession();
      setState((prev) =>
        prev.session?.token === session?.token ? prev : { ...prev, session, final: false },
      );
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  // Any call answered 401: the session is over; sign in again and come back here. The route
  // changes first, so the page being left never renders signed out.
  useEffect(
    () =>
      onUnauthorized((reason) => {
        const { pathname, search, hash } = locationRef.current;
        if (pathname !== '/login') {
          const state: FromState = {
            from: { pathname, search, hash },
            expired: true,
            ...(reason ? { reason } : {}),
          };
          navigate('/login', { replace: true, state, flushSync: true });
        }
        const told = reason && reason !== commonMessages.sessionExpired ? reason : null;
        signedOut(reason ?? commonMessages.sessionExpired, told);
      }),
    [navigate, signedOut],
  );

  // A call refused 403 只有管理员可以执行此操作: another admin made this account a user while its
  // admin pages were open, each then offering 重新加载 for ever. Ask who it is; no longer an admin,
  // it leaves the admin panel for the dashboard (told why) before the role changes, so no admin
  // page renders as a user's (docs/decisions/web-app.md "A role taken away").
  const checkingRole = useRef(false);
  useEffect(
    () =>
      onAdminRefused(() => {
        if (checkingRole.current) return;
        checkingRole.current = true;
        authApi
          .profile()
          .then(({ user: fresh }) => {
            if (loadSession()?.user.id !== fresh.id || hasPermission(fresh, 'admin')) return;
            const { pathname } = locationRef.current;
            if (pathname === '/admin' || pathname.startsWith('/admin/')) {
              const notice: DashboardState = { notice: ADMIN_REVOKED_NOTE };
              navigate('/dashboard', { replace: true, state: notice, flushSync: true });
            }
            saveSessionUser(fresh);
            queryClient.setQueryData(queryKeys.profile, { user: fresh });
            setState((prev) =>
              prev.session ? { ...prev, session: { ...prev.session, user: fresh } } : prev,
            );
          })
          .catch(() => {
            // no answer: the page keeps its own error, and the next refused call asks again
          })
          .finally(() => {
            checkingRole.current = false;
          });
      }),
    [navigate, queryClient],
  );

  // Check the stored session with the server once, and pick up role or profile changes.
  const signedIn = state.session !== null;
  const profile = useProfileQuery(signedIn);
  const sessionUser = state.session?.user;
  useEffect(() => {
    const fresh = profile.data?.user;
    if (!fresh || !sessionUser || fresh.id !== sessionUser.id) return;
    if (JSON.stringify(fresh) === JSON.stringify(sessionUser)) return;
    saveSessionUser(fresh);
    setState((prev) => (prev.session ? { ...prev, session: { ...prev.session, user: fresh } } : prev));
  }, [profile.data, sessionUser]);
  useEffect(() => {
    // A stale token on a public page just signs out; protected pages then send the visitor to
    // /login, which tells the server's reason when it was more than an expiry (账号已被停用).
    if (profile.error && toApiError(profile.error).status === 401) {
      const reason = toApiError(profile.error).serverMessage;
      const told = reason && reason !== commonMessages.sessionExpired ? reason : null;
      signedOut(told, told);
    }
  }, [profile.error, signedOut]);

  const login = useCallback(
    async ({ username, password, remember }: LoginCredentials) => {
      setState((prev) => ({ ...prev, error: null }));
      try {
        const data = await authApi.login({ username, password, remember });
        const session: StoredSession = {
          token: data.token,
          user: data.user,
          expiresAt: data.expires_at,
          remember,
        };
        saveSession(session);
        queryClient.clear();
        queryClient.setQueryData(queryKeys.profile, { user: data.user });
        setState({ loading: false, session, error: null });
        return data.user;
      } catch (error) {
        const apiError = toApiError(error);
        setState((prev) => ({ ...prev, error: apiError.serverMessage ?? authMessages.loginFailed }));
        throw apiError;
      }
    },
    [queryClient],
  );

  const logout = useCallback(async () => {
    let ok = true;
    try {
      await authApi.logout();
    } catch (error) {
      // 401: the session had already ended on the server, which is what signing out wants.
      ok = toApiError(error).status === 401;
    }
    // Leave for the home page first, so a protected page never sees the signed-out state.
    navigate('/', { replace: true, flushSync: true });
    signedOut();
    return ok;
  }, [navigate, signedOut]);

  const refresh = useCallback(async () => {
    const data = await authApi.refresh();
    const before = loadSession();
    const session: StoredSession = {
      token: data.token,
      user: data.user,
      expiresAt: data.expires_at,
      remember: before?.remember ?? false,
    };
    // A sign-in lasts a week (30 days remembered) however often it is refreshed: once a refresh
    // no longer moves the end, the next try comes after the end, and its 401 signs out.
    const final =
      !!before?.expiresAt && !!data.expires_at && Date.parse(data.expires_at) <= Date.parse(before.expiresAt);
    saveSession(session);
    setState((prev) => ({ ...prev, session, final }));
  }, []);

  // Rotate the token before it runs out while the app stays open.
  const expiresAt = state.session?.expiresAt;
  const final = state.final ?? false;
  useEffect(() => {
    if (!expiresAt) return;
    const timer = window.setTimeout(
      () => {
        refresh().catch(() => {
          // a 401 already signed out through the client; other failures retry on the next start
        });
      },
      refreshDelay(expiresAt, final),
    );
    return () => window.clearTimeout(timer);
  }, [expiresAt, final, refresh]);

  const setUser = useCallback(
    (user: UserDto) => {
      saveSessionUser(user);
      queryClient.setQueryData(queryKeys.profile, { user });
      setState((prev) => (prev.session ? { ...prev, session: { ...prev.session, user } } : prev));
    },
    [queryClient],
  );

  const user = state.session?.user ?? null;
  const value = useMemo<AuthContextValue>(
    () => ({
      user,
      loading: state.loading,
      isAuthenticated: user !== null,
      error: state.error,
      endedReason: state.endedReason ?? null,
      login,
      logout,
      refresh,
      hasPermission: (permission) => hasPermission(user, permission),
      setUser,
    }),
    [user, state.loading, state.error, state.endedReason, login, logout, refresh, setUser],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}
