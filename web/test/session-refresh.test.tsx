import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { saveSession } from '../src/lib/session';
import { fail, fakeApi, ok } from './fake-api';
import { makeUser } from './fixtures';
import { renderApp } from './render';

describe('session refresh', () => {
  it('stops refreshing once the sign-in is spent, and signs out at its end', async () => {
    const user = makeUser();
    // Six seconds left: the app refreshes halfway (after rendering, however slow the machine),
    // and the server can give no more than that.
    const end = Date.now() + 6000;
    const expiresAt = new Date(end).toISOString();
    saveSession({ token: 'spent', user, expiresAt, remember: false });
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /projects': ok({ list: [], total: 0, page: 1, pageSize: 10 }),
      'POST /auth/refresh': () =>
        Date.now() < end
          ? ok({ token: 'spent-again', expires_at: expiresAt, user })
          : fail(401, '登录已过期，请重新登录'),
    });
    renderApp('/projects');
    await waitFor(() => expect(api.calls('POST /auth/refresh')).toHaveLength(1), { timeout: 20_000 });
    // The end passed: the next try is refused, and the app signs out to the sign-in page.
    expect(
      await screen.findByRole('heading', { name: '登录站点展厅' }, { timeout: 20_000 }),
    ).toBeInTheDocument();
    expect(Date.now()).toBeGreaterThanOrEqual(end);
    // One refresh that moved nothing, then one after the end: not one every half of what was left.
    expect(api.calls('POST /auth/refresh')).toHaveLength(2);
  });
});
