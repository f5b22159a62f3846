import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, fakeApi, ok } from './fake-api';
import { adminUser, makeUser, signIn } from './fixtures';
import { renderApp } from './render';

const mainNav = () => screen.getByRole('navigation', { name: '主导航' });
const navLinkNames = () =>
  within(mainNav())
    .getAllByRole('link')
    .map((link) => link.textContent);

describe('navigation bar', () => {
  it('shows a visitor home, showcase and the login button', async () => {
    fakeApi();
    renderApp('/');
    await screen.findByRole('heading', { name: /站点展厅/, level: 1 });
    expect(navLinkNames()).toEqual(['首页', '展厅']);
    expect(screen.getByRole('link', { name: '登录' })).toHaveAttribute('href', '/login');
    expect(screen.queryByRole('button', { name: '用户菜单' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: '注册用户' })).not.toBeInTheDocument();
  });

  it('adds my projects and upload for a signed-in user, without admin links', async () => {
    fakeApi();
    signIn(makeUser());
    renderApp('/');
    await screen.findByRole('button', { name: '用户菜单' });
    expect(navLinkNames()).toEqual(['首页', '展厅', '我的项目', '上传项目']);
    expect(screen.queryByRole('link', { name: '登录' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: '注册用户' })).not.toBeInTheDocument();
  });

  it('adds the admin panel link and the register button for an admin', async () => {
    fakeApi();
    signIn(adminUser());
    renderApp('/');
    await screen.findByRole('button', { name: '用户菜单' });
    expect(navLinkNames()).toEqual(['首页', '展厅', '我的项目', '上传项目', '管理后台']);
    expect(within(mainNav()).getByRole('link', { name: '管理后台' })).toHaveAttribute('href', '/admin');
    expect(screen.getByRole('link', { name: '注册用户' })).toHaveAttribute('href', '/register');
  });

  // The bar offered 登录 on the login page: a link to the page already open.
  it('offers no 登录 on the login page', async () => {
    fakeApi();
    const { user } = renderApp('/login');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(navLinkNames()).toEqual(['首页', '展厅']);
    expect(screen.queryByRole('link', { name: '登录' })).not.toBeInTheDocument();
    // Elsewhere it is back.
    await user.click(within(mainNav()).getByRole('link', { name: '展厅' }));
    expect(await screen.findByRole('link', { name: '登录' })).toHaveAttribute('href', '/login');
  });

  it('offers the admin no 注册用户 on the register page, in the bar or the phone menu', async () => {
    fakeApi();
    signIn(adminUser());
    const { user } = renderApp('/register');
    await screen.findByRole('heading', { name: '注册新用户' });
    expect(screen.queryByRole('link', { name: '注册用户' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '打开导航菜单' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByRole('link', { name: '首页' })).toBeInTheDocument();
    expect(within(drawer).queryByRole('link', { name: '注册用户' })).not.toBeInTheDocument();
  });

  it('marks the current page in the navigation', async () => {
    fakeApi();
    renderApp('/public');
    await screen.findByRole('heading', { name: '项目展厅' });
    expect(within(mainNav()).getByRole('link', { name: '展厅' })).toHaveAttribute('aria-current', 'page');
    expect(within(mainNav()).getByRole('link', { name: '首页' })).not.toHaveAttribute('aria-current');
  });

  it('opens a user menu with name, email, role badge and sign-out', async () => {
    fakeApi();
    signIn(makeUser({ username: 'alice', email: 'alice@example.com' }));
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: '用户菜单' }));
    const menu = await screen.findByRole('menu');
    const panel = menu.parentElement as HTMLElement;
    expect(within(panel).getByText('alice@example.com')).toBeInTheDocument();
    expect(within(panel).getByText('用户')).toBeInTheDocument();
    expect(within(menu).getByRole('menuitem', { name: '登出' })).toBeInTheDocument();
  });

  it('shows the coloured initial when there is no avatar image, and 管理员 for admins', async () => {
    fakeApi();
    signIn(adminUser({ username: 'root', email: null }));
    const { user } = renderApp('/');
    const trigger = await screen.findByRole('button', { name: '用户菜单' });
    expect(within(trigger).getByText('R')).toBeInTheDocument();
    await user.click(trigger);
    const panel = (await screen.findByRole('menu')).parentElement as HTMLElement;
    expect(within(panel).getByText('管理员')).toBeInTheDocument();
    expect(within(panel).getByText('邮箱未设置')).toBeInTheDocument();
  });

  it('signs out: 登出成功, session cleared, back to the home page', async () => {
    const api = fakeApi({ 'POST /auth/logout': ok(null, '登出成功') });
    signIn(makeUser(), { remember: true });
    const { user, router } = renderApp('/dashboard');
    await user.click(await screen.findByRole('button', { name: '用户菜单' }));
    await user.click(await screen.findByRole('menuitem', { name: '登出' }));
    expect(await screen.findByText('登出成功')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(api.calls('POST /auth/logout')).toHaveLength(1);
    expect(window.localStorage.getItem('sitehall.token')).toBeNull();
    expect(screen.getByRole('link', { name: '登录' })).toBeInTheDocument();
  });

  it('reports 登出失败 when the server call fails, and still signs out locally', async () => {
    fakeApi({ 'POST /auth/logout': fail(500, '服务器内部错误，请稍后重试') });
    signIn(makeUser());
    const { user, router } = renderApp('/projects');
    await user.click(await screen.findByRole('button', { name: '用户菜单' }));
    await user.click(await screen.findByRole('menuitem', { name: '登出' }));
    expect(await screen.findByText('登出失败')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(window.sessionStorage.getItem('sitehall.token')).toBeNull();
  });
});
