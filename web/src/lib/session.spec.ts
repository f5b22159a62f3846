import { describe, expect, it } from 'vitest';
import { makeUser } from '../../test/fixtures';
import { clearSession, loadSession, saveSession, saveSessionUser } from './session';

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
