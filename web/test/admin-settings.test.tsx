import {
  type AdminConfigData,
  DEFAULT_LIMITS,
  DEFAULT_UPLOADS_PER_HOUR,
  DEFAULT_USER_STORAGE_BYTES,
  KNOWN_EXTENSIONS,
  MB,
} from '@sitehall/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { pagination } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { myProjects, publicConfig } from './project-fixtures';
import { renderApp } from './render';

const defaults = {
  max_files_per_upload: DEFAULT_LIMITS.maxFilesPerUpload,
  max_file_bytes: DEFAULT_LIMITS.maxFileBytes,
  max_upload_bytes: DEFAULT_LIMITS.maxUploadBytes,
  max_archive_entries: DEFAULT_LIMITS.maxArchiveEntries,
  max_archive_uncompressed_bytes: DEFAULT_LIMITS.maxArchiveUncompressedBytes,
  allowed_extensions: [...DEFAULT_LIMITS.allowedExtensions],
  unknown_file_types: DEFAULT_LIMITS.unknownFileTypes,
  preview_ttl_seconds: 1800,
  max_user_storage_bytes: DEFAULT_USER_STORAGE_BYTES,
  max_uploads_per_hour: DEFAULT_UPLOADS_PER_HOUR,
  render_concurrency: 1,
  render_pages_per_browser: 50,
  render_allow_public_assets: false,
  custom_domains_require_approval: false,
};
const configData: AdminConfigData = {
  config: { ...defaults, max_files_per_upload: 30, allowed_extensions: ['html', 'css', 'js'] },
  defaults,
  known_extensions: [...KNOWN_EXTENSIONS],
  sites_origin: null,
  site_isolation: { mode: 'sites_port', sites_port: 3001 },
};

async function openSettings(routes: Record<string, FakeHandler> = {}) {
  const api = fakeApi({ 'GET /admin/config': ok(configData), ...routes });
  signIn(adminUser());
  const app = renderApp('/admin/settings');
  await screen.findByLabelText('单次上传文件数上限');
  return { ...app, api };
}

describe('admin settings', () => {
  it('describes the serving mode that is running, not a fixed one', async () => {
    await openSettings();
    const alert = screen.getByTestId('site-isolation');
    expect(alert).toHaveTextContent('独立端口：3001');
    expect(alert).toHaveTextContent('不使用沙箱');
    expect(alert).not.toHaveTextContent('沙箱隔离');
  });

  it.each([
    [{ mode: 'sandboxed', sites_port: null }, null, '与平台同一端口，沙箱隔离'],
    [
      { mode: 'sites_origin', sites_port: null },
      'https://sites.example.com',
      '独立域名：https://sites.example.com',
    ],
    [{ mode: 'subdomains', sites_port: null }, 'https://sites.example.com', '每个站点一个子域名'],
  ] as const)('names the %o mode', async (isolation, origin, title) => {
    await openSettings({
      'GET /admin/config': ok({ ...configData, sites_origin: origin, site_isolation: isolation }),
    });
    expect(screen.getByTestId('site-isolation')).toHaveTextContent(title);
  });

  it('shows sizes in MB and the preview lifetime in minutes', async () => {
    await openSettings();
    expect(screen.getByLabelText('单次上传文件数上限')).toHaveValue('30');
    expect(screen.getByLabelText('单个文件大小上限')).toHaveValue('100.00');
    expect(screen.getByLabelText('预览链接有效期')).toHaveValue('30');
    expect(screen.getByRole('checkbox', { name: '.html' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: '.png' })).not.toBeChecked();
  });

  it('saves in bytes and seconds: 设置已保存', async () => {
    const { api, user } = await openSettings({
      'PUT /admin/config': (request) =>
        ok({ ...configData, config: { ...configData.config, ...(request.body as object) } }, '设置已保存'),
    });
    const fileSize = screen.getByLabelText('单个文件大小上限');
    await user.clear(fileSize);
    await user.type(fileSize, '50');
    await user.click(screen.getByRole('checkbox', { name: '.png' }));
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(await screen.findByText('设置已保存')).toBeInTheDocument();
    expect(api.calls('PUT /admin/config')[0]?.body).toMatchObject({
      max_files_per_upload: 30,
      max_file_bytes: 50 * MB,
      preview_ttl_seconds: 1800,
      allowed_extensions: ['html', 'css', 'js', 'png'],
    });
  });

  it('allows any other extension and chooses what happens to other types', async () => {
    const { api, user } = await openSettings({
      'PUT /admin/config': (request) =>
        ok({ ...configData, config: { ...configData.config, ...(request.body as object) } }, '设置已保存'),
    });
    expect(screen.getByRole('radio', { name: '保存，仅供下载（不作为网页内容）' })).toBeChecked();
    const extra = screen.getByLabelText('其他允许的扩展名');
    await user.type(extra, 'exe{enter}');
    expect(
      await screen.findByText('不能允许文件类型 .exe：可执行文件、安装程序和服务器端脚本不能上传'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(api.calls('PUT /admin/config')).toHaveLength(0);

    // Remove the refused tag, add two good ones.
    // The refused tag is removed with its own close mark.
    const exeTag = screen.getByTitle('exe');
    await user.click(exeTag.querySelector('.ant-select-selection-item-remove')!);
    await waitFor(() => expect(screen.queryByTitle('exe')).toBeNull());
    await user.type(extra, '.SCSS{enter}yml{enter}');
    await user.click(screen.getByRole('radio', { name: '拒绝整个上传' }));
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    // What is sent is this test's point (the saved message is the test above's).
    await waitFor(() => expect(api.calls('PUT /admin/config')).toHaveLength(1));
    expect(api.calls('PUT /admin/config')[0]?.body).toMatchObject({
      allowed_extensions: ['html', 'css', 'js', 'scss', 'yml'],
      unknown_file_types: 'refuse',
    });
  });

  it('shows the storage quota in GB and uploads per hour, and saves them in bytes', async () => {
    const { api, user } = await openSettings({
      'PUT /admin/config': (request) =>
        ok({ ...configData, config: { ...configData.config, ...(request.body as object) } }, '设置已保存'),
    });
    const quota = screen.getByLabelText('每个用户的存储空间');
    expect(quota).toHaveValue('1.00');
    expect(screen.getByLabelText('每个用户每小时上传次数')).toHaveValue('30');
    await user.clear(quota);
    await user.type(quota, '0.001');
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(await screen.findByText('每个用户的存储空间必须在 0.01 GB 到 102400 GB 之间')).toBeInTheDocument();
    expect(api.calls('PUT /admin/config')).toHaveLength(0);

    await user.clear(quota);
    await user.type(quota, '2.5');
    const perHour = screen.getByLabelText('每个用户每小时上传次数');
    await user.clear(perHour);
    await user.type(perHour, '0');
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(await screen.findByText('设置已保存')).toBeInTheDocument();
    expect(api.calls('PUT /admin/config')[0]?.body).toMatchObject({
      max_user_storage_bytes: 2.5 * 1024 * MB,
      max_uploads_per_hour: 0,
    });
  });

  it('keeps a quota shown rounded to the byte when saved untouched', async () => {
    const odd: AdminConfigData = {
      ...configData,
      config: { ...configData.config, max_user_storage_bytes: 20 * MB },
    };
    const { api, user } = await openSettings({
      'GET /admin/config': ok(odd),
      'PUT /admin/config': (request) =>
        ok({ ...odd, config: { ...odd.config, ...(request.body as object) } }),
    });
    expect(screen.getByLabelText('每个用户的存储空间')).toHaveValue('0.02');
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    await waitFor(() => expect(api.calls('PUT /admin/config')).toHaveLength(1));
    expect(api.calls('PUT /admin/config')[0]?.body).toMatchObject({ max_user_storage_bytes: 20 * MB });
  });

  it('puts the saved limits on the upload page at once, without a reload', async () => {
    let maxFiles = 20;
    const { router, user } = await openSettings({
      'GET /config/public': () =>
        ok({ ...publicConfig, limits: { ...publicConfig.limits, max_files_per_upload: maxFiles } }),
      'GET /projects/my': myProjects([]),
      'PUT /admin/config': (request) => {
        const body = request.body as AdminConfigData['config'];
        maxFiles = body.max_files_per_upload;
        return ok({ ...configData, config: { ...configData.config, ...body } }, '设置已保存');
      },
    });
    await router.navigate('/upload');
    expect(await screen.findByText(/单次最多上传 20 项/)).toBeInTheDocument();
    await router.navigate('/admin/settings');
    const count = await screen.findByLabelText('单次上传文件数上限');
    await user.clear(count);
    await user.type(count, '5');
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(await screen.findByText('设置已保存')).toBeInTheDocument();
    await router.navigate('/upload');
    expect(await screen.findByText(/单次最多上传 5 项/)).toBeInTheDocument();
  });

  it('asks before leaving with unsaved changes, and can stay with them', async () => {
    const { router, user } = await openSettings();
    const count = screen.getByLabelText('单次上传文件数上限');
    await user.clear(count);
    await user.type(count, '7');
    expect(await screen.findByText('有未保存的修改')).toBeInTheDocument();
    await router.navigate('/admin/dashboard');
    expect(await screen.findByRole('dialog')).toHaveTextContent(
      '设置有未保存的修改，离开本页后这些修改将丢失。',
    );
    await user.click(screen.getByRole('button', { name: '留下继续编辑' }));
    expect(router.state.location.pathname).toBe('/admin/settings');
    expect(screen.getByLabelText('单次上传文件数上限')).toHaveValue('7');

    // Asked again, answered in the new dialog (the first may still be closing).
    const leave = () => screen.queryAllByRole('button', { name: /离\s*开/ });
    const before = leave().length;
    await router.navigate('/admin/dashboard');
    await waitFor(() => expect(leave()).toHaveLength(before + 1));
    await user.click(leave().at(-1) as HTMLElement);
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/dashboard'));
  });

  it('refuses a count that is not whole, rather than rounding it silently', async () => {
    const { api, user } = await openSettings({ 'PUT /admin/config': ok(configData, '设置已保存') });
    const files = screen.getByLabelText('单次上传文件数上限');
    await user.clear(files);
    await user.type(files, '1.5');
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(await screen.findByText(/单次上传文件数上限必须是 .* 之间的整数/)).toBeInTheDocument();
    expect(files).toHaveValue('1.5');
    expect(api.calls('PUT /admin/config')).toHaveLength(0);
  });

  it('puts the server’s per-field message under its field', async () => {
    const { user } = await openSettings({
      'PUT /admin/config': fail(400, '设置无效', { max_file_bytes: '单个文件大小不能超过单次上传总大小' }),
    });
    await user.click(screen.getByRole('button', { name: /保存设置/ }));
    expect(await screen.findByText('单个文件大小不能超过单次上传总大小')).toBeInTheDocument();
  });

  it('fills in the defaults on request', async () => {
    const { user } = await openSettings();
    await user.click(screen.getByRole('button', { name: /恢复默认值/ }));
    await user.click(await screen.findByRole('button', { name: '填入默认值' }));
    await waitFor(() => expect(screen.getByLabelText('单次上传文件数上限')).toHaveValue('20'));
    expect(screen.getByRole('checkbox', { name: '.png' })).toBeChecked();
    expect(screen.getByText('有未保存的修改')).toBeInTheDocument();
  });
});

describe('audit log', () => {
  it('lists entries with Chinese action names and filters by action', async () => {
    const api = fakeApi({
      'GET /admin/audit-logs': ok({
        logs: [
          {
            id: 1,
            actor: { id: 1, username: 'admin' },
            action: 'review.reject',
            action_label: '审核拒绝',
            target_type: 'project',
            target_id: '7',
            target_name: null,
            detail: { from: 'pending', to: 'rejected', comment: '需要进一步修改' },
            ip: '127.0.0.1',
            created_at: '2024-05-01T08:00:00.000Z',
          },
        ],
        pagination: pagination(1, 1, 20),
      }),
    });
    signIn(adminUser());
    const { user } = renderApp('/admin/audit-logs');
    expect(await screen.findByText('审核拒绝', { selector: '.ant-tag' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '项目 #7' })).toHaveAttribute('href', '/admin/reviews/7');
    expect(screen.getByText('待审核 → 已拒绝；意见：需要进一步修改')).toBeInTheDocument();

    await user.type(screen.getByLabelText('操作者'), 'admin');
    await user.click(screen.getByRole('button', { name: /查询/ }));
    await waitFor(() =>
      expect(api.calls('GET /admin/audit-logs').at(-1)?.params).toMatchObject({ actor: 'admin', page: 1 }),
    );
  });
});
