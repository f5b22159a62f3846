import type { NotificationDto } from '@sitehall/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { makeProject, publicConfig } from './project-fixtures';
import { renderApp } from './render';

const notice = (over: Partial<NotificationDto>): NotificationDto => ({
  id: 1,
  kind: 'approved',
  title: '「作品集」审核通过，已上线',
  reason: null,
  project_id: 7,
  project_name: '作品集',
  version: 1,
  link: '/projects/7',
  read: false,
  created_at: '2026-05-01T08:00:00.000Z',
  ...over,
});

const pagination = (n: number) => ({ current_page: 1, total_pages: 1, total_count: n, page_size: 20 });

describe('notices', () => {
  it('the bell shows the unread count and leads to the notices, which mark read and lead to the project', async () => {
    const user = makeUser();
    let list = [
      notice({ id: 2, kind: 'taken_down', title: '「作品集」已被管理员下线', reason: '违反平台规定' }),
      notice({ id: 1, reason: '做得不错' }),
    ];
    const unread = () => list.filter((n) => !n.read).length;
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /notifications/unread-count': () => ok({ unread_count: unread() }),
      'GET /notifications': () =>
        ok({ notifications: list, unread_count: unread(), pagination: pagination(list.length) }),
      'POST /notifications/2/read': () => {
        list = list.map((n) => (n.id === 2 ? { ...n, read: true } : n));
        return ok({ marked: 1 });
      },
      'POST /notifications/read-all': () => {
        list = list.map((n) => ({ ...n, read: true }));
        return ok({ marked: 1 }, '已全部标为已读');
      },
      'GET /projects/7': ok({ project: makeProject({ id: 7, name: '作品集' }) }),
    });
    signIn(user);
    const app = renderApp('/dashboard');
    const bell = await screen.findByRole('link', { name: '通知（2 条未读）' });
    expect(within(bell).getByText('2')).toBeInTheDocument();
    await app.user.click(bell);

    const items = await screen.findAllByTestId('notification');
    expect(items).toHaveLength(2);
    expect(within(items[0]!).getByText('「作品集」已被管理员下线')).toBeInTheDocument();
    expect(within(items[0]!).getByText('原因：违反平台规定')).toBeInTheDocument();
    expect(within(items[0]!).getByText('已下线')).toBeInTheDocument();
    // An approval's comment is what the reviewer said, not a reason.
    expect(within(items[1]!).getByText('审核意见：做得不错')).toBeInTheDocument();

    await app.user.click(within(items[0]!).getByRole('button', { name: '查看项目' }));
    await waitFor(() => expect(api.calls('POST /notifications/2/read')).toHaveLength(1));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/projects/7'));
    expect(await screen.findByRole('link', { name: '通知（1 条未读）' })).toBeInTheDocument();

    await app.router.navigate('/notifications');
    await app.user.click(await screen.findByRole('button', { name: /全部标为已读/ }));
    await waitFor(() => expect(api.calls('POST /notifications/read-all')).toHaveLength(1));
    expect(await screen.findByRole('link', { name: '通知' })).toBeInTheDocument();
  }, 60_000);

  it('marks read, on its own, a notice that leads nowhere (a deleted project)', async () => {
    const user = makeUser();
    let list = [
      notice({ id: 3, kind: 'deleted', title: '「旧站」已被管理员删除', reason: '测试删除', link: null }),
      notice({ id: 1, read: true }),
    ];
    const unread = () => list.filter((n) => !n.read).length;
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /notifications/unread-count': () => ok({ unread_count: unread() }),
      'GET /notifications': () =>
        ok({ notifications: list, unread_count: unread(), pagination: pagination(list.length) }),
      'POST /notifications/3/read': () => {
        list = list.map((n) => (n.id === 3 ? { ...n, read: true } : n));
        return ok({ marked: 1 });
      },
    });
    signIn(user);
    const app = renderApp('/notifications');
    const items = await screen.findAllByTestId('notification');
    expect(within(items[0]!).queryByRole('button', { name: '查看项目' })).toBeNull();
    // The read one has nothing to press.
    expect(within(items[1]!).queryByRole('button', { name: /标为已读/ })).toBeNull();
    await app.user.click(within(items[0]!).getByRole('button', { name: '标为已读：「旧站」已被管理员删除' }));
    await waitFor(() => expect(api.calls('POST /notifications/3/read')).toHaveLength(1));
    expect(await screen.findByRole('link', { name: '通知' })).toBeInTheDocument();
    await waitFor(() =>
      expect(
        within(screen.getAllByTestId('notification')[0]!).queryByRole('button', { name: /标为已读：/ }),
      ).toBeNull(),
    );
    expect(app.router.state.location.pathname).toBe('/notifications');
  });

  it('a decision that arrives while the project page is open shows there: the bell’s new notice reads it again', async () => {
    const user = makeUser();
    let rejected = false;
    const pending = makeProject({ id: 7, name: '作品集' });
    const list = () =>
      rejected
        ? [notice({ id: 3, kind: 'rejected', title: '「作品集」审核未通过', reason: '缺少首页文件' })]
        : [];
    fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /notifications/unread-count': () => ok({ unread_count: list().length }),
      'GET /notifications': () =>
        ok({ notifications: list(), unread_count: list().length, pagination: pagination(list().length) }),
      'GET /projects/7': () =>
        ok({
          project: rejected ? { ...pending, status: 'rejected', rejectionReason: '缺少首页文件' } : pending,
        }),
    });
    signIn(user);
    const app = renderApp('/projects/7');
    expect(await screen.findByRole('button', { name: /生成预览/ })).toBeInTheDocument();
    expect(screen.queryByText('审核未通过')).toBeNull();

    // The admin rejects it; the bell's next poll finds the notice.
    rejected = true;
    await act(() => app.queryClient.refetchQueries({ queryKey: ['notifications', 'unread'] }));
    expect(await screen.findByRole('link', { name: '通知（1 条未读）' })).toBeInTheDocument();
    expect(await screen.findByText('审核未通过')).toBeInTheDocument();
    expect(screen.getByTestId('rejection-reason')).toHaveTextContent('缺少首页文件');
    expect(screen.queryByRole('button', { name: /生成预览/ })).toBeNull();
  }, 60_000);

  it('the notices page shows a notice that came while it was open', async () => {
    const user = makeUser();
    let list: NotificationDto[] = [notice({ id: 1 })];
    fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /notifications/unread-count': () => ok({ unread_count: list.length }),
      'GET /notifications': () =>
        ok({ notifications: list, unread_count: list.length, pagination: pagination(list.length) }),
    });
    signIn(user);
    const app = renderApp('/notifications');
    expect(await screen.findAllByTestId('notification')).toHaveLength(1);
    list = [
      notice({ id: 2, kind: 'taken_down', title: '「作品集」已被管理员下线', reason: '违反平台规定' }),
      ...list,
    ];
    await act(() => app.queryClient.refetchQueries({ queryKey: ['notifications', 'unread'] }));
    await waitFor(() => expect(screen.getAllByTestId('notification')).toHaveLength(2));
    expect(screen.getByText('「作品集」已被管理员下线')).toBeInTheDocument();
  }, 60_000);

  it('says so when there are none', async () => {
    const user = makeUser();
    fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /notifications/unread-count': ok({ unread_count: 0 }),
      'GET /notifications': ok({ notifications: [], unread_count: 0, pagination: pagination(0) }),
    });
    signIn(user);
    renderApp('/notifications');
    expect(await screen.findByText('还没有通知')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /全部标为已读/ })).toBeDisabled();
  }, 60_000);

  it('turns e-mail off on the profile page', async () => {
    const user = makeUser({ email: 'alice@example.com' });
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /auth/tokens': ok({ tokens: [] }),
      'GET /config/public': ok({ ...publicConfig, mail_enabled: true }),
      'PUT /auth/profile': (req) => ok({ user: { ...user, ...(req.body as object) } }),
    });
    signIn(user);
    const app = renderApp('/profile');
    const toggle = await screen.findByRole('switch', { name: '邮件通知' });
    expect(toggle).toBeChecked();
    expect(screen.getByText(/（alice@example.com）/)).toBeInTheDocument();
    await app.user.click(toggle);
    await waitFor(() =>
      expect(api.calls('PUT /auth/profile')[0]?.body).toEqual({ email_notifications: false }),
    );
    expect(await screen.findByText('已关闭邮件通知')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('switch', { name: '邮件通知' })).not.toBeChecked());
  }, 60_000);

  it('says so when this server sends no e-mail, and offers no switch that would promise it', async () => {
    const user = makeUser({ email: 'alice@example.com' });
    fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /auth/tokens': ok({ tokens: [] }),
      'GET /config/public': ok({ ...publicConfig, mail_enabled: false }),
    });
    signIn(user);
    renderApp('/profile');
    expect(await screen.findByText(/本平台未配置邮件服务，暂不能通过邮件接收通知/)).toBeInTheDocument();
    const toggle = screen.getByRole('switch', { name: '邮件通知' });
    expect(toggle).toBeDisabled();
    expect(toggle).not.toBeChecked();
  }, 60_000);

  it('the token card shows the install, login and deploy commands for this server', async () => {
    const user = makeUser();
    fakeApi({ 'GET /auth/profile': ok({ user }), 'GET /auth/tokens': ok({ tokens: [] }) });
    signIn(user);
    renderApp('/profile');
    const origin = window.location.origin;
    expect(await screen.findByTestId('cli-install')).toHaveTextContent(
      `npm install -g ${origin}/cli/sitehall-cli.tgz`,
    );
    expect(screen.getByTestId('cli-login')).toHaveTextContent(
      `sitehall login --url ${origin} --token <令牌>`,
    );
    expect(screen.getByTestId('cli-deploy')).toHaveTextContent('sitehall deploy ./dist --name 我的站点');
  }, 60_000);

  it('the project page shows the owner’s analytics', async () => {
    const user = makeUser();
    const days = Array.from({ length: 30 }, (_, i) => ({
      day: `2026-05-${String(i + 1).padStart(2, '0')}`,
      views: i === 29 ? 12 : 0,
      bytes: i === 29 ? 2 * 1024 * 1024 : 0,
    }));
    fakeApi({
      'GET /auth/profile': ok({ user }),
      'GET /projects/7': ok({ project: makeProject({ id: 7, name: '作品集' }) }),
      'GET /projects/7/analytics': ok({
        days,
        top_pages: [
          { path: 'index.html', views: 20 },
          { path: 'about.html', views: 3 },
        ],
        referrers: [{ host: 'www.search.example', views: 5 }],
        total_views: 12,
        total_bytes: 2 * 1024 * 1024,
      }),
    });
    signIn(user);
    renderApp('/projects/7');
    const card = await screen.findByTestId('analytics-card');
    expect(await within(card).findByText('/index.html')).toBeInTheDocument();
    expect(within(card).getByText('www.search.example')).toBeInTheDocument();
    expect(within(card).getByText('2 MB')).toBeInTheDocument();
    expect(within(card).getByLabelText('最近 30 天访问量，共 12 次')).toBeInTheDocument();
  }, 60_000);
});
