import { messages, type ProjectDomainsDto, type ProjectDto } from '@sitehall/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { clearSession } from '../src/lib/session';
import { fail, fakeApi, ok } from './fake-api';
import { adminUser, makeUser, signIn } from './fixtures';
import { makeDeployment, makeProject, myProjects, publicConfig } from './project-fixtures';
import { expectReadsUntilDecided, renderApp, withFakeIntervals } from './render';

const button = (text: string | RegExp, root: HTMLElement = document.body) =>
  within(root).getByText(text, { selector: 'button span, a span' }).closest('button, a') as HTMLElement;
const lastButton = async (text: string) =>
  (await screen.findAllByText(text, { selector: 'button span' })).at(-1)?.closest('button') as HTMLElement;

const liveWithPendingVersion = makeProject({
  id: 7,
  name: '个人作品集',
  status: 'pending',
  is_live: true,
  access_url: '/sites/7/',
  live_version: 2,
  latest_version: 3,
  updated_at: '2024-05-03T10:00:00.000Z',
  approved_at: '2024-05-02T09:00:00.000Z',
  approved_by: 'admin',
  viewCount: 42,
  download_count: 3,
  files: [
    {
      file_name: 'index.html',
      file_type: 'html',
      file_size: 1024,
      mime_type: 'text/html',
      download_only: false,
    },
    {
      file_name: 'css/app.css',
      file_type: 'css',
      file_size: 1024,
      mime_type: 'text/css',
      download_only: false,
    },
  ],
  deployments: [
    makeDeployment({ id: 13, version: 3, status: 'pending' }),
    makeDeployment({ id: 12, version: 2, status: 'approved', is_live: true }),
    makeDeployment({ id: 11, version: 1, status: 'approved', review_comment: '首次通过' }),
  ],
  review_comments: [
    {
      id: 1,
      action: 'approve',
      comment: '首次通过',
      reviewer: 'admin',
      deployment_version: 1,
      created_at: '2024-05-01T09:00:00.000Z',
    },
    {
      id: 2,
      action: 'approve',
      comment: null,
      reviewer: 'admin',
      deployment_version: 2,
      created_at: '2024-05-02T09:00:00.000Z',
    },
  ],
});

async function openDetail(project: ProjectDto, routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi({ [`GET /projects/${project.id}`]: ok({ project }), ...routes });
  signIn(makeUser());
  const app = renderApp(`/projects/${project.id}`);
  await screen.findByRole('heading', { level: 1, name: project.name });
  return { ...app, api };
}

describe('project detail', () => {
  it('shows information, files, versions, review history and statistics', async () => {
    await openDetail(liveWithPendingVersion);
    expect(screen.getByText('项目ID')).toBeInTheDocument();
    expect(screen.getAllByText('线上版本 v2').length).toBeGreaterThan(0);
    expect(screen.getByText('新版本 v3 正在等待审核')).toBeInTheDocument();
    expect(screen.getByText('2 KB')).toBeInTheDocument();
    expect(screen.getByText('2 个')).toBeInTheDocument();
    expect(screen.getByText('更新时间')).toBeInTheDocument();
    expect(screen.getByText('公开', { selector: '.ant-tag' })).toBeInTheDocument();
    expect(screen.getByText('css/app.css')).toBeInTheDocument();
    // The MIME column is a laptop's (not a phone's): shown once antd has read the screen's width.
    expect(await screen.findByText('text/css')).toBeInTheDocument();
    expect(screen.getAllByText('index.html').length).toBeGreaterThan(1);
    expect(screen.getByText('审核意见：首次通过')).toBeInTheDocument();
    expect(screen.getByText('42')).toBeInTheDocument();
    expect(screen.getByText('审核时间')).toBeInTheDocument();
    expect(button('访问项目')).toHaveAttribute('href', `${window.location.origin}/sites/7/`);
    // Only the earlier approved version can be rolled back to.
    expect(screen.getAllByText('回滚', { selector: 'button span' })).toHaveLength(1);
  });

  it('lists the newest version’s usability findings for the uploader, each with how to fix it', async () => {
    await openDetail(
      makeProject({
        id: 9,
        name: 'Vue 作业',
        usability_findings: [
          {
            severity: 'low',
            category: 'usability',
            kind: 'missing_file',
            message: '引用的文件不在上传内容中：“img/logo.png”，打开页面时会加载失败',
            file: 'index.html',
            line: 3,
            excerpt: '<img src="img/logo.png">',
          },
          {
            severity: 'info',
            category: 'usability',
            kind: 'root_absolute_link',
            message: messages.review.contentCheck.rootAbsolute.replace('{url}', '/assets/index.js'),
            file: 'index.html',
            line: 8,
            excerpt: '<script type="module" src="/assets/index.js"></script>',
          },
        ],
      }),
    );
    expect(screen.getByText('可用性问题（2）')).toBeInTheDocument();
    expect(screen.getByText(messages.review.contentCheck.usabilityHint)).toBeInTheDocument();
    expect(
      screen.getByText(/以 \/ 开头的地址“\/assets\/index.js”：本平台的站点地址形如 \/sites\/站点名\//),
    ).toBeInTheDocument();
    expect(screen.getByText('index.html:8')).toBeInTheDocument();
    expect(screen.getByText('<script type="module" src="/assets/index.js"></script>')).toBeInTheDocument();
    // Never `base: "./"`: relative asset paths break a router's deep links; its real path instead.
    expect(screen.getByText(/修改方法：.*单页应用不要改为 \.\/.*base: "\/sites\//)).toBeInTheDocument();
    expect(screen.queryByText(/base: "\.\/"/)).toBeNull();
  });

  it('shows notes that leave the site working (a client-side router) with a milder hint and the fix', async () => {
    await openDetail(
      makeProject({
        id: 10,
        name: '单页应用',
        usability_findings: [
          {
            severity: 'info',
            category: 'usability',
            kind: 'history_routing',
            message: messages.review.contentCheck.runtimeHistoryRouting,
            file: null,
            line: null,
          },
        ],
      }),
    );
    expect(screen.getByText('可用性问题（1）')).toBeInTheDocument();
    expect(screen.getByText(messages.review.contentCheck.usabilityNotesHint)).toBeInTheDocument();
    expect(screen.queryByText(messages.review.contentCheck.usabilityHint)).toBeNull();
    expect(screen.getByText('前端路由')).toBeInTheDocument();
    expect(screen.getByText(/修改方法：在项目详情页的“路由规则”中开启“单页应用回退”/)).toBeInTheDocument();
  });

  it('turns the SPA fallback on from a router note in one click, the note listed first', async () => {
    const rootAbsolute = {
      severity: 'info' as const,
      category: 'usability' as const,
      kind: 'root_absolute_link' as const,
      message: '根路径链接',
      file: 'index.html',
      line: 3,
    };
    const { user, api } = await openDetail(
      makeProject({
        id: 11,
        name: '路由应用',
        usability_findings: [
          rootAbsolute,
          {
            severity: 'info',
            category: 'usability',
            kind: 'history_routing',
            message: messages.review.contentCheck.runtimeHistoryRouting,
            file: null,
            line: null,
          },
        ],
      }),
      { 'PUT /projects/11': ok({ project: makeProject({ id: 11, name: '路由应用' }) }) },
    );
    const card = screen.getByText('可用性问题（2）').closest('.ant-card') as HTMLElement;
    const items = within(card).getAllByRole('listitem');
    expect(within(items[0]!).getByText('前端路由')).toBeInTheDocument();
    await user.click(within(items[0]!).getByRole('button', { name: '开启单页应用回退' }));
    expect(await screen.findByText('已开启单页应用回退')).toBeInTheDocument();
    expect(api.calls('PUT /projects/11')[0]?.body).toEqual({ spa_fallback: true });
  });

  it('shows no usability card when there is nothing to fix', async () => {
    await openDetail(liveWithPendingVersion);
    expect(screen.queryByText(/可用性问题/)).toBeNull();
  });

  it('lists the files kept as downloads only: N 个文件仅供下载，不作为网页内容', async () => {
    const download = (file_name: string, file_type: string) => ({
      file_name,
      file_type,
      file_size: 10,
      mime_type: 'application/octet-stream',
      download_only: true,
    });
    await openDetail({
      ...liveWithPendingVersion,
      files: [...liveWithPendingVersion.files!, download('LICENSE', ''), download('src/app.scss', 'scss')],
    });
    expect(screen.getByText('2 个文件仅供下载，不作为网页内容')).toBeInTheDocument();
    expect(screen.getByText(/"LICENSE"、"src\/app\.scss"/)).toBeInTheDocument();
    expect(screen.getAllByText('仅供下载', { selector: '.ant-tag' })).toHaveLength(2);
  });

  it('says nothing about downloads when every file is web content', async () => {
    await openDetail(liveWithPendingVersion);
    expect(screen.queryByText(/仅供下载/)).not.toBeInTheDocument();
  });

  it('rolls back to an earlier approved version after asking', async () => {
    const { user, api } = await openDetail(liveWithPendingVersion, {
      'POST /projects/7/rollback': ok({ project: liveWithPendingVersion }, '已回滚到所选版本'),
    });
    await user.click(button('回滚'));
    expect(
      await screen.findByText('回滚到版本 v1？', { selector: '.ant-modal-confirm-title' }),
    ).toBeInTheDocument();
    await user.click(await lastButton('回滚'));
    expect(await screen.findByText('已回滚到所选版本')).toBeInTheDocument();
    expect(api.calls('POST /projects/7/rollback')[0]?.body).toEqual({ deployment_id: 11 });
  });

  it('calls a step to a version newer than the live one 切换到此版本, not 回滚', async () => {
    // Rolled back to v1: v2 is approved and newer, v3 still pending.
    const rolledBack = makeProject({
      ...liveWithPendingVersion,
      live_version: 1,
      deployments: [
        makeDeployment({ id: 13, version: 3, status: 'pending' }),
        makeDeployment({ id: 12, version: 2, status: 'approved' }),
        makeDeployment({ id: 11, version: 1, status: 'approved', is_live: true }),
      ],
    });
    const { user, api } = await openDetail(rolledBack, {
      'POST /projects/7/rollback': ok({ project: liveWithPendingVersion }, '已回滚到所选版本'),
    });
    expect(screen.queryByText('回滚', { selector: 'button span' })).not.toBeInTheDocument();
    await user.click(button('切换到此版本'));
    expect(
      await screen.findByText('切换到版本 v2？', { selector: '.ant-modal-confirm-title' }),
    ).toBeInTheDocument();
    await user.click(await lastButton('切换'));
    expect(await screen.findByText('已切换到所选版本')).toBeInTheDocument();
    expect(api.calls('POST /projects/7/rollback')[0]?.body).toEqual({ deployment_id: 12 });
  });

  it('says 已下线 in the version history for a version a takedown ended, 已拒绝 for a rejected one', async () => {
    await openDetail(
      makeProject({
        id: 10,
        name: '被下线的站点',
        status: 'rejected',
        is_live: false,
        access_url: null,
        deployments: [
          makeDeployment({ id: 22, version: 2, status: 'rejected', review_comment: '仍不合规' }),
          makeDeployment({
            id: 21,
            version: 1,
            status: 'rejected',
            review_comment: '含有违规内容',
            taken_down: true,
          }),
        ],
      }),
    );
    const row = (v: string) => screen.getByText(v, { selector: 'strong' }).closest('tr') as HTMLElement;
    expect(within(row('v1')).getByText('已下线')).toBeInTheDocument();
    expect(within(row('v1')).queryByText('已拒绝')).not.toBeInTheDocument();
    expect(within(row('v2')).getByText('已拒绝')).toBeInTheDocument();
  });

  it('shows the reason of a rejection, ZIP as the default type and 未指定 without an entry file', async () => {
    await openDetail(
      makeProject({
        id: 9,
        name: '被拒绝的站点',
        status: 'rejected',
        rejectionReason: '缺少首页文件',
        upload_type: 'zip',
        upload_source: null,
        entry_file: null,
        is_public: false,
      }),
    );
    expect(screen.getByText('审核未通过')).toBeInTheDocument();
    expect(screen.getByTestId('rejection-reason')).toHaveTextContent('缺少首页文件');
    expect(screen.getByText('ZIP')).toBeInTheDocument();
    expect(screen.getByText(/未指定/)).toBeInTheDocument();
    expect(screen.getByText('私有', { selector: '.ant-tag' })).toBeInTheDocument();
    expect(screen.queryByText('访问项目')).not.toBeInTheDocument();
    // The server makes no preview link of a rejected version: no button that would only fail.
    expect(screen.queryByRole('button', { name: /生成预览/ })).not.toBeInTheDocument();
    // Which of the two it was (the server's 409 names both).
    expect(screen.getByText(messages.project.previewRejectedVersion)).toBeInTheDocument();
  });

  it('tells the owner a live site was taken offline, with the reason: not 审核未通过', async () => {
    await openDetail(
      makeProject({
        id: 10,
        name: '被下线的站点',
        status: 'taken_down',
        takedownReason: '含有违规内容',
        live_version: null,
        latest_version: 2,
      }),
    );
    expect(screen.getByText('站点已被管理员下线')).toBeInTheDocument();
    expect(screen.getByTestId('takedown-reason')).toHaveTextContent('含有违规内容');
    expect(screen.getByText('已下线', { selector: '.ant-tag' })).toBeInTheDocument();
    expect(screen.queryByText('审核未通过')).not.toBeInTheDocument();
    expect(screen.queryByText('已拒绝')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /生成预览/ })).not.toBeInTheDocument();
  });

  it('offers a preview of a newer version only while it waits for review, not after a rollback', async () => {
    await openDetail(liveWithPendingVersion);
    expect(screen.getByText('预览新版本 v3')).toBeInTheDocument();
  });

  it('offers no preview of the newer version a rollback left approved but not live', async () => {
    await openDetail(makeProject({ ...liveWithPendingVersion, id: 11, status: 'approved' }));
    expect(screen.queryByText(/预览新版本/)).not.toBeInTheDocument();
    expect(button('访问项目')).toBeInTheDocument();
    // The page says the file details are not the live version's.
    expect(screen.getByText('线上运行的是较早的版本 v2')).toBeInTheDocument();
    expect(screen.getByText(/下方的文件信息和文件列表是 v3 的/)).toBeInTheDocument();
  });

  it('shows the approval only while the site is live: not after a takedown', async () => {
    await openDetail(
      makeProject({
        id: 10,
        name: '已下线的站点',
        status: 'rejected',
        rejectionReason: '内容违规',
        access_url: null,
        approved_at: '2024-05-01T08:00:00.000Z',
        approved_by: 'admin',
      }),
    );
    expect(screen.queryByText('审核时间')).not.toBeInTheDocument();
    expect(screen.getByText('审核人').closest('tr')).toHaveTextContent('—');
    expect(screen.queryByText('admin', { selector: '.detail-stats__times *' })).not.toBeInTheDocument();
  });

  it('reads a project waiting for review again every 10 s while its tab is visible, until it is decided', () =>
    withFakeIntervals(async () => {
      let current: ProjectDto = liveWithPendingVersion;
      const { api } = await openDetail(liveWithPendingVersion, {
        'GET /projects/7': () => ok({ project: current }),
      });
      expect(screen.getByText('新版本 v3 正在等待审核')).toBeInTheDocument();
      // An admin approves v3.
      const approved: ProjectDto = {
        ...liveWithPendingVersion,
        status: 'approved',
        live_version: 3,
        deployments: [
          makeDeployment({ id: 13, version: 3, status: 'approved', is_live: true }),
          makeDeployment({ id: 12, version: 2, status: 'approved' }),
        ],
      };
      await expectReadsUntilDecided(
        () => api.calls('GET /projects/7').length,
        () => {
          current = approved;
        },
        () => expect(screen.queryByText('新版本 v3 正在等待审核')).toBeNull(),
      );
    }));

  it('says 项目不存在 with a way back, and 加载项目失败 on other errors', async () => {
    fakeApi({
      'GET /projects/404': fail(404, '项目不存在'),
      'GET /projects/500': fail(500, '服务器内部错误，请稍后重试'),
    });
    signIn(makeUser());
    const { router } = renderApp('/projects/404');
    expect(await screen.findByText('项目不存在')).toBeInTheDocument();
    expect(screen.getAllByText('返回我的项目')[0]?.closest('a')).toHaveAttribute('href', '/projects');
    await router.navigate('/projects/500');
    expect(await screen.findByText('加载项目失败')).toBeInTheDocument();
    expect(screen.getByText('服务器内部错误，请稍后重试')).toBeInTheDocument();
    await router.navigate('/projects/abc');
    expect(await screen.findByText('项目不存在')).toBeInTheDocument();
  });

  it('downloads the zip with the token as project-{id}.zip', async () => {
    const createObjectURL = vi.fn(() => 'blob:zip');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const { user, api } = await openDetail(liveWithPendingVersion, {
      'GET /projects/7/download': { status: 200, body: new Uint8Array([0x50, 0x4b, 3, 4]).buffer },
    });
    await user.click(button('下载'));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]?.download).toBe('project-7.zip');
    expect(clicked[0]?.href).toBe('blob:zip');
    const blob = (createObjectURL.mock.calls[0] as unknown as [Blob])[0];
    expect(blob.size).toBe(4);
    const [request] = api.calls('GET /projects/7/download');
    expect(request?.headers.get('Authorization')).toBe('Bearer token-alice');
    expect(request?.url).not.toContain('token');
  });

  it('edits name, description and visibility', async () => {
    const { user, api } = await openDetail(liveWithPendingVersion, {
      'PUT /projects/7': ok({ project: liveWithPendingVersion }, '项目已更新'),
    });
    await user.click(button('编辑'));
    const dialog = (await screen.findByText('编辑项目信息')).closest('.ant-modal') as HTMLElement;
    const name = within(dialog).getByLabelText('项目名称');
    await user.clear(name);
    await user.type(name, ' 新名字 ');
    await user.click(within(dialog).getByRole('switch'));
    await user.click(button('保存', dialog));
    expect(await screen.findByText('项目已更新')).toBeInTheDocument();
    expect(api.calls('PUT /projects/7')[0]?.body).toEqual({
      name: '新名字',
      description: '展示我的前端作品',
      is_public: false,
    });
  });

  it('keeps a site’s name: clearing it is refused in the dialog, nothing is sent', async () => {
    const named = { ...liveWithPendingVersion, site_name: 'spa-demo' };
    const { user, api } = await openDetail(named, {
      'GET /config/public': ok(publicConfig),
      'PUT /projects/7': ok({ project: named }, '项目已更新'),
    });
    await user.click(button('编辑'));
    const dialog = (await screen.findByText('编辑项目信息')).closest('.ant-modal') as HTMLElement;
    const siteName = await within(dialog).findByLabelText('站点名');
    expect(siteName).toHaveValue('spa-demo');
    await user.clear(siteName);
    await user.click(button('保存', dialog));
    expect(await within(dialog).findByText('站点名不能清空，只能改为其他名字')).toBeInTheDocument();
    expect(api.calls('PUT /projects/7')).toHaveLength(0);
    expect(screen.queryByText('项目已更新')).toBeNull();
  });

  it('uploads a new version with the same drop zone, as multipart', async () => {
    const { user, api } = await openDetail(liveWithPendingVersion, {
      'GET /config/public': ok(publicConfig),
      'PUT /projects/7': ok({ project: liveWithPendingVersion }, '新版本已上传，等待审核'),
    });
    await user.click(button('上传新版本'));
    expect(await screen.findByText('上传新版本 v4')).toBeInTheDocument();
    const input = (await screen.findByTestId('file-input')) as HTMLInputElement;
    Object.defineProperty(input, 'files', {
      value: [new File(['<h1>v4</h1>'], 'index.html')],
      configurable: true,
    });
    fireEvent.change(input);
    await screen.findByText('文件（1 个）', { exact: false });
    await user.click(await lastButton('上传新版本'));
    expect(await screen.findByText('新版本已上传，等待审核')).toBeInTheDocument();
    const body = api.calls('PUT /projects/7')[0]?.body as FormData;
    expect(body).toBeInstanceOf(FormData);
    expect(body.get('upload_type')).toBe('files');
    expect((body.getAll('files') as File[]).map((f) => f.name)).toEqual(['index.html']);
    expect(body.get('project_name')).toBeNull();
  });

  it('deletes after asking and returns to my projects; a failure says 删除项目失败，请稍后重试', async () => {
    const { user, router, api } = await openDetail(liveWithPendingVersion, {
      'DELETE /projects/7': fail(500),
      'GET /projects/my': myProjects([]),
    });
    await user.click(button('删除项目'));
    expect(await screen.findByText('确定要删除这个项目吗？此操作不可撤销。')).toBeInTheDocument();
    await user.click(await lastButton('删除'));
    expect(await screen.findByText('删除项目失败，请稍后重试')).toBeInTheDocument();

    api.on('DELETE /projects/7', ok(null, '项目已删除'));
    await user.click(button('删除项目'));
    await user.click(await lastButton('删除'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects'));
  });
});

describe('an admin on another account’s project', () => {
  // The side menu's current item, and the bar's: what the navigation says the page is part of.
  const current = (label: string) =>
    screen
      .queryAllByRole('link', { name: label })
      .filter(
        (a) => a.getAttribute('aria-current') === 'page' || a.closest('.ant-menu-item-selected') !== null,
      );

  it('leads back to 项目管理 and claims neither 我的项目 in the side menu nor in the bar', async () => {
    const api = fakeApi({
      [`GET /projects/${liveWithPendingVersion.id}`]: ok({ project: liveWithPendingVersion }),
    });
    signIn(adminUser());
    const { router, user } = renderApp(`/projects/${liveWithPendingVersion.id}`);
    await screen.findByRole('heading', { level: 1, name: liveWithPendingVersion.name });
    const back = screen.getByRole('link', { name: /返回项目管理/ });
    expect(back).toHaveAttribute('href', '/admin/projects');
    expect(screen.queryByRole('link', { name: /返回我的项目/ })).toBeNull();
    expect(current('我的项目')).toEqual([]);
    expect(current('管理后台')).toHaveLength(1);
    // Deleting it from here returns there too.
    api.on(`DELETE /projects/${liveWithPendingVersion.id}`, ok(null, '项目已删除'));
    await user.click(button('删除项目'));
    await user.click(await lastButton('删除'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/projects'));
  });

  it('leaves the owner’s own project as it was: 返回我的项目, 我的项目 current', async () => {
    await openDetail(liveWithPendingVersion);
    expect(screen.getByRole('link', { name: /返回我的项目/ })).toHaveAttribute('href', '/projects');
    expect(current('我的项目').length).toBeGreaterThan(0);
  });
});

describe('preview panel', () => {
  const pending = makeProject({ id: 8, name: '待审核站点' });
  const token = (value: string, minutes = 30) => ({
    token: value,
    preview_url: `/preview/${value}/`,
    expires_in_seconds: minutes * 60,
    expires_at: new Date(Date.now() + minutes * 60_000).toISOString(),
  });

  it('makes a preview link with a countdown, reuses it while unexpired, and makes a new one on request', async () => {
    let n = 0;
    const { user, api, router } = await openDetail(pending, {
      'POST /projects/8/preview-token': () => ok(token(`tok${++n}`)),
      'GET /projects/my': myProjects([pending]),
    });
    await user.click(button('生成预览'));
    const link = await screen.findByText(`${window.location.origin}/preview/tok1/`);
    expect(link.closest('a')).toHaveAttribute('target', '_blank');
    expect(screen.getByRole('timer')).toHaveTextContent(/^(30:00|29:59)$/);

    // The card in my projects shows the same link, without asking the server again.
    await router.navigate('/projects');
    expect(await screen.findByText('打开预览')).toBeInTheDocument();
    await router.navigate('/projects/8');
    expect(await screen.findByText(`${window.location.origin}/preview/tok1/`)).toBeInTheDocument();
    expect(api.calls('POST /projects/8/preview-token')).toHaveLength(1);
    // Kept for the signed-in user (id 2) across tabs and visits, until it expires.
    expect(window.localStorage.getItem('sitehall.preview.2.8')).toContain('tok1');

    // A new link ends the shared one: asked first, and nothing is made until confirmed.
    const made = () => api.calls('POST /projects/8/preview-token').length;
    const ask = async () => {
      await user.click(button('重新生成'));
      return screen.findByText('重新生成预览链接？', { selector: '.ant-modal-confirm-title' });
    };
    // In jsdom a click right after the route change above is now and then lost (the page is still
    // settling; the cause was not found, see the session note): a person would click once more.
    const title = await ask().catch(ask);
    const dialog = title.closest('.ant-modal') as HTMLElement;
    expect(within(dialog).getByText(/已经分享出去的旧链接将无法再打开/)).toBeInTheDocument();
    expect(made()).toBe(1);
    await user.click(within(dialog).getByRole('button', { name: '重新生成' }));
    await waitFor(() => expect(made()).toBe(2));
    expect(await screen.findByText(`${window.location.origin}/preview/tok2/`)).toBeInTheDocument();
    expect(api.calls('POST /projects/8/preview-token')).toHaveLength(2);
  });

  it('says where a project never live will be published, by its site name, as visitors will open it', async () => {
    // An outside review's owner read 会发布到专属地址 and found the address only in 编辑.
    await openDetail(
      { ...pending, site_name: 'wodezuoye', is_live: false },
      { 'GET /config/public': ok({ ...publicConfig, sites_port: 3001 }) },
    );
    const notice = (await screen.findByText('项目正在等待审核')).closest('.ant-alert') as HTMLElement;
    await waitFor(() =>
      expect(notice).toHaveTextContent(
        '管理员审核通过后，项目会发布到http://wodezuoye.localhost:3001/。在此之前，你可以生成临时预览链接查看效果。',
      ),
    );
  });

  it('opens a preview at a host of its own on the default install reached by localhost', async () => {
    const hex = '0123456789abcdef0123456789abcdef';
    const { user } = await openDetail(pending, {
      'GET /config/public': ok({ ...publicConfig, sites_port: 3001 }),
      'POST /projects/8/preview-token': ok(token(hex)),
    });
    await user.click(button('生成预览'));
    const link = await screen.findByText(`http://pv-${hex}.localhost:3001/`);
    expect(link.closest('a')).toHaveAttribute('href', `http://pv-${hex}.localhost:3001/`);
  });

  it('keeps a link for its user only, and forgets it at sign-out', async () => {
    window.localStorage.setItem('sitehall.preview.2.8', JSON.stringify(token('mine', 600)));
    window.localStorage.setItem('sitehall.preview.9.8', JSON.stringify(token('theirs', 600)));
    await openDetail(pending);
    expect(await screen.findByText(`${window.location.origin}/preview/mine/`)).toBeInTheDocument();
    clearSession();
    expect(window.localStorage.getItem('sitehall.preview.2.8')).toBeNull();
    expect(window.localStorage.getItem('sitehall.preview.9.8')).toBeNull();
  });

  it('does not reuse an expired link', async () => {
    window.localStorage.setItem('sitehall.preview.2.8', JSON.stringify(token('old', -1)));
    await openDetail(pending);
    expect(button('生成预览')).toBeInTheDocument();
    expect(screen.queryByText(/preview\/old/)).not.toBeInTheDocument();
  });

  it('reports a failure with the server message, else 生成预览失败，请重试', async () => {
    const { user, api } = await openDetail(pending, {
      'POST /projects/8/preview-token': fail(429, '请求过于频繁，请稍后再试'),
    });
    await user.click(button('生成预览'));
    expect(await screen.findByText('请求过于频繁，请稍后再试')).toBeInTheDocument();
    api.on('POST /projects/8/preview-token', { networkError: true });
    await user.click(button('生成预览'));
    expect(await screen.findByText('生成预览失败，请重试')).toBeInTheDocument();
  });

  it('shows the published address of a live project and copies it', async () => {
    const live = makeProject({
      id: 4,
      name: '上线站点',
      status: 'approved',
      is_live: true,
      access_url: '/sites/4/',
      live_version: 1,
    });
    const { user } = await openDetail(live);
    // (after user-event's setup, which installs a clipboard of its own)
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    expect(screen.getByText('已发布地址')).toBeInTheDocument();
    expect(screen.queryByText('生成预览')).not.toBeInTheDocument();
    await user.click(button('复制地址'));
    expect(await screen.findByText('地址已复制到剪贴板')).toBeInTheDocument();
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}/sites/4/`);
    expect(button('已复制')).toBeInTheDocument();
  });
});

describe('project detail: the site’s routing', () => {
  it('shows the newest version’s rule files and lets the owner switch SPA fallback and clean URLs', async () => {
    const project = makeProject({
      id: 7,
      routing: {
        spa_fallback: false,
        clean_urls: true,
        rules: { redirects: '/old /new 301', headers: null },
      },
    });
    const { api } = await openDetail(project, {
      'PUT /projects/7': ok(
        { project: { ...project, routing: { ...project.routing, spa_fallback: true } } },
        '项目已更新',
      ),
    });
    expect(screen.getByText('/old /new 301', { selector: 'pre' })).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: '简洁网址' })).toBeChecked();
    const spa = screen.getByRole('switch', { name: '单页应用回退' });
    expect(spa).not.toBeChecked();
    fireEvent.click(spa);
    await waitFor(() => expect(api.calls('PUT /projects/7')[0]?.body).toEqual({ spa_fallback: true }));
    expect(await screen.findByText('路由设置已保存')).toBeInTheDocument();
  });

  it('says so when the newest version has no rule files', async () => {
    await openDetail(makeProject({ id: 7 }));
    expect(screen.getByText('最新版本没有 _redirects 或 _headers 文件')).toBeInTheDocument();
  });

  describe('自定义域名', () => {
    const domains = (over: Partial<ProjectDomainsDto>): ProjectDomainsDto => ({
      domains: [],
      available: true,
      unavailable_reason: null,
      require_approval: false,
      sites_host: 'sites.example.com',
      live: true,
      can_add: true,
      can_check: true,
      can_remove: true,
      ...over,
    });
    const card = async () =>
      (await screen.findByText('自定义域名', { selector: '.ant-card-head-title' })).closest(
        '.ant-card',
      ) as HTMLElement;

    it('on a project never approved says a domain is bound once the site is live, and offers no form', async () => {
      await openDetail(makeProject({ id: 7 }), {
        'GET /projects/7/domains': ok(domains({ live: false, can_add: false })),
      });
      const domainsCard = await card();
      expect(await within(domainsCard).findByText(messages.domain.notLive)).toBeInTheDocument();
      expect(within(domainsCard).queryByText('添加域名')).not.toBeInTheDocument();
      expect(within(domainsCard).queryByText(/添加域名后按提示/)).not.toBeInTheDocument();
      expect(within(domainsCard).queryByText('还没有自定义域名')).not.toBeInTheDocument();
    });

    it('on a live project offers the form, with no note', async () => {
      await openDetail(makeProject({ id: 7, is_live: true, status: 'approved' }), {
        'GET /projects/7/domains': ok(domains({})),
      });
      const domainsCard = await card();
      expect(await within(domainsCard).findByText('添加域名')).toBeInTheDocument();
      expect(within(domainsCard).getByText('还没有自定义域名')).toBeInTheDocument();
      expect(within(domainsCard).queryByText(messages.domain.notLive)).not.toBeInTheDocument();
    });

    it('is left out where the platform serves no custom domains and the project has none', async () => {
      const { api } = await openDetail(makeProject({ id: 7, is_live: true, status: 'approved' }), {
        'GET /projects/7/domains': ok(domains({ available: false, can_add: false })),
      });
      await waitFor(() => expect(api.calls('GET /projects/7/domains')).toHaveLength(1));
      await waitFor(() =>
        expect(
          screen.queryByText('自定义域名', { selector: '.ant-card-head-title' }),
        ).not.toBeInTheDocument(),
      );
      expect(screen.queryByText(messages.domain.unavailable)).not.toBeInTheDocument();
    });

    // With SITES_ORIGIN set but no PUBLIC_URL the card said 本平台尚未为站点配置独立域名, untrue:
    // sites had their own domain. It says the server's reason now.
    it('still lists a domain added before, saying why it is not served', async () => {
      const added: ProjectDomainsDto['domains'][number] = {
        id: 1,
        project_id: 7,
        domain: 'www.myclub.org',
        // Verified before PUBLIC_URL was required: the server says it is not served, and why.
        state: 'not_served',
        not_served_reason: messages.domain.notServedNoPublicUrl,
        txt_name: '_sitehall.www.myclub.org',
        txt_value: 'sitehall-verify=x',
        cname_target: null,
        verified_at: '2024-05-01T00:00:00.000Z',
        approved_at: null,
        created_at: '2024-05-01T00:00:00.000Z',
      };
      await openDetail(makeProject({ id: 7, is_live: true, status: 'approved' }), {
        'GET /projects/7/domains': ok(
          domains({
            available: false,
            unavailable_reason: messages.domain.unavailableNoPublicUrl,
            can_add: false,
            domains: [added],
          }),
        ),
      });
      const domainsCard = await card();
      expect(
        await within(domainsCard).findByText(messages.domain.unavailableNoPublicUrl),
      ).toBeInTheDocument();
      expect(within(domainsCard).queryByText(messages.domain.unavailable)).toBeNull();
      const entry = within(domainsCard).getByTestId('domain-www.myclub.org');
      expect(within(entry).getByText('www.myclub.org')).toBeInTheDocument();
      // 未生效, never 已生效, and no link to a domain that serves nothing.
      expect(within(entry).getByText('未生效')).toBeInTheDocument();
      expect(within(entry).queryByText('已生效')).toBeNull();
      expect(within(entry).queryByRole('link')).toBeNull();
    });

    it('says why a domain of a live project is not served when the card does not already', async () => {
      const reserved: ProjectDomainsDto['domains'][number] = {
        id: 2,
        project_id: 7,
        domain: 'hall.example.com',
        state: 'not_served',
        not_served_reason: messages.domain.notServedReserved,
        txt_name: '_sitehall.hall.example.com',
        txt_value: 'sitehall-verify=y',
        cname_target: null,
        verified_at: '2024-05-01T00:00:00.000Z',
        approved_at: null,
        created_at: '2024-05-01T00:00:00.000Z',
      };
      await openDetail(makeProject({ id: 7, is_live: true, status: 'approved' }), {
        'GET /projects/7/domains': ok(domains({ domains: [reserved] })),
      });
      const entry = await within(await card()).findByTestId('domain-hall.example.com');
      expect(within(entry).getByText('未生效')).toBeInTheDocument();
      expect(within(entry).getByText(messages.domain.notServedReserved)).toBeInTheDocument();
    });
  });
});
