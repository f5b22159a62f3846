import { render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TrendIndicator } from '../src/components/admin/TrendIndicator';
import { makeProject, makeStats, pagination, trend } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { renderApp } from './render';

const pendingProjects = [
  makeProject({
    id: 3,
    name: '旅行日记',
    file_names: ['index.html', 'css/site.css', 'img/a.png'],
    file_count: 8,
  }),
  makeProject({ id: 4, name: '作品集', owner: { id: 5, username: 'bob' } }),
];

async function openDashboard(routes: Record<string, FakeHandler> = {}) {
  const api = fakeApi({
    'GET /admin/stats': ok(makeStats()),
    'GET /admin/projects/pending': ok({ projects: pendingProjects, pagination: pagination(2, 1, 5) }),
    ...routes,
  });
  signIn(adminUser());
  const app = renderApp('/admin/dashboard');
  return { ...app, api };
}

/** The stat card whose title is this text. */
const card = (title: string) =>
  screen.getByText(title, { selector: '.stat-card__title' }).closest('.stat-card') as HTMLElement;

describe('trend display', () => {
  it('shows a rise with an up arrow: the count, its change, and the change in percent', () => {
    render(<TrendIndicator trend={trend(3, 2, 50)} what="新项目" unit="个" />);
    expect(screen.getByTestId('trend')).toHaveTextContent('新项目：近 7 天 3 个，较前 7 天 +1（+50%）');
    expect(screen.getByLabelText('上升')).toBeInTheDocument();
  });

  it('shows a fall with a down arrow, as a signed count and percentage', () => {
    render(<TrendIndicator trend={trend(1, 4, -75)} what="通过" unit="次" />);
    expect(screen.getByTestId('trend')).toHaveTextContent('通过：近 7 天 1 次，较前 7 天 -3（-75%）');
    expect(screen.getByLabelText('下降')).toBeInTheDocument();
  });

  it('says why there is no percentage when the 7 days before had nothing', () => {
    render(<TrendIndicator trend={trend(4, 0, null)} what="上传" unit="次" />);
    expect(screen.getByTestId('trend')).toHaveTextContent('上传：近 7 天 4 次，较前 7 天 +4（前 7 天为 0）');
    expect(screen.getByLabelText('上升')).toBeInTheDocument();
  });

  it('shows no change as flat, in the same form', () => {
    render(<TrendIndicator trend={trend(0, 0, 0)} what="拒绝或下线" unit="次" />);
    expect(screen.getByTestId('trend')).toHaveTextContent('拒绝或下线：近 7 天 0 次，较前 7 天 0（0%）');
    expect(screen.getByLabelText('持平')).toBeInTheDocument();
  });
});

describe('admin dashboard', () => {
  it('shows the real counters with trends computed by the server', async () => {
    await openDashboard();
    await screen.findByText('项目总数', { selector: '.stat-card__title' });
    expect(within(card('项目总数')).getByText('12')).toBeInTheDocument();
    expect(within(card('项目总数')).getByTestId('trend')).toHaveTextContent(
      '新项目：近 7 天 3 个，较前 7 天 +1（+50%）',
    );
    expect(within(card('待审核')).getByText('3')).toBeInTheDocument();
    // Live counts approved and featured (5 + 2); the featured ones are named 精选.
    expect(within(card('已发布')).getByText('7')).toBeInTheDocument();
    expect(within(card('已发布')).getByText(/精选 2/)).toBeInTheDocument();
    expect(within(card('用户总数')).getByText('9')).toBeInTheDocument();
    // Every trend reads one way: what, the last 7 days' count, the change as a count and then in
    // percent (or why there is none), never a bare "+1" beside another card's "0%".
    const trends = screen.getAllByTestId('trend').map((t) => t.textContent?.replace(/\s+/g, ' ').trim());
    expect(trends).toEqual([
      '新项目：近 7 天 3 个，较前 7 天 +1（+50%）',
      '上传：近 7 天 4 次，较前 7 天 +4（前 7 天为 0）',
      '通过：近 7 天 1 次，较前 7 天 -3（-75%）',
      '拒绝或下线：近 7 天 0 次，较前 7 天 0（0%）',
      '新用户：近 7 天 1 人，较前 7 天 +1（前 7 天为 0）',
      '访问：近 7 天 40 次，较前 7 天 +8（+25%）',
    ]);
    expect(within(card('总访问量')).getByText('345')).toBeInTheDocument();
  });

  it('lists the oldest pending projects with their files, and links to the review', async () => {
    await openDashboard();
    const link = await screen.findByRole('link', { name: '旅行日记' });
    expect(link).toHaveAttribute('href', '/admin/reviews/3');
    expect(screen.getByText('css/site.css')).toBeInTheDocument();
    expect(screen.getByText('所有者：bob')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /查看全部审核/ })).toHaveAttribute(
      'href',
      '/admin/reviews?status=pending',
    );
    for (const path of ['/admin/reviews', '/admin/users', '/admin/projects', '/admin/settings']) {
      expect(
        within(screen.getByRole('navigation', { name: '快捷入口' }))
          .getAllByRole('link')
          .some((a) => a.getAttribute('href') === path),
      ).toBe(true);
    }
  });

  it('approves a pending project from the list: 项目已通过', async () => {
    const { api, user } = await openDashboard({
      'POST /admin/projects/3/review': ok({ project: pendingProjects[0] }, '项目已通过'),
    });
    await user.click(await screen.findByRole('button', { name: '通过 旅行日记' }));
    expect(await screen.findByText('项目已通过')).toBeInTheDocument();
    // The version the list showed: a newer upload since is refused, not approved unseen.
    expect(api.calls('POST /admin/projects/3/review')[0]?.body).toEqual({ action: 'approve', version: 1 });
  });

  it('rejects with a reason that starts as 需要进一步修改: 项目已拒绝', async () => {
    const { api, user } = await openDashboard({
      'POST /admin/projects/4/review': ok({ project: pendingProjects[1] }, '项目已拒绝'),
    });
    await user.click(await screen.findByRole('button', { name: '拒绝 作品集' }));
    const box = await screen.findByLabelText('原因');
    await waitFor(() => expect(box).toHaveValue('需要进一步修改'));
    await user.click(screen.getByRole('button', { name: '确认拒绝' }));
    expect(await screen.findByText('项目已拒绝')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/4/review')[0]?.body).toEqual({
      action: 'reject',
      comment: '需要进一步修改',
      version: 1,
    });
  });

  it('reports a failed quick action as 操作失败', async () => {
    const { user } = await openDashboard({
      'POST /admin/projects/3/review': fail(409, '当前状态（已通过）不能执行此操作（通过）'),
    });
    await user.click(await screen.findByRole('button', { name: '通过 旅行日记' }));
    expect(await screen.findByText('操作失败：当前状态（已通过）不能执行此操作（通过）')).toBeInTheDocument();
  });

  it('warns while sites share one origin (the sites port, reached by IP or another name), saying what production should set', async () => {
    await openDashboard({ 'GET /admin/stats': ok(makeStats({}, { mode: 'sites_port', sites_port: 3001 })) });
    const alert = await screen.findByTestId('site-isolation-warning');
    expect(alert).toHaveTextContent('从其他设备访问时，所有站点共用一个来源（origin）');
    expect(alert).toHaveTextContent('站点在端口 3001 上提供');
    // Under localhost each site has a host of its own (an outside review read the old warning as untrue).
    expect(alert).toHaveTextContent('每个站点有自己的地址和来源（如 p12.localhost:3001）');
    expect(alert).toHaveTextContent('SITES_ORIGIN 与 SITES_SUBDOMAINS');
  });

  it('warns that sites are only sandboxed with SITES_PORT=0', async () => {
    await openDashboard({ 'GET /admin/stats': ok(makeStats({}, { mode: 'sandboxed', sites_port: null })) });
    const alert = await screen.findByTestId('site-isolation-warning');
    expect(alert).toHaveTextContent('仅靠沙箱隔离');
    expect(alert).toHaveTextContent('SITES_PORT=0');
  });

  it('does not warn with SITES_ORIGIN and SITES_SUBDOMAINS', async () => {
    await openDashboard();
    await screen.findByText('项目总数', { selector: '.stat-card__title' });
    expect(screen.queryByTestId('site-isolation-warning')).toBeNull();
  });

  it('says 获取数据失败 with a reload button when the figures cannot be loaded', async () => {
    await openDashboard({ 'GET /admin/stats': fail(500, '服务器内部错误，请稍后重试') });
    expect(await screen.findByText('获取数据失败')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /重新加载/ }).length).toBeGreaterThan(0);
  });
});

describe('admin overview panel (any other /admin address)', () => {
  it('shows the real counters from the server, never zeros', async () => {
    fakeApi({ 'GET /admin/stats': ok(makeStats()) });
    signIn(adminUser());
    const { router } = renderApp('/admin/something-else');
    await screen.findByText('用户总数', { selector: '.stat-card__title' });
    expect(router.state.location.pathname).toBe('/admin/something-else');
    expect(within(card('用户总数')).getByText('9')).toBeInTheDocument();
    expect(within(card('项目总数')).getByText('12')).toBeInTheDocument();
    expect(within(card('待审核')).getByText('3')).toBeInTheDocument();
    expect(within(card('已发布')).getByText('7')).toBeInTheDocument();
    expect(within(card('已发布')).getByText('其中精选 2 个')).toBeInTheDocument();
  });
});
