import { commonMessages } from '@sitehall/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ADMIN_REVOKED_NOTE } from '../src/hooks/useAuth';
import { fail, fakeApi, ok } from './fake-api';
import { adminUser, makeUser, signIn } from './fixtures';
import { renderApp } from './render';

describe('route guards', () => {
  it('sends an anonymous visitor to /login and remembers the page, query included', async () => {
    fakeApi();
    const { router } = renderApp('/projects/7?tab=files');
    expect(await screen.findByRole('heading', { name: '登录站点展厅' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.state).toMatchObject({
      from: { pathname: '/projects/7', search: '?tab=files' },
    });
    expect(screen.getByText('请先登录')).toBeInTheDocument();
  });

  it('sends an anonymous visitor on an admin page to /login', async () => {
    fakeApi();
    const { router } = renderApp('/admin/users');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(router.state.location.state).toMatchObject({ from: { pathname: '/admin/users' } });
  });

  it('sends a signed-in user away from admin pages to /dashboard', async () => {
    fakeApi();
    signIn(makeUser());
    const { router } = renderApp('/admin/reviews');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(await screen.findByRole('navigation', { name: '我的工作台' })).toBeInTheDocument();
  });

  it('lets an admin into every admin page, inside the admin layout', async () => {
    fakeApi();
    signIn(adminUser());
    const { router } = renderApp('/admin');
    expect(await screen.findByRole('navigation', { name: '管理后台' })).toBeInTheDocument();
    for (const path of [
      '/admin/dashboard',
      '/admin/reviews',
      '/admin/reviews/3',
      '/admin/users',
      '/admin/projects',
      '/admin/settings',
      '/admin/audit-logs',
    ]) {
      await router.navigate(path);
      expect(router.state.location.pathname).toBe(path);
      expect(await screen.findByRole('navigation', { name: '管理后台' })).toBeInTheDocument();
    }
  });

  it('keeps other /admin/* addresses admin-only, inside the admin layout', async () => {
    fakeApi();
    signIn(adminUser());
    renderApp('/admin/nothing-here');
    expect(await screen.findByRole('navigation', { name: '管理后台' })).toBeInTheDocument();
  });

  it('sends a user on other /admin/* addresses to /dashboard', async () => {
    fakeApi();
    signIn(makeUser());
    const { router } = renderApp('/admin/nothing-here');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('sends a signed-in user away from /login to /dashboard', async () => {
    fakeApi();
    signIn(makeUser());
    const { router } = renderApp('/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(screen.queryByRole('heading', { name: '登录站点展厅' })).not.toBeInTheDocument();
  });

  it('redirects an unknown path to the home page', async () => {
    fakeApi();
    const { router } = renderApp('/no/such/page');
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(await screen.findByRole('link', { name: '开始使用' })).toBeInTheDocument();
  });

  it('offers a signed-out visitor no self-registration: sign in, with accounts from the administrator', async () => {
    fakeApi();
    renderApp('/');
    expect(await screen.findByRole('link', { name: '立即登录' })).toHaveAttribute('href', '/login');
    expect(
      screen.getByText('登录后即可上传站点。平台不开放自助注册，账号由管理员创建。'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /注册账号/ })).not.toBeInTheDocument();
    expect(document.querySelector('a[href="/register"]')).toBeNull();
  });

  it('tells a phone visitor on the home page to choose files, where nothing can be dragged', async () => {
    const mediaQuery = window.matchMedia;
    vi.spyOn(window, 'matchMedia').mockImplementation((query) =>
      query === '(pointer: coarse)' ? { ...mediaQuery(query), matches: true } : mediaQuery(query),
    );
    fakeApi();
    renderApp('/');
    expect(
      await screen.findByText('选择压缩包、网页文件或整个文件夹即可上传，系统自动识别入口页面。'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/拖拽/)).not.toBeInTheDocument();
    vi.restoreAllMocks();
  });

  it('shows the console pages to signed-in users, inside the sidebar layout', async () => {
    fakeApi();
    signIn(makeUser());
    const { router } = renderApp('/dashboard');
    expect(await screen.findByRole('navigation', { name: '我的工作台' })).toBeInTheDocument();
    for (const path of ['/projects', '/projects/12', '/upload', '/profile']) {
      await router.navigate(path);
      expect(router.state.location.pathname).toBe(path);
      expect(await screen.findByRole('navigation', { name: '我的工作台' })).toBeInTheDocument();
    }
  });

  it('shows the showcase to everyone, in the public layout', async () => {
    fakeApi();
    const { router } = renderApp('/public');
    const nav = await screen.findByRole('navigation', { name: '主导航' });
    expect(router.state.location.pathname).toBe('/public');
    expect(screen.queryByRole('navigation', { name: '我的工作台' })).not.toBeInTheDocument();
    expect(nav).toBeInTheDocument();
  });

  it('sends an admin made a user meanwhile out of the admin panel, saying why, at the first admin call refused 403', async () => {
    const before = adminUser();
    let role: 'admin' | 'user' = 'admin';
    const refused = fail(403, commonMessages.adminOnly);
    const api = fakeApi({
      'GET /auth/profile': () => ok({ user: { ...before, role } }),
      'GET /admin/users': () =>
        role === 'admin'
          ? ok({ users: [], pagination: { current_page: 1, total_pages: 1, total_count: 0, page_size: 20 } })
          : refused,
      'GET /admin/projects': refused,
    });
    signIn(before);
    const { router, user } = renderApp('/admin/users');
    expect(await screen.findByText('共 0 个用户')).toBeInTheDocument();
    // Another admin makes this one a user; the next admin page's call is refused. The app asks who
    // it is again rather than leaving 获取项目列表失败 with 重新加载 on a page it can't open.
    role = 'user';
    await user.click(screen.getByRole('link', { name: '项目' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(api.calls('GET /auth/profile')).toHaveLength(2);
    expect(await screen.findByText(ADMIN_REVOKED_NOTE)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: '管理后台' })).not.toBeInTheDocument();
  });

  it('signs out quietly when the stored session is no longer valid', async () => {
    const api = fakeApi({
      'GET /auth/profile': { status: 401, body: { success: false, message: '登录已过期，请重新登录' } },
    });
    signIn(makeUser());
    renderApp('/');
    await waitFor(() => expect(api.calls('GET /auth/profile')).toHaveLength(1));
    expect(await screen.findByRole('link', { name: '登录' })).toBeInTheDocument();
    expect(window.sessionStorage.getItem('sitehall.token')).toBeNull();
  });
});
