import type { AuditLogDto } from '@sitehall/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { pagination } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { renderApp } from './render';

function entry(overrides: Partial<AuditLogDto>): AuditLogDto {
  return {
    id: 1,
    actor: { id: 1, username: 'admin' },
    action: 'review.reject',
    action_label: '拒绝项目',
    target_type: 'project',
    target_id: '7',
    target_name: null,
    target_gone: false,
    detail: null,
    ip: '203.0.113.9',
    created_at: '2024-05-01T08:00:00.000Z',
    ...overrides,
  };
}

const logs = [
  entry({ id: 2 }),
  entry({
    id: 1,
    actor: null,
    action: 'auth.login_failed',
    action_label: '登录失败',
    target_type: null,
    target_id: null,
    target_name: null,
    ip: '198.51.100.4',
  }),
];
const page = (rows = logs, total = 45) => ok({ logs: rows, pagination: pagination(total, 1, 20) });

async function openAudit(routes: Record<string, FakeHandler> = {}, path = '/admin/audit-logs') {
  const api = fakeApi({ 'GET /admin/audit-logs': page(), ...routes });
  signIn(adminUser());
  const app = renderApp(path);
  return { ...app, api };
}

describe('audit log page', () => {
  it('lists who did what, to what, from where, with the count', async () => {
    await openAudit();
    const rejected = (await screen.findByText('拒绝项目')).closest('tr') as HTMLElement;
    expect(within(rejected).getByText('admin')).toBeInTheDocument();
    expect(within(rejected).getByRole('link', { name: '项目 #7' })).toHaveAttribute(
      'href',
      '/admin/reviews/7',
    );
    expect(within(rejected).getByText('203.0.113.9')).toBeInTheDocument();
    const failed = screen.getByText('登录失败').closest('tr') as HTMLElement;
    expect(within(failed).getByText('系统 / 未登录')).toBeInTheDocument();
    expect(screen.getByText('共 45 条记录')).toBeInTheDocument();
  });

  it('names users and projects where the server gives a name, and keeps the id where it does not', async () => {
    await openAudit({
      'GET /admin/audit-logs': page([
        entry({ id: 3, target_name: '旅行日记' }),
        entry({
          id: 2,
          action: 'user.disable',
          action_label: '停用用户',
          target_type: 'user',
          target_id: '3',
          target_name: 'alice',
        }),
        entry({
          id: 1,
          action: 'user.enable',
          action_label: '启用用户',
          target_type: 'user',
          target_id: '9',
        }),
      ]),
    });
    const project = await screen.findByRole('link', { name: '项目 旅行日记' });
    expect(project).toHaveAttribute('href', '/admin/reviews/7');
    expect(project).toHaveAttribute('title', '项目 #7');
    expect(screen.getByText('用户 alice')).toHaveAttribute('title', '用户 #3');
    expect(screen.queryByText('用户 #3')).not.toBeInTheDocument();
    expect(screen.getByText('用户 #9')).toBeInTheDocument();
  });

  it('names a project deleted since without a link to its missing page', async () => {
    await openAudit({
      'GET /admin/audit-logs': page([
        entry({ id: 2, target_id: '8', target_name: '旧作业', target_gone: true }),
        entry({ id: 1, target_id: '7', target_name: '旅行日记' }),
      ]),
    });
    expect(await screen.findByRole('link', { name: '项目 旅行日记' })).toBeInTheDocument();
    const gone = screen.getByText('项目 旧作业（已删除）');
    expect(gone.closest('a')).toBeNull();
    expect(gone).toHaveAttribute('title', '项目 #8');
  });

  it('filters by actor and IP from the first page, and a link can carry a filter', async () => {
    const { api, user } = await openAudit({}, '/admin/audit-logs?target_type=project&target_id=7');
    await screen.findByText('拒绝项目');
    expect(api.calls('GET /admin/audit-logs')[0]?.params).toMatchObject({
      target_type: 'project',
      target_id: '7',
      page: 1,
    });
    await user.type(screen.getByLabelText('操作者'), ' admin ');
    await user.type(screen.getByLabelText('IP'), '203.0.113.9');
    await user.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() =>
      expect(api.calls('GET /admin/audit-logs').at(-1)?.params).toMatchObject({
        actor: 'admin',
        ip: '203.0.113.9',
        target_id: '7',
        page: 1,
      }),
    );
  });

  it('keeps filters, page and period in the address, so back and reload show the same records', async () => {
    const { api, router, user } = await openAudit();
    await screen.findByText('拒绝项目');
    await user.type(screen.getByLabelText('操作者'), 'admin');
    await user.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(router.state.location.search).toBe('?actor=admin'));
    // The page has drawn the filtered records (and asked for them) before the next click.
    await waitFor(() =>
      expect(api.calls('GET /admin/audit-logs').at(-1)?.params).toMatchObject({ actor: 'admin', page: 1 }),
    );
    await user.click(await screen.findByTitle('2'));
    await waitFor(() => expect(router.state.location.search).toBe('?actor=admin&page=2'));
    await waitFor(() =>
      expect(api.calls('GET /admin/audit-logs').at(-1)?.params).toMatchObject({ actor: 'admin', page: 2 }),
    );

    // Elsewhere, then back: the same view, asked of the server again.
    await router.navigate('/admin/users');
    await router.navigate(-1);
    await waitFor(() => expect(screen.getByLabelText('操作者')).toHaveValue('admin'));
    expect(router.state.location.search).toBe('?actor=admin&page=2');

    // A link with a period opens on it, the days shown in the picker.
    await router.navigate(
      '/admin/audit-logs?from=2024-05-01T00%3A00%3A00.000Z&to=2024-05-02T23%3A59%3A59.999Z',
    );
    await waitFor(() =>
      expect(api.calls('GET /admin/audit-logs').at(-1)?.params).toMatchObject({
        from: '2024-05-01T00:00:00.000Z',
        to: '2024-05-02T23:59:59.999Z',
        page: 1,
      }),
    );
    await waitFor(() => {
      expect(screen.getByLabelText('操作者')).toHaveValue('');
      expect(screen.getByPlaceholderText('开始日期')).not.toHaveValue('');
    });

    await user.click(screen.getByRole('button', { name: /重\s*置/ }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('shows the period picker’s calendar in Chinese, weeks from Monday', async () => {
    const { user } = await openAudit();
    await screen.findByText('拒绝项目');
    await user.click(screen.getByPlaceholderText('开始日期'));
    await waitFor(() => expect(document.querySelector('.ant-picker-content thead')).not.toBeNull());
    const days = [...document.querySelectorAll('.ant-picker-content thead th')]
      .slice(0, 7)
      .map((th) => th.textContent);
    expect(days).toEqual(['一', '二', '三', '四', '五', '六', '日']);
    expect(document.querySelector('.ant-picker-month-btn')?.textContent).toMatch(/^\d{1,2}月$/);
  });

  it('says when nothing matches', async () => {
    await openAudit({ 'GET /admin/audit-logs': page([], 0) }, '/admin/audit-logs?actor=nobody');
    expect(await screen.findByText('没有符合条件的记录')).toBeInTheDocument();
  });

  it('says 获取数据失败 with a reload button when the log cannot be loaded', async () => {
    const { api, user } = await openAudit({
      'GET /admin/audit-logs': fail(500, '服务器内部错误，请稍后重试'),
    });
    expect(await screen.findByText('获取数据失败')).toBeInTheDocument();
    api.on('GET /admin/audit-logs', page());
    await user.click(screen.getByRole('button', { name: /重新加载/ }));
    expect(await screen.findByText('拒绝项目')).toBeInTheDocument();
  });
});
