import { messages } from '@sitehall/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { renderApp } from './render';

describe('profile: API tokens', () => {
  it('creates a token, shows it once with a copy button, and revokes one after confirmation', async () => {
    const user = makeUser({ username: 'alice' });
    let tokens = [{ id: 1, name: '旧的', created_at: '2026-01-01T00:00:00.000Z', last_used_at: null }];
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /auth/tokens': () => ok({ tokens }),
      'POST /auth/tokens': (req) => {
        const name = (req.body as { name: string }).name;
        tokens = [{ id: 2, name, created_at: '2026-02-01T00:00:00.000Z', last_used_at: null }, ...tokens];
        return ok({ id: 2, name, token: 'sht_secretsecretsecretsecretsecret' }, messages.deploy.tokenCreated);
      },
      'DELETE /auth/tokens/1': () => {
        tokens = tokens.filter((t) => t.id !== 1);
        return ok(null, messages.deploy.tokenRevoked);
      },
    });
    signIn(user);
    const app = renderApp('/profile');
    expect(await screen.findByText('旧的')).toBeInTheDocument();
    const list = screen.getByText('旧的').closest('table') as HTMLElement;
    expect(within(list).getByText(/从未使用/)).toBeInTheDocument();

    await app.user.type(screen.getByLabelText('令牌名称'), 'GitHub Actions');
    await app.user.click(screen.getByRole('button', { name: '创建令牌' }));
    expect(await screen.findByText('sht_secretsecretsecretsecretsecret')).toBeInTheDocument();
    expect(screen.getByText(/只显示这一次/)).toBeInTheDocument();
    expect(
      within(screen.getByTestId('new-api-token')).getByRole('button', { name: '复制' }),
    ).toBeInTheDocument();
    expect(api.calls('POST /auth/tokens')[0]?.body).toEqual({ name: 'GitHub Actions' });
    expect(await within(list).findByText('GitHub Actions')).toBeInTheDocument();
    // The list never shows the secret.
    expect(within(list).queryByText(/sht_/)).toBeNull();

    const oldItem = within(list).getByText('旧的').closest('tr') as HTMLElement;
    await app.user.click(within(oldItem).getByRole('button', { name: /撤\s?销/ }));
    expect(api.calls('DELETE /auth/tokens/1')).toHaveLength(0);
    await app.user.click(await screen.findByRole('button', { name: '确认撤销' }));
    await waitFor(() => expect(api.calls('DELETE /auth/tokens/1')).toHaveLength(1));
    await waitFor(() => expect(within(list).queryByText('旧的')).toBeNull());
  }, 60_000);

  it('makes one token on a double-click', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const api = fakeApi({
      'GET /auth/profile': ok({ user: makeUser() }),
      'GET /auth/tokens': ok({ tokens: [] }),
      'POST /auth/tokens': async () => {
        await answered;
        return ok(
          { id: 1, name: '我的 CI', token: 'sht_onlyoneonlyoneonlyoneonlyone' },
          messages.deploy.tokenCreated,
        );
      },
    });
    signIn(makeUser());
    const app = renderApp('/profile');
    await app.user.type(await screen.findByLabelText('令牌名称'), '我的 CI');
    await app.user.dblClick(screen.getByRole('button', { name: '创建令牌' }));
    await waitFor(() => expect(api.calls('POST /auth/tokens').length).toBeGreaterThan(0));
    answer();
    expect(await screen.findByText('sht_onlyoneonlyoneonlyoneonlyone')).toBeInTheDocument();
    expect(api.calls('POST /auth/tokens')).toHaveLength(1);
  });

  it('shows a token’s last use when the window is focused again (used from a terminal meanwhile)', async () => {
    let lastUsed: string | null = null;
    fakeApi({
      'GET /auth/profile': ok({ user: makeUser() }),
      'GET /auth/tokens': () =>
        ok({
          tokens: [
            { id: 1, name: '我的 CI', created_at: '2026-01-01T00:00:00.000Z', last_used_at: lastUsed },
          ],
        }),
    });
    signIn(makeUser());
    renderApp('/profile');
    const row = (await screen.findByText('我的 CI')).closest('tr') as HTMLElement;
    expect(within(row).getByText(/从未使用/)).toBeInTheDocument();
    lastUsed = '2026-02-03T04:05:00.000Z';
    // What the browser sends when the tab is shown again (TanStack Query's focus watch listens for it).
    window.dispatchEvent(new Event('visibilitychange'));
    await waitFor(() => expect(within(row).queryByText(/从未使用/)).toBeNull());
  });

  it('says why a name is refused, without a request', async () => {
    const user = makeUser();
    const api = fakeApi({ 'GET /auth/profile': ok({ user }), 'GET /auth/tokens': ok({ tokens: [] }) });
    signIn(user);
    const app = renderApp('/profile');
    expect(await screen.findByText('还没有 API 令牌')).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: '创建令牌' }));
    expect(await screen.findByText(messages.deploy.tokenNameRequired)).toBeInTheDocument();
    expect(api.calls('POST /auth/tokens')).toHaveLength(0);
  }, 60_000);
});
