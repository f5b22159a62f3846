import { type AdminUserDto, messages } from '@sitehall/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../src/api/query-keys';
import { makeStats } from './admin-fixtures';
import { fail, fakeApi, ok } from './fake-api';
import { adminUser, makeAdminUser, signIn } from './fixtures';
import { renderApp } from './render';

const me = adminUser();
const rows: AdminUserDto[] = [
  makeAdminUser({ ...me }),
  makeAdminUser({
    id: 2,
    username: 'alice',
    email: 'alice@example.com',
    project_count: 3,
    storage_used_bytes: 300 * 1024 * 1024,
    storage_quota_bytes: 500 * 1024 * 1024,
    storage_limit_bytes: 500 * 1024 * 1024,
  }),
  makeAdminUser({ id: 3, username: 'carol', email: null, disabled: true }),
];
const page = (users: AdminUserDto[], total = users.length) =>
  ok({ users, pagination: { current_page: 1, total_pages: 1, total_count: total, page_size: 20 } });

async function openUsers(routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi({ 'GET /admin/users': page(rows), ...routes });
  signIn(me);
  const app = renderApp('/admin/users');
  await screen.findByText('alice@example.com');
  return { ...app, api };
}

// Accessible-name queries over whole table rows are very slow in jsdom; find the row from its username.
const rowOf = (name: string) =>
  screen.getByText(name, { selector: '.users-table__username' }).closest('tr') as HTMLElement;

describe('admin users page', () => {
  it('lists users with role, status and project count', async () => {
    await openUsers();
    expect(screen.getByText('共 3 个用户')).toBeInTheDocument();
    expect(within(rowOf('alice')).getByText('正常')).toBeInTheDocument();
    expect(within(rowOf('carol')).getByText('已停用')).toBeInTheDocument();
    expect(within(rowOf('carol')).getByRole('button', { name: '启用' })).toBeInTheDocument();
    // An admin cannot lock themselves out from this page.
    expect(within(rowOf('admin')).getByRole('button', { name: '删除' })).toBeDisabled();
    expect(within(rowOf('admin')).getByRole('button', { name: '停用' })).toBeDisabled();
  });

  it("shows each user's storage used against their quota", async () => {
    await openUsers();
    expect(within(rowOf('alice')).getByText('300 MB / 500 MB')).toBeInTheDocument();
    expect(within(rowOf('admin')).getByText('0 B / 1 GB')).toBeInTheDocument();
    const bar = within(rowOf('alice')).getByRole('progressbar');
    expect(bar).toHaveAttribute('aria-valuenow', '60');
    expect(bar).toHaveAccessibleName('存储空间：已使用 300 MB / 500 MB');
  });

  it("sets a user's own quota in the unit the admin picks (MB or GB), and clears it back to the platform default", async () => {
    const { api, user } = await openUsers({
      'PATCH /admin/users/2': ok({ user: rows[1] }, messages.auth.storageQuotaSaved),
    });
    // 500 MB opens in MB, as 500 (not 0.49 GB); saved untouched it stays 500 MB to the byte.
    await user.click(within(rowOf('alice')).getByRole('button', { name: '配额' }));
    expect(await screen.findByLabelText('存储配额（MB）')).toHaveValue('500');
    await user.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(api.calls('PATCH /admin/users/2')).toHaveLength(1));
    expect(api.calls('PATCH /admin/users/2')[0]?.body).toEqual({ storage_quota_bytes: 500 * 1024 * 1024 });

    await user.click(within(rowOf('alice')).getByRole('button', { name: '配额' }));
    let input = await screen.findByLabelText('存储配额（MB）');
    await user.clear(input);
    await user.type(input, '5');
    await user.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText(/^存储配额必须在 10 MB 到 100 TB 之间/)).toBeInTheDocument();
    expect(api.calls('PATCH /admin/users/2')).toHaveLength(1);

    await user.clear(input);
    await user.type(input, '750');
    await user.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(api.calls('PATCH /admin/users/2')).toHaveLength(2));
    expect(api.calls('PATCH /admin/users/2')[1]?.body).toEqual({ storage_quota_bytes: 750 * 1024 * 1024 });

    // The same number in GB, by choosing the unit.
    await user.click(within(rowOf('alice')).getByRole('button', { name: '配额' }));
    input = await screen.findByLabelText('存储配额（MB）');
    await user.clear(input);
    await user.type(input, '2');
    await user.click(screen.getByText('GB', { selector: '.ant-segmented-item-label' }));
    expect(screen.getByLabelText('存储配额（GB）')).toHaveValue('2');
    await user.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(api.calls('PATCH /admin/users/2')).toHaveLength(3));
    expect(api.calls('PATCH /admin/users/2')[2]?.body).toEqual({ storage_quota_bytes: 2 * 1024 ** 3 });

    await user.click(within(rowOf('alice')).getByRole('button', { name: '配额' }));
    await user.clear(await screen.findByLabelText('存储配额（MB）'));
    await user.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(api.calls('PATCH /admin/users/2')).toHaveLength(4));
    expect(api.calls('PATCH /admin/users/2')[3]?.body).toEqual({ storage_quota_bytes: null });
    expect(screen.getAllByText(messages.auth.storageQuotaSaved).length).toBeGreaterThan(0);
  });

  it('opens a quota on the platform default in GB', async () => {
    const { user } = await openUsers();
    await user.click(within(rowOf('carol')).getByRole('button', { name: '配额' }));
    expect(await screen.findByLabelText('存储配额（GB）')).toHaveValue('');
  });

  it('searches by name or email from the first page', async () => {
    const { api, user } = await openUsers();
    await user.type(screen.getByRole('searchbox', { name: '搜索用户' }), 'ali{Enter}');
    await waitFor(() =>
      expect(api.calls('GET /admin/users').at(-1)?.params).toMatchObject({ search: 'ali', page: 1 }),
    );
  });

  it('shows an empty state when nothing matches', async () => {
    const { api, user } = await openUsers();
    api.on('GET /admin/users', page([]));
    await user.type(screen.getByRole('searchbox', { name: '搜索用户' }), 'zzz{Enter}');
    expect(await screen.findByText('没有找到匹配的用户')).toBeInTheDocument();
  });

  it('resets a password and shows the new one once', async () => {
    const { api, user } = await openUsers({
      'POST /admin/users/2/reset-password': ok(
        { password: 'Fresh-Pass-987654321', user: rows[1] },
        '密码已重置',
      ),
    });
    await user.click(within(rowOf('alice')).getByRole('button', { name: '重置密码' }));
    await user.click(await screen.findByRole('button', { name: '确认重置' }));
    // (antd gives every dialog the same label id under test, so find it by its content)
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('密码已重置')).toBeInTheDocument();
    expect(within(dialog).getByText('Fresh-Pass-987654321')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: '复制密码' })).toBeInTheDocument();
    expect(api.calls('POST /admin/users/2/reset-password')).toHaveLength(1);
  });

  it("lists a user's API tokens without the secret and revokes one after confirmation", async () => {
    let tokens = [
      {
        id: 7,
        name: 'GitHub Actions',
        prefix: 'sht_AbCd1234',
        created_at: '2026-03-01T08:00:00.000Z',
        last_used_at: '2026-03-02T09:30:00.000Z',
      },
      { id: 8, name: '旧令牌', prefix: null, created_at: '2026-01-01T08:00:00.000Z', last_used_at: null },
    ];
    const { api, user } = await openUsers({
      'GET /admin/users/2/tokens': () => ok({ tokens }),
      'DELETE /admin/users/2/tokens/7': () => {
        tokens = tokens.filter((t) => t.id !== 7);
        return ok(null, messages.deploy.tokenRevoked);
      },
    });
    await user.click(within(rowOf('alice')).getByRole('button', { name: '令牌' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('alice 的 API 令牌')).toBeInTheDocument();
    expect(await within(dialog).findByText('GitHub Actions')).toBeInTheDocument();
    expect(within(dialog).getByText('sht_AbCd1234…')).toBeInTheDocument();
    expect(within(dialog).getByText('从未使用')).toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: '撤销令牌 GitHub Actions' }));
    expect(await screen.findByText(/撤销令牌 "GitHub Actions" 后/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '确认撤销' }));
    await waitFor(() => expect(api.calls('DELETE /admin/users/2/tokens/7')).toHaveLength(1));
    expect(await screen.findByText(messages.deploy.tokenRevoked)).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).queryByText('GitHub Actions')).not.toBeInTheDocument());
    expect(within(dialog).getByText('旧令牌')).toBeInTheDocument();
  });

  it('says so when a user has no API tokens, and shows a load failure', async () => {
    const { user } = await openUsers({
      'GET /admin/users/2/tokens': ok({ tokens: [] }),
      'GET /admin/users/3/tokens': fail(503, '数据库暂时不可用，请稍后重试'),
    });
    await user.click(within(rowOf('alice')).getByRole('button', { name: '令牌' }));
    expect(await screen.findByText(messages.deploy.userTokensEmpty)).toBeInTheDocument();
    // (the footer's button; the corner's × is named 关闭 too)
    await user.click(screen.getAllByRole('button', { name: '关闭' }).at(-1)!);
    await user.click(within(rowOf('carol')).getByRole('button', { name: '令牌' }));
    expect(await screen.findByText(messages.deploy.userTokensLoadFailed)).toBeInTheDocument();
    expect(screen.getByText('数据库暂时不可用，请稍后重试')).toBeInTheDocument();
  });

  it('deletes after confirmation and shows the server message on failure', async () => {
    const { api, user } = await openUsers({
      // Projects may have been uploaded since the list was loaded: the server has the last word.
      'DELETE /admin/users/3': fail(409, messages.auth.userHasProjects),
    });
    await user.click(within(rowOf('carol')).getByRole('button', { name: '删除' }));
    expect(await screen.findByText('确定要删除用户 "carol" 吗？此操作不可撤销。')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '确认删除' }));
    expect(await screen.findByText(messages.auth.userHasProjects)).toBeInTheDocument();
    expect(api.calls('DELETE /admin/users/3')).toHaveLength(1);
  });

  it('says before deleting that a user who owns projects cannot be, and offers to disable instead', async () => {
    const { api, user } = await openUsers({
      'PATCH /admin/users/2': ok({ user: { ...rows[1], disabled: true } }),
    });
    await user.click(within(rowOf('alice')).getByRole('button', { name: '删除' }));
    expect(
      await screen.findByText('用户 "alice" 还有 3 个项目，不能删除。请先删除其项目，或停用该账号。'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '改为停用' }));
    expect(await screen.findByText('用户已停用')).toBeInTheDocument();
    expect(api.calls('PATCH /admin/users/2')[0]?.body).toEqual({ disabled: true });
    expect(api.calls('DELETE /admin/users/2')).toHaveLength(0);
  });

  it('marks the overview’s user counts stale after a change to a user', async () => {
    const { user, queryClient } = await openUsers({
      'PATCH /admin/users/2': ok({ user: { ...rows[1], disabled: true } }),
    });
    queryClient.setQueryData(queryKeys.adminStats, makeStats());
    await user.click(within(rowOf('alice')).getByRole('button', { name: '停用' }));
    await user.click(await screen.findByRole('button', { name: '确认停用' }));
    expect(await screen.findByText('用户已停用')).toBeInTheDocument();
    await waitFor(() => expect(queryClient.getQueryState(queryKeys.adminStats)?.isInvalidated).toBe(true));
  });

  it('pins the action column on a wide screen only: on a phone it would cover the names', async () => {
    const actionsCell = () => within(rowOf('alice')).getByRole('button', { name: '停用' }).closest('td');
    const wide = await openUsers();
    expect(actionsCell()).toHaveClass('ant-table-cell-fix-end');
    wide.unmount();
    const width = window.innerWidth;
    window.innerWidth = 390;
    try {
      await openUsers();
      expect(actionsCell()).not.toHaveClass('ant-table-cell-fix-end');
    } finally {
      window.innerWidth = width;
    }
  });

  it('marks an account locked after wrong passwords 已锁定, and 解锁 ends the lock', async () => {
    const lockedUntil = new Date(Date.now() + 15 * 60_000).toISOString();
    const locked = rows.map((r) => (r.id === 2 ? { ...r, locked_until: lockedUntil } : r));
    const { api, user } = await openUsers({
      'GET /admin/users': page(locked),
      'POST /admin/users/2/unlock': ok({ user: { ...rows[1], locked_until: null } }, '已解除登录锁定'),
    });
    const alice = rowOf('alice');
    expect(within(alice).getByText('已锁定')).toBeInTheDocument();
    // Only the locked account offers 解锁.
    expect(within(rowOf('carol')).queryByText('已锁定')).toBeNull();
    expect(within(rowOf('carol')).queryByRole('button', { name: '解锁' })).toBeNull();

    api.on('GET /admin/users', page(rows));
    await user.click(within(alice).getByRole('button', { name: '解锁' }));
    expect(await screen.findByText(/解除「alice」的登录锁定/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '确认解锁' }));
    await waitFor(() => expect(api.calls('POST /admin/users/2/unlock')).toHaveLength(1));
    expect(await screen.findByText('已解除登录锁定')).toBeInTheDocument();
    await waitFor(() => expect(within(rowOf('alice')).queryByText('已锁定')).toBeNull());
    expect(within(rowOf('alice')).queryByRole('button', { name: '解锁' })).toBeNull();
  });

  it('disables a user after confirmation', async () => {
    const { api, user } = await openUsers({
      'PATCH /admin/users/2': ok({ user: { ...rows[1], disabled: true } }),
    });
    await user.click(within(rowOf('alice')).getByRole('button', { name: '停用' }));
    await user.click(await screen.findByRole('button', { name: '确认停用' }));
    expect(await screen.findByText('用户已停用')).toBeInTheDocument();
    expect(api.calls('PATCH /admin/users/2')[0]?.body).toEqual({ disabled: true });
  });

  it('shows a load error with a retry button', async () => {
    fakeApi({ 'GET /admin/users': fail(500, '服务器内部错误，请稍后重试') });
    signIn(me);
    renderApp('/admin/users');
    expect(await screen.findByText('获取用户列表失败')).toBeInTheDocument();
    expect(screen.getByText('服务器内部错误，请稍后重试')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '重新加载' })).toBeInTheDocument();
  });
});
