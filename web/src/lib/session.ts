/**
 * Where the signed-in session lives in the browser (docs/product.md "Accounts"): with remember-me
 * in localStorage (a 30-day token), otherwise in sessionStorage (a 12-hour token, gone with the tab).
 */
import type { UserDto } from '@sitehall/contracts';

export interface StoredSession {
  token: string;
  user: UserDto;
  /** ISO time the token stops working, when the server told us. */
  expiresAt: string | null;
  remember: boolean;
}

const TOKEN_KEY = 'sitehall.token';
const USER_KEY = 'sitehall.user';
const EXPIRES_KEY = 'sitehall.expires_at';
export const SESSION_KEYS = [TOKEN_KEY, USER_KEY, EXPIRES_KEY] as const;

type Area = 'local' | 'session';

function storage(area: Area): Storage | null {
  try {
    return area === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    // Storage can be blocked by browser privacy settings; the app then works without persistence.
    return null;
  }
}

function readFrom(area: Area): StoredSession | null {
  const store = storage(area);
  if (!store) return null;
  try {
    const token = store.getItem(TOKEN_KEY);
    const rawUser = store.getItem(USER_KEY);
    if (!token || !rawUser) return null;
    const user = JSON.parse(rawUser) as UserDto;
    if (!user || typeof user.username !== 'string' || (user.role !== 'admin' && user.role !== 'user')) {
      return null;
    }
    return { token, user, expiresAt: store.getItem(EXPIRES_KEY), remember: area === 'local' };
  } catch {
    return null;
  }
}

function clearArea(area: Area): void {
  const store = storage(area);
  if (!store) return;
  try {
    for (const key of SESSION_KEYS) store.removeItem(key);
  } catch {
    // nothing stored, nothing to clear
  }
}

/** The stored session, or null when there is none or its token has already expired. */
export function loadSession(now = Date.now()): StoredSession | null {
  const found = readFrom('session') ?? readFrom('local');
  if (!found) return null;
  if (found.expiresAt && Date.parse(found.expiresAt) <= now) {
    clearSession();
    return null;
  }
  return found;
}

export function saveSession(session: StoredSession): void {
  const area: Area = session.remember ? 'local' : 'session';
  clearArea(area === 'local' ? 'session' : 'local');
  const store = storage(area);
  if (!store) return;
  try {
    store.setItem(TOKEN_KEY, session.token);
    store.setItem(USER_KEY, JSON.stringify(session.user));
    if (session.expiresAt) store.setItem(EXPIRES_KEY, session.expiresAt);
    else store.removeItem(EXPIRES_KEY);
  } catch {
    // quota or privacy mode: the session lasts as long as the page does
  }
}

/** Replaces the stored user (after a profile change) wherever the session is kept. */
export function saveSessionUser(user: UserDto): void {
  const current = loadSession();
  if (current) saveSession({ ...current, user });
}

/** What else the app keeps for the signed-in user (api/projects.ts: preview links), cleared with the session. */
export const USER_DATA_PREFIX = 'sitehall.preview.';

export function clearSession(): void {
  clearArea('local');
  clearArea('session');
  const store = storage('local');
  try {
    for (let i = (store?.length ?? 0) - 1; i >= 0; i--) {
      const key = store?.key(i);
      if (key?.startsWith(USER_DATA_PREFIX)) store?.removeItem(key);
    }
  } catch {
    // nothing stored, nothing to clear
  }
}

const HOUR = 60 * 60 * 1000;
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * When to refresh a token that ends at `expiresAt`: an hour early, or halfway for short remaining
 * times. `final`: the sign-in's lifetime is spent (a refresh no longer moves the end), so the try
 * comes just after the end, where the server's 401 signs the app out.
 */
export function refreshDelay(expiresAt: string, final = false, now = Date.now()): number {
  const remaining = Date.parse(expiresAt) - now;
  if (!Number.isFinite(remaining)) return MAX_TIMER_DELAY;
  const delay = final ? remaining + 1000 : remaining - Math.min(remaining / 2, HOUR);
  return Math.min(MAX_TIMER_DELAY, Math.max(0, delay));
}

export function storedToken(): string | null {
  return loadSession()?.token ?? null;
}
