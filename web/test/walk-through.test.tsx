/**
 * What a first walk through the product found, each as a person meets it: the way in for a
 * visitor, a disabled account's notice, admin wording and labels, and the figures on the cards.
 */
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../src/lib/format';
import { archiveLabel, type PickedFile } from '../src/lib/upload-files';
import { describeAuditDetail } from '../src/pages/admin/audit-logs/auditDetail';
import { ShowcaseCard } from '../src/pages/showcase/ShowcaseCard';
import { makeProject as makeAdminProject, makePublicProject, pagination } from './admin-fixtures';
import { fail, fakeApi, ok } from './fake-api';
import { adminUser, makeUser, signIn } from './fixtures';
import { makeDeployment, makeProject, myProjects, publicConfig } from './project-fixtures';
import { renderApp, renderInProviders } from './render';

describe('the way in', () => {
  it('takes a visitor from 开始使用 to a sign-in page that says accounts come from the administrator', async () => {
    fakeApi();
    const { user, router } = renderApp('/');
    await user.click(await screen.findByRole('link', { name: '开始使用' }));
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByText(/账号由管理员创建/)).toBeInTheDocument();
    expect(screen.queryByText('请先登录')).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: '先去逛逛展厅' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/public'));
  });

  const signedInAs = (who: ReturnType<typeof makeUser>) =>
    ok(
      { token: 'new-token', expires_at: new Date(Date.now() + 3_600_000).toISOString(), user: who },
      '登录成功',
    );

  async function signInThroughTheForm(user: ReturnType<typeof renderApp>['user']) {
    await screen.findByRole('heading', { name: '登录站点展厅' });
    await user.type(screen.getByLabelText('用户名或邮箱'), 'alice');
    await user.type(screen.getByLabelText('密码'), 'secret-password');
    await user.click(screen.getByRole('button', { name: '登录' }));
  }

  it.each([
    ['an ordinary user', makeUser(), '/upload'],
    ['an admin', adminUser(), '/admin'],
  ])(
    'leads %s who signs in from 开始使用 to a page they may use, not 访问受限',
    async (_who, who, landing) => {
      fakeApi({ 'POST /auth/login': signedInAs(who) });
      const { user, router } = renderApp('/');
      await user.click(await screen.findByRole('link', { name: '开始使用' }));
      await signInThroughTheForm(user);
      await waitFor(() => expect(router.state.location.pathname).toBe(landing));
      expect(screen.queryByText('访问受限')).not.toBeInTheDocument();
    },
  );

  it('leads an ordinary user who signs in on the way to /register (注册账号) to the upload page', async () => {
    fakeApi({ 'POST /auth/login': signedInAs(makeUser()) });
    const { user, router } = renderApp('/register');
    await signInThroughTheForm(user);
    await waitFor(() => expect(router.state.location.pathname).toBe('/upload'));
    expect(screen.queryByText('访问受限')).not.toBeInTheDocument();
  });

  it('still says 请先登录 to someone sent from another signed-in page', async () => {
    fakeApi();
    renderApp('/projects');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(screen.getByText('请先登录')).toBeInTheDocument();
    expect(screen.queryByText(/账号由管理员创建/)).not.toBeInTheDocument();
  });

  it('tells a user whose account was disabled why they were signed out', async () => {
    fakeApi({ 'GET /auth/profile': fail(401, '账号已被停用，请联系管理员') });
    signIn(makeUser());
    renderApp('/projects');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(await screen.findByText('账号已被停用，请联系管理员')).toBeInTheDocument();
    expect(screen.queryByText('请先登录')).not.toBeInTheDocument();
  });

  it('tells it too when a call during the visit finds the account disabled', async () => {
    fakeApi({ 'GET /projects/my': fail(401, '账号已被停用，请联系管理员') });
    signIn(makeUser());
    renderApp('/projects');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    await waitFor(() => expect(screen.getByText('账号已被停用，请联系管理员')).toBeInTheDocument());
  });
});

describe('admin lists', () => {
  const rows = [
    makeAdminProject({ id: 1, name: '作品集', download_count: 0 }),
    makeAdminProject({ id: 2, name: '旅行日记', download_count: 7 }),
  ];
  const counts = { all: 2, pending: 2, approved: 0, published: 0, rejected: 0 };

  it('names the selection checkboxes in Chinese for screen readers', async () => {
    fakeApi({ 'GET /admin/projects': ok({ projects: rows, pagination: pagination(2, 1, 20), counts }) });
    signIn(adminUser());
    renderApp('/admin/projects');
    expect(await screen.findByRole('checkbox', { name: '选择 作品集' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: '选择 旅行日记' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: '全选本页' })).toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: /Select/ })).not.toBeInTheDocument();
  });

  it('shows the new download count right after an admin download', async () => {
    URL.createObjectURL = vi.fn(() => 'blob:project');
    URL.revokeObjectURL = vi.fn();
    let downloads = 0;
    const api = fakeApi({
      'GET /admin/projects': () =>
        ok({
          projects: [{ ...rows[0]!, download_count: downloads }, rows[1]!],
          pagination: pagination(2, 1, 20),
          counts,
        }),
      'GET /admin/projects/1/download': () => {
        downloads += 1;
        return { status: 200, body: new Blob(['PK']) };
      },
    });
    signIn(adminUser());
    const { user } = renderApp('/admin/projects');
    const row = (await screen.findByRole('link', { name: '作品集' })).closest('tr') as HTMLElement;
    expect(within(row).getByTitle('访问 0 次，下载 0 次')).toBeInTheDocument();
    await user.click(within(row).getByRole('button', { name: '下载 作品集' }));
    await waitFor(() => expect(api.calls('GET /admin/projects').length).toBeGreaterThan(1));
    await waitFor(() => expect(screen.getByTitle('访问 0 次，下载 1 次')).toBeInTheDocument());
  });

  it('names the fields an edit changed, in Chinese', () => {
    expect(describeAuditDetail({ fields: ['description', 'is_public'] })).toBe('修改字段：描述、公开状态');
    expect(describeAuditDetail({ fields: ['name'] })).toBe('修改字段：名称');
  });
});

describe('figures on the cards', () => {
  it('shows when the newest version was uploaded on a my-projects card', async () => {
    const project = makeProject({
      id: 9,
      name: '新版本项目',
      created_at: '2024-05-01T08:00:00.000Z',
      uploaded_at: '2024-06-02T08:30:00.000Z',
    });
    fakeApi({ 'GET /projects/my': myProjects([project]) });
    signIn(makeUser());
    renderApp('/projects');
    const card = (await screen.findByText('新版本项目')).closest('.project-card') as HTMLElement;
    expect(within(card).getByText(formatDateTime('2024-06-02T08:30:00.000Z'))).toBeInTheDocument();
    expect(within(card).queryByText(formatDateTime('2024-05-01T08:00:00.000Z'))).not.toBeInTheDocument();
  });

  it('writes large sizes in MB on a showcase card, small ones in the same formatter', () => {
    fakeApi({ 'GET /config/public': ok(publicConfig) });
    const { unmount } = renderInProviders(
      <ShowcaseCard project={makePublicProject({ file_size: 63_632_620 })} />,
    );
    expect(screen.getByText(/60\.68 MB/)).toBeInTheDocument();
    unmount();
    renderInProviders(<ShowcaseCard project={makePublicProject({ file_size: 137 })} />);
    expect(screen.getByText(/137 B$/)).toBeInTheDocument();
    expect(screen.queryByText(/Bytes/)).not.toBeInTheDocument();
  });

  it('names the archive a user picked by its real format', () => {
    const picked = (path: string): PickedFile[] => [{ path, file: new File(['x'], path) }];
    expect(archiveLabel(picked('site.7z'))).toBe('压缩包（7Z）');
    expect(archiveLabel(picked('site.rar'))).toBe('压缩包（RAR）');
    expect(archiveLabel(picked('site.zip'))).toBe('压缩包（ZIP）');
    // The audit log says the same of an upload, and names a digest deploy as the review page does.
    expect(describeAuditDetail({ type: 'rar' })).toBe('类型：压缩包（RAR）');
    expect(describeAuditDetail({ type: 'deploy' })).toBe('类型：命令行部署');
  });

  it('calls the owner’s approved versions 已发布, as the status tag does', async () => {
    const project = makeProject({
      id: 5,
      name: '版本项目',
      status: 'approved',
      is_live: true,
      live_version: 1,
      deployments: [makeDeployment({ id: 51, version: 1, status: 'approved', is_live: true })],
    });
    fakeApi({ 'GET /projects/5': ok({ project }) });
    signIn(makeUser());
    renderApp('/projects/5');
    const versions = (await screen.findByText('版本记录')).closest('.ant-card') as HTMLElement;
    expect(await within(versions).findByText('已发布')).toBeInTheDocument();
    expect(within(versions).queryByText('已通过')).not.toBeInTheDocument();
  });
});
