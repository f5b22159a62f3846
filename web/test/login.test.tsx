import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, fakeApi, ok } from './fake-api';
import { makeUser } from './fixtures';
import { renderApp } from './render';

const auth = () =>
  ok(
    { token: 'new-token', expires_at: new Date(Date.now() + 3_600_000).toISOString(), user: makeUser() },
    '登录成功',
  );

async function openLogin(entry: Parameters<typeof renderApp>[0] = '/login') {
  const app = renderApp(entry);
  await screen.findByRole('heading', { name: '登录站点展厅' });
  return app;
}

describe('login page', () => {
  it('requires username-or-email and password', async () => {
    const api = fakeApi();
    const { user } = await openLogin();
    await user.click(screen.getByRole('button', { name: '登录' }));
    expect(await screen.findByText('请输入用户名或邮箱')).toBeInTheDocument();
    expect(screen.getByText('请输入密码')).toBeInTheDocument();
    expect(api.calls('POST /auth/login')).toHaveLength(0);
  });

  it('shows the server message in a closable error banner', async () => {
    fakeApi({ 'POST /auth/login': fail(401, '用户名或密码错误') });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText('用户名或邮箱'), 'alice');
    await user.type(screen.getByLabelText('密码'), 'wrong-password');
    await user.click(screen.getByRole('button', { name: '登录' }));
    const banner = await screen.findByRole('alert');
    expect(banner).toHaveTextContent('用户名或密码错误');
    await user.click(screen.getByRole('button', { name: '关闭错误提示' }));
    await waitFor(() => expect(screen.queryByText('用户名或密码错误')).not.toBeInTheDocument());
  });

  it('says how long a throttled sign-in must wait, from Retry-After', async () => {
    const api = fakeApi({
      'POST /auth/login': { ...fail(429, '登录失败次数过多，请稍后再试'), headers: { 'retry-after': '841' } },
    });
    const { user } = await openLogin();
    await user.type(screen.getByLabelText('用户名或邮箱'), 'alice');
    await user.type(screen.getByLabelText('密码'), 'wrong-password');
    await user.click(screen.getByRole('button', { name: '登录' }));
    // 841 s is 14 minutes and 1 second: rounded up.
    expect(await screen.findByRole('alert')).toHaveTextContent('登录失败次数过多，请在 15 分钟后重试');
    api.on('POST /auth/login', { ...fail(429, '登录请求过多，请稍后再试'), headers: { 'retry-after': '5' } });
    await user.click(screen.getByRole('button', { name: '登录' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('登录请求过多，请在 5 秒后重试');
  });

  it('falls back to 登录失败 when the server gives no message, and stays on /login', async () => {
    fakeApi({ 'POST /auth/login': { networkError: true } });
    const { user, router } = await openLogin();
    await user.type(screen.getByLabelText('用户名或邮箱'), 'alice');
    await user.type(screen.getByLabelText('密码'), 'secret-password');
    await user.click(screen.getByRole('button', { name: '登录' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('登录失败');
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows 登录中... while signing in', async () => {
    let answer: (value: ReturnType<typeof auth>) => void = () => {};
    fakeApi({ 'POST /auth/login': () => new Promise((resolve) => (answer = resolve)) });
    const { user, router } = await openLogin();
    await user.type(screen.getByLabelText('用户名或邮箱'), 'alice');
    await user.type(screen.getByLabelText('密码'), 'secret-password');
    await user.click(screen.getByRole('button', { name: '登录' }));
    expect(await screen.findByRole('button', { name: /登录中\.\.\./ })).toBeInTheDocument();
    answer(auth());
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('signs in to /dashboard, keeping the token for this tab only without remember-me', async () => {
    const api = fakeApi({ 'POST /auth/login': auth() });
    const { user, router } = await openLogin();
    await user.type(screen.getByLabelText('用户名或邮箱'), '  alice ');
    await user.type(screen.getByLabelText('密码'), 'secret-password');
    await user.click(screen.getByRole('button', { name: '登录' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(api.calls('POST /auth/login')[0]?.body).toEqual({
      username: 'alice',
      password: 'secret-password',
      remember: false,
    });
    expect(window.sessionStorage.getItem('sitehall.token')).toBe('new-token');
    expect(window.localStorage.getItem('sitehall.token')).toBeNull();
  });

  it('keeps the token in localStorage with remember-me and returns to the remembered page', async () => {
    const api = fakeApi({ 'POST /auth/login': auth() });
    const { user, router } = await openLogin('/upload?from=home');
    await user.type(screen.getByLabelText('用户名或邮箱'), 'alice@example.com');
    await user.type(screen.getByLabelText('密码'), 'secret-password');
    await user.click(screen.getByRole('checkbox', { name: '记住我' }));
    await user.click(screen.getByRole('button', { name: '登录' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/upload'));
    expect(router.state.location.search).toBe('?from=home');
    expect(api.calls('POST /auth/login')[0]?.body).toMatchObject({ remember: true });
    expect(window.localStorage.getItem('sitehall.token')).toBe('new-token');
    expect(window.sessionStorage.getItem('sitehall.token')).toBeNull();
  });
});
