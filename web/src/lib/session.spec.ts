import { describe, expect, it } from 'vitest';
import { makeUser } from '../../test/fixtures';
import { clearSession, loadSession, refreshDelay, saveSession, saveSessionUser } from './session';

const later = () => new Date(Date.now() + 60_000).toISOString();

describe('stored session', () => {
  it('keeps a remembered session in localStorage and a plain one in sessionStorage', () => {
    saveSession({ token: 't1', user: makeUser(), expiresAt: later(), remember: true });
    expect(window.localStorage.getItem('sitehall.token')).toBe('t1');
    expect(window.sessionStorage.getItem('sitehall.token')).toBeNull();
    expect(loadSession()).toMatchObject({ token: 't1', remember: true });

    saveSession({ token: 't2', user: makeUser(), expiresAt: later(), remember: false });
    expect(window.sessionStorage.getItem('sitehall.token')).toBe('t2');
    expect(window.localStorage.getItem('sitehall.token')).toBeNull();
    expect(loadSession()).toMatchObject({ token: 't2', remember: false });
  });

  it('forgets an expired token', () => {
    saveSession({
      token: 't',
      user: makeUser(),
      expiresAt: new Date(Date.now() - 1000).toISOString(),
      remember: true,
    });
    expect(loadSession()).toBeNull();
    expect(window.localStorage.getItem('sitehall.token')).toBeNull();
  });

  it('ignores a damaged stored user', () => {
    window.sessionStorage.setItem('sitehall.token', 't');
    window.sessionStorage.setItem('sitehall.user', '{not json');
    expect(loadSession()).toBeNull();
  });

  it('updates the user where the session is kept, and clears everything', () => {
    saveSession({ token: 't', user: makeUser(), expiresAt: later(), remember: true });
    saveSessionUser(makeUser({ email: 'new@example.com' }));
    expect(loadSession()?.user.email).toBe('new@example.com');
    clearSession();
    expect(loadSession()).toBeNull();
  });
});

describe('refreshDelay', () => {
  const HOUR = 3600_000;
  const now = Date.parse('2026-12-07T12:00:00Z');
  const at = (ms: number) => new Date(now + ms).toISOString();

  it('refreshes an hour before the end, or halfway when less is left', () => {
    expect(refreshDelay(at(12 * HOUR), false, now)).toBe(11 * HOUR);
    expect(refreshDelay(at(HOUR), false, now)).toBe(HOUR / 2);
    expect(refreshDelay(at(-1000), false, now)).toBe(0);
  });

  it('once the sign-in is spent, tries only after the end, where the 401 signs out', () => {
    expect(refreshDelay(at(HOUR), true, now)).toBe(HOUR + 1000);
    expect(refreshDelay(at(90 * 24 * HOUR), true, now)).toBe(2 ** 31 - 1);
  });
});
