import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fail, fakeApi } from './fake-api';
import { adminUser, makeUser, signIn } from './fixtures';
import { renderApp } from './render';

const created = {
  status: 201,
  body: {
    success: true,
    message: '注册成功！请保存生成的密码',
    data: { password: 'Gen-Pass-0123456789', user: makeUser({ id: 9, username: 'bob', email: null }) },
  },
};

async function openRegister() {
  const app = renderApp('/register');
  await screen.findByRole('heading', { name: '注册新用户' });
  return app;
}

describe('register page', () => {
  it('tells a non-admin that registering is restricted, with a way back to login', async () => {
    fakeApi();
    signIn(makeUser());
    renderApp('/register');
    expect(await screen.findByText('访问受限')).toBeInTheDocument();
    expect(screen.getByText('只有管理员可以注册新用户')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '返回登录' })).toHaveAttribute('href', '/login');
    expect(screen.queryByLabelText('用户名')).not.toBeInTheDocument();
  });

  it('requires a username of at least 3 characters', async () => {
    const api = fakeApi();
    signIn(adminUser());
    const { user } = await openRegister();
    await user.click(screen.getByRole('button', { name: '注册' }));
    expect(await screen.findByText('请输入用户名')).toBeInTheDocument();
    await user.type(screen.getByLabelText('用户名'), 'ab');
    expect(await screen.findByText('用户名至少3个字符')).toBeInTheDocument();
    expect(api.calls('POST /auth/register')).toHaveLength(0);
  });

  it('shows a server field error under the username', async () => {
    fakeApi({ 'POST /auth/register': fail(409, '用户名已存在', { username: '用户名已存在' }) });
    signIn(adminUser());
    const { user } = await openRegister();
    await user.type(screen.getByLabelText('用户名'), 'alice');
    await user.click(screen.getByRole('button', { name: '注册' }));
    expect(await screen.findByText('用户名已存在')).toBeInTheDocument();
  });

  it('shows the created account and its password once, with copy and continue', async () => {
    const api = fakeApi({ 'POST /auth/register': created });
    signIn(adminUser());
    const { user } = await openRegister();
    await user.type(screen.getByLabelText('用户名'), ' bob ');
    await user.click(screen.getByRole('button', { name: '注册' }));

    expect(await screen.findByText('Gen-Pass-0123456789')).toBeInTheDocument();
    expect(api.calls('POST /auth/register')[0]?.body).toEqual({ username: 'bob' });
    expect(screen.getAllByText('注册成功！请保存生成的密码').length).toBeGreaterThan(0);
    const details = screen.getByText('bob').closest('table') as HTMLElement;
    expect(within(details).getByText('未设置')).toBeInTheDocument();
    expect(within(details).getByText('用户')).toBeInTheDocument();
    expect(screen.getByText(/离开此页面后将无法再次查看该密码/)).toBeInTheDocument();
    // The account will be asked to choose its own (docs/decisions/accounts.md "Initial passwords").
    expect(screen.getByText('对方用它登录后，系统会提醒其改为只有自己知道的密码。')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '返回首页' })).toHaveAttribute('href', '/');

    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    await user.click(screen.getByRole('button', { name: '复制密码' }));
    expect(await screen.findByText('密码已复制到剪贴板')).toBeInTheDocument();
    expect(writeText).toHaveBeenCalledWith('Gen-Pass-0123456789');

    await user.click(screen.getByRole('button', { name: '继续注册' }));
    expect(await screen.findByLabelText('用户名')).toHaveValue('');
    expect(screen.queryByText('Gen-Pass-0123456789')).not.toBeInTheDocument();
  });

  it('registers once on a double-click, and shows the one-time password', async () => {
    // The server's answer waits until both clicks are in: a second account would be made (and its
    // password never shown) if the second click went through before the button turned busy.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const api = fakeApi({
      'POST /auth/register': async () => {
        await answered;
        return created;
      },
    });
    signIn(adminUser());
    const { user } = await openRegister();
    await user.type(screen.getByLabelText('用户名'), 'bob');
    await user.dblClick(screen.getByRole('button', { name: '注册' }));
    await waitFor(() => expect(api.calls('POST /auth/register').length).toBeGreaterThan(0));
    answer();
    expect(await screen.findByText('Gen-Pass-0123456789')).toBeInTheDocument();
    expect(api.calls('POST /auth/register')).toHaveLength(1);
    expect(screen.queryByText('用户名已存在')).not.toBeInTheDocument();
  });

  it('reports a failed copy', async () => {
    fakeApi({ 'POST /auth/register': created });
    signIn(adminUser());
    const { user } = await openRegister();
    await user.type(screen.getByLabelText('用户名'), 'bob');
    await user.click(screen.getByRole('button', { name: '注册' }));
    await screen.findByText('Gen-Pass-0123456789');
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    await user.click(screen.getByRole('button', { name: '复制密码' }));
    await waitFor(() => expect(screen.getByText('复制失败，请手动复制')).toBeInTheDocument());
  });
});
