import { type AdminProjectDto, STATUS_LABELS } from '@sitehall/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AdminStatusTag } from '../src/components/admin/AdminStatusTag';
import { BatchActionBar } from '../src/components/admin/BatchActionBar';
import { allowedActions, versionSummary } from '../src/components/admin/projectFacts';
import { makeDetail, makeProject, pagination } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { renderApp, renderInProviders } from './render';

const counts = { all: 4, pending: 1, approved: 1, published: 1, rejected: 1, taken_down: 0 };
const rows: AdminProjectDto[] = [
  makeProject({
    id: 1,
    name: '待审项目',
    status: 'pending',
    live_version: 1,
    latest_version: 2,
    is_live: true,
  }),
  makeProject({
    id: 2,
    name: '通过项目',
    status: 'approved',
    is_live: true,
    live_version: 1,
    pending_since: null,
  }),
  makeProject({
    id: 3,
    name: '精选项目',
    status: 'published',
    is_live: true,
    featured: true,
    live_version: 1,
  }),
  makeProject({
    id: 4,
    name: '拒绝项目',
    status: 'rejected',
    content_check: {
      level: 'high',
      counts: { high: 2, medium: 0, low: 1, info: 0 },
      usability_problems: 0,
      reason:
        '判为高风险，几乎可以肯定有恶意：页面运行时向Telegram 机器人接口（api.telegram.org）发送数据（另有 1 项同级发现）。',
    },
  }),
];
const list = (projects = rows, total = projects.length) =>
  ok({ projects, pagination: pagination(total, 1, 10), counts });

async function openReviews(routes: Record<string, FakeHandler> = {}, path = '/admin/reviews') {
  const api = fakeApi({ 'GET /admin/projects': list(), ...routes });
  signIn(adminUser());
  const app = renderApp(path);
  await screen.findByRole('link', { name: '待审项目' });
  return { ...app, api };
}

const rowOf = (name: string) => screen.getByRole('link', { name }).closest('tr') as HTMLElement;

describe('admin status labels', () => {
  it('says one word per state: live is 已发布, featured is 精选, a takedown is 已下线', () => {
    expect(STATUS_LABELS).toEqual({
      pending: '待审核',
      approved: '已发布',
      published: '精选',
      rejected: '已拒绝',
      taken_down: '已下线',
    });
    render(
      <>
        <AdminStatusTag status="approved" />
        <AdminStatusTag status="published" />
        <AdminStatusTag status="taken_down" />
      </>,
    );
    expect(screen.getByText('已发布')).toBeInTheDocument();
    expect(screen.getByText('精选')).toBeInTheDocument();
    expect(screen.getByText('已下线')).toBeInTheDocument();
  });

  it('describes versions, and offers exactly the actions the server sends as abilities', () => {
    expect(versionSummary({ status: 'pending', live_version: 1, latest_version: 2 })).toBe(
      '线上 v1，待审 v2',
    );
    expect(versionSummary({ status: 'approved', live_version: 3, latest_version: 3 })).toBe('线上 v3');
    expect(versionSummary({ status: 'pending', live_version: null, latest_version: 1 })).toBe('v1');
    expect(versionSummary({ status: 'taken_down', live_version: null, latest_version: 2 })).toBe(
      'v2（已下线）',
    );
    const none = { approve: false, reject: false, publish: false, unpublish: false, takedown: false };
    expect(allowedActions({ abilities: none })).toEqual([]);
    // Whatever the state looks like, the buttons are what the server allows: nothing re-derived.
    expect(allowedActions({ abilities: { ...none, takedown: true, approve: true } })).toEqual([
      'approve',
      'takedown',
    ]);
    expect(allowedActions({ abilities: { ...none, publish: true } })).toEqual(['publish']);
  });
});

describe('admin review list', () => {
  it('says 暂无项目 only once the list has come back empty, not while it loads', async () => {
    let answer: (reply: ReturnType<typeof list>) => void = () => {};
    fakeApi({ 'GET /admin/projects': () => new Promise((resolve) => (answer = resolve)) });
    signIn(adminUser());
    renderApp('/admin/reviews');
    await screen.findByRole('tab', { name: /^全部/ });
    await waitFor(() => expect(document.querySelector('.ant-spin-spinning')).not.toBeNull());
    expect(screen.queryByText('暂无项目')).not.toBeInTheDocument();
    answer(list([]));
    expect(await screen.findByText('暂无项目')).toBeInTheDocument();
  });

  it('shows tabs with counts, status tags, check badges, versions and the page summary', async () => {
    await openReviews();
    for (const [label, count] of [
      ['全部', 4],
      ['待审核', 1],
      ['已发布', 1],
      ['已拒绝', 1],
      ['精选', 1],
      ['已下线', 0],
    ] as const) {
      expect(screen.getByRole('tab', { name: new RegExp(`^${label}\\s*${count}$`) })).toBeInTheDocument();
    }
    expect(within(rowOf('通过项目')).getByText('已发布')).toBeInTheDocument();
    expect(within(rowOf('精选项目')).getByText('精选')).toBeInTheDocument();
    expect(within(rowOf('待审项目')).getByText('线上 v1，待审 v2')).toBeInTheDocument();
    expect(within(rowOf('拒绝项目')).getByText('高风险')).toBeInTheDocument();
    // Why it is high, in the check's one sentence; a clean version has none.
    expect(
      within(rowOf('拒绝项目')).getByText(/^判为高风险，几乎可以肯定有恶意：页面运行时向Telegram 机器人接口/),
    ).toBeInTheDocument();
    expect(rowOf('通过项目').querySelector('.content-check-reason')).toBeNull();
    expect(screen.getByText('第 1 页，共 1 页，总计 4 项')).toBeInTheDocument();
  });

  it('offers the quick actions per status', async () => {
    await openReviews();
    const buttons = (name: string) =>
      within(rowOf(name))
        .queryAllByRole('button')
        .map((b) => b.textContent)
        .filter((t) => t && t !== '详情');
    expect(buttons('待审项目')).toEqual(['通过', '拒绝', '下线']);
    expect(buttons('通过项目')).toEqual(['设为精选', '下线']);
    expect(buttons('精选项目')).toEqual(['取消精选', '下线']);
    expect(buttons('拒绝项目')).toEqual([]);
  });

  it('decides once on a double-click: one request, one message', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const { api, user } = await openReviews({
      'POST /admin/projects/1/review': async () => {
        await answered;
        return ok({ project: rows[0] }, '项目已通过');
      },
    });
    await user.dblClick(within(rowOf('待审项目')).getByRole('button', { name: '通过 待审项目' }));
    await waitFor(() => expect(api.calls('POST /admin/projects/1/review').length).toBeGreaterThan(0));
    answer();
    expect(await screen.findByText('项目已通过')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/1/review')).toHaveLength(1);
    expect(screen.queryByText(/操作失败/)).not.toBeInTheDocument();
  });

  it('keeps a row it just decided where it was, decided and without buttons, so the next row does not slide under the pointer', async () => {
    // An outside review clicked 通过 twice 0.7 s apart: the first row left the list at once and the
    // second click published the next site, never looked at.
    const first = makeProject({ id: 5, name: '作业 1 班级主页', status: 'pending' });
    const second = makeProject({ id: 6, name: '作业 2 班级主页', status: 'pending' });
    let decided = false;
    const api = fakeApi({
      'GET /admin/projects': () =>
        ok({
          projects: decided ? [second] : [first, second],
          pagination: pagination(decided ? 1 : 2, 1, 10),
          counts,
        }),
      'POST /admin/projects/5/review': () => {
        decided = true;
        return ok({ project: { ...first, status: 'approved' } }, '项目已通过');
      },
    });
    signIn(adminUser());
    const { user } = renderApp('/admin/reviews?status=pending');
    await screen.findByRole('link', { name: '作业 1 班级主页' });
    await user.click(within(rowOf('作业 1 班级主页')).getByRole('button', { name: '通过 作业 1 班级主页' }));
    expect(await screen.findByText('项目已通过')).toBeInTheDocument();
    // The list came back without it; it stays first, as 已发布, with no quick action.
    await waitFor(() => expect(api.calls('GET /admin/projects').length).toBeGreaterThan(1));
    const names = () =>
      screen
        .getAllByRole('row')
        .map((r) => within(r).queryByRole('link', { name: /班级主页/ })?.textContent)
        .filter(Boolean);
    await waitFor(() => expect(names()).toEqual(['作业 1 班级主页', '作业 2 班级主页']));
    const kept = rowOf('作业 1 班级主页');
    expect(within(kept).getByText(STATUS_LABELS.approved)).toBeInTheDocument();
    expect(within(kept).queryByRole('button', { name: /^通过/ })).toBeNull();
    expect(
      within(rowOf('作业 2 班级主页')).getByRole('button', { name: '通过 作业 2 班级主页' }),
    ).toBeInTheDocument();
  });

  it('takes the featured mark off a live site whose newer upload was refused, and keeps the row as 已拒绝', async () => {
    // The server keeps the refused upload's status (docs/decisions/review.md "Transition table"):
    // the kept row says what the server answered, not 已发布.
    const featured = makeProject({
      id: 8,
      name: '精选旧站',
      status: 'rejected',
      featured: true,
      is_live: true,
      live_version: 1,
      latest_version: 2,
    });
    let decided = false;
    const { api, user } = await openReviews({
      'GET /admin/projects': () => list(decided ? rows : [...rows, featured]),
      'POST /admin/projects/8/review': () => {
        decided = true;
        return ok({ project: { ...featured, featured: false } }, '已取消精选');
      },
    });
    await user.click(within(rowOf('精选旧站')).getByRole('button', { name: '取消精选 精选旧站' }));
    expect(await screen.findByText('已取消精选')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/8/review')[0]?.body).toEqual({ action: 'unpublish' });
    await waitFor(() => expect(api.calls('GET /admin/projects').length).toBeGreaterThan(1));
    const kept = rowOf('精选旧站');
    expect(within(kept).getByText(STATUS_LABELS.rejected)).toBeInTheDocument();
    expect(within(kept).queryByText(STATUS_LABELS.approved)).toBeNull();
  });

  it('approves a version the content check rated risky only after saying why', async () => {
    const risky = makeProject({
      id: 5,
      name: '跳转作业',
      status: 'pending',
      content_check: {
        level: 'high',
        counts: { high: 1, medium: 0, low: 0, info: 0 },
        usability_problems: 0,
        reason: '判为高风险：页面打开后自动离开，跳转到 example-casino.bet。',
      },
    });
    const { api, user } = await openReviews({
      'GET /admin/projects': list([...rows, risky]),
      'POST /admin/projects/5/review': ok({ project: risky }, '项目已通过'),
    });
    await user.click(within(rowOf('跳转作业')).getByRole('button', { name: '通过 跳转作业' }));
    const title = await screen.findByText('通过「跳转作业」？', { selector: '.ant-modal-confirm-title' });
    const dialog = title.closest('.ant-modal') as HTMLElement;
    expect(within(dialog).getByText(/内容检查为高风险：判为高风险：页面打开后自动离开/)).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/5/review')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: '仍然通过' }));
    expect(await screen.findByText('项目已通过')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/5/review')[0]?.body).toEqual({ action: 'approve', version: 1 });
  });

  it('features a live project only after saying what that means', async () => {
    const { api, user } = await openReviews({
      'POST /admin/projects/2/review': ok({ project: rows[1] }, '项目已设为精选'),
    });
    await user.click(within(rowOf('通过项目')).getByRole('button', { name: '设为精选 通过项目' }));
    const title = await screen.findByText('将「通过项目」设为精选？', {
      selector: '.ant-modal-confirm-title',
    });
    const dialog = title.closest('.ant-modal') as HTMLElement;
    expect(within(dialog).getByText(/站点本来就已发布/)).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/2/review')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: '设为精选' }));
    expect(await screen.findByText('项目已设为精选')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/2/review')[0]?.body).toEqual({ action: 'publish' });
  });

  it('asks a reason before taking a site down', async () => {
    const { api, user } = await openReviews({
      'POST /admin/projects/3/review': ok({ project: rows[2] }, '项目已下线'),
    });
    await user.click(within(rowOf('精选项目')).getByRole('button', { name: '下线 精选项目' }));
    await user.click(await screen.findByRole('button', { name: '确认下线' }));
    expect(await screen.findByText('下线项目时必须提供原因')).toBeInTheDocument();
    await user.type(screen.getByLabelText('原因'), '含有违规内容');
    await user.click(screen.getByRole('button', { name: '确认下线' }));
    expect(await screen.findByText('项目已下线')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/3/review')[0]?.body).toEqual({
      action: 'takedown',
      comment: '含有违规内容',
    });
  });

  it('switches tabs and searches through the address', async () => {
    const { api, user, router } = await openReviews();
    await user.click(screen.getByRole('tab', { name: /^待审核\s*1$/ }));
    await waitFor(() =>
      expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({ status: 'pending', page: 1 }),
    );
    expect(router.state.location.search).toContain('status=pending');
    await user.type(screen.getByRole('searchbox', { name: '搜索项目' }), '旅行{Enter}');
    await waitFor(() =>
      expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({
        status: 'pending',
        search: '旅行',
      }),
    );
  });

  it('lists the queue oldest first by default, as the dashboard says; newest first on request', async () => {
    const { api, user, router } = await openReviews();
    expect(api.calls('GET /admin/projects')[0]?.params).toMatchObject({ sort: 'oldest' });
    expect(screen.getByRole('combobox', { name: '排序' }).closest('.ant-select')).toHaveTextContent(
      '最早上传在前',
    );
    await user.click(screen.getByRole('combobox', { name: '排序' }));
    await user.click(await screen.findByTitle('最新上传在前'));
    await waitFor(() =>
      expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({ sort: 'newest', page: 1 }),
    );
    expect(router.state.location.search).toContain('sort=newest');
  });

  it('shows a broken site’s problems beside its risk level, not only 提示 1', async () => {
    const broken = makeProject({
      id: 9,
      name: '坏站点',
      status: 'pending',
      content_check: {
        level: 'info',
        counts: { high: 0, medium: 0, low: 0, info: 1 },
        usability_problems: 10,
        reason:
          '判为提示，只有供参考的信息，没有发现把访客数据送走或欺骗访客的迹象：页面从 example.com 加载图片。',
      },
    });
    await openReviews({ 'GET /admin/projects': list([...rows, broken]) });
    const cell = within(rowOf('坏站点'));
    expect(cell.getByText('提示').closest('.content-check-badge')).toHaveTextContent('提示1');
    expect(cell.getByText('可用性问题').closest('.content-check-badge')).toHaveTextContent('可用性问题10');
  });

  it('sorts by risk and filters by risk level through the address; the badge counts findings at its level', async () => {
    const { api, user, router } = await openReviews();
    // "高风险 2": the two high findings, not the low one beside them.
    expect(within(rowOf('拒绝项目')).getByText('高风险').closest('.content-check-badge')).toHaveTextContent(
      '高风险2',
    );
    await user.click(screen.getByRole('combobox', { name: '排序' }));
    await user.click(await screen.findByTitle('风险最高在前'));
    await waitFor(() =>
      expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({ sort: 'risk', page: 1 }),
    );
    expect(router.state.location.search).toContain('sort=risk');
    await user.click(screen.getByRole('combobox', { name: '风险等级' }));
    await user.click(await screen.findByTitle('中风险'));
    await waitFor(() =>
      expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({ sort: 'risk', risk: 'medium' }),
    );
    expect(router.state.location.search).toContain('risk=medium');
  });

  it('approves several projects at once', async () => {
    const { api, user } = await openReviews({
      'POST /admin/projects/batch': ok({
        results: [
          { id: 1, success: true, message: '项目已通过' },
          { id: 2, success: false, message: '当前状态（已通过）不能执行此操作（通过）' },
        ],
        succeeded: 1,
        failed: 1,
      }),
    });
    await user.click(within(rowOf('待审项目')).getByRole('checkbox'));
    await user.click(within(rowOf('通过项目')).getByRole('checkbox'));
    expect(screen.getByText(/已选择/)).toHaveTextContent('已选择 2 个项目');
    await user.click(screen.getByRole('button', { name: /批量通过/ }));
    // It asks first, naming how many, and sends nothing until confirmed.
    expect(await screen.findByText('确定要通过选中的 2 个项目吗？', { exact: false })).toBeInTheDocument();
    // Neither was flagged by the content check: no warning.
    expect(screen.queryByText(/内容检查为中高风险/)).toBeNull();
    expect(api.calls('POST /admin/projects/batch')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: '确认通过' }));
    expect(
      await screen.findByText('批量通过：成功 1 个，失败 1 个。当前状态（已通过）不能执行此操作（通过）'),
    ).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/batch')[0]?.body).toEqual({
      projectIds: [1, 2],
      action: 'approve',
      // Each row's newest version as listed.
      data: { versions: { 1: 2, 2: 1 } },
    });
  });

  it('counts down the bell at once when a decision settles the notice of the upload', async () => {
    let unread = 1;
    const { user } = await openReviews({
      'GET /notifications/unread-count': () => ok({ unread_count: unread }),
      'POST /admin/projects/batch': () => {
        unread = 0;
        return ok({ results: [], succeeded: 1, failed: 0 });
      },
    });
    expect(await screen.findByRole('link', { name: '通知（1 条未读）' })).toBeInTheDocument();
    await user.click(within(rowOf('待审项目')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: /批量通过/ }));
    await user.click(await screen.findByRole('button', { name: '确认通过' }));
    expect(await screen.findByText('批量通过完成：共 1 个项目')).toBeInTheDocument();
    // Not a minute later, at the bell's next poll.
    expect(await screen.findByRole('link', { name: '通知' }, { timeout: 3000 })).toBeInTheDocument();
  });

  it('deletes several projects with the reason their owners will read, or without one', async () => {
    const { api, user } = await openReviews({
      'POST /admin/projects/batch': ok({ results: [], succeeded: 2, failed: 0 }),
    });
    await user.click(within(rowOf('待审项目')).getByRole('checkbox'));
    await user.click(within(rowOf('通过项目')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: /批量删除/ }));
    expect(await screen.findByText(/项目所有者会收到删除通知/)).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: '删除原因' }), '  含有侵权内容  ');
    expect(api.calls('POST /admin/projects/batch')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: '确认删除' }));
    expect(await screen.findByText('批量删除完成：共 2 个项目')).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/batch')[0]?.body).toEqual({
      projectIds: [1, 2],
      action: 'delete',
      data: { comment: '含有侵权内容' },
    });
  });

  it('warns before a batch approval that takes in what the content check flagged', async () => {
    const { user } = await openReviews();
    await user.click(within(rowOf('待审项目')).getByRole('checkbox'));
    await user.click(within(rowOf('拒绝项目')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: /批量通过/ }));
    expect(
      await screen.findByText('其中 1 个项目内容检查为中高风险，建议逐个查看后再通过。'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '确认通过' })).toHaveClass('ant-btn-dangerous');
  });

  it('approves only the selected projects the content check did not flag, leaving the flagged ones', async () => {
    const check = (level: 'medium' | 'low' | 'info') => ({
      level,
      counts: { high: 0, medium: level === 'medium' ? 1 : 0, low: level === 'low' ? 1 : 0, info: 1 },
      reason: `判为${level}`,
      usability_problems: 0,
    });
    const queue = [
      makeProject({ id: 11, name: '有风险', content_check: { ...check('medium'), level: 'high' } }),
      makeProject({ id: 12, name: '中风险', content_check: check('medium') }),
      makeProject({ id: 13, name: '低风险', content_check: check('low') }),
      makeProject({ id: 14, name: '只有提示', content_check: check('info') }),
      makeProject({ id: 15, name: '无风险' }),
      makeProject({ id: 16, name: '未检查', content_check: null }),
    ];
    const { api, user } = await openReviews({
      'GET /admin/projects': list([...rows, ...queue]),
      'POST /admin/projects/batch': ok({ results: [], succeeded: 5, failed: 0 }),
    });
    // Nothing flagged selected: only the one approval.
    await user.click(within(rowOf('无风险')).getByRole('checkbox'));
    expect(screen.queryByRole('button', { name: /通过未发现中高风险/ })).toBeNull();
    // 已发布 (通过项目) can't be approved, so it is not among them either.
    for (const name of ['有风险', '中风险', '低风险', '只有提示', '未检查', '通过项目', '待审项目'])
      await user.click(within(rowOf(name)).getByRole('checkbox'));
    expect(screen.getByText(/已选择/)).toHaveTextContent('已选择 8 个项目');
    await user.click(screen.getByRole('button', { name: '通过未发现中高风险的 5 个' }));
    expect(
      await screen.findByText(
        '确定要通过其中内容检查未发现中高风险的 5 个待审核项目吗？通过后立即上线；其余 3 个不变。',
      ),
    ).toBeInTheDocument();
    expect(api.calls('POST /admin/projects/batch')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: '确认通过' }));
    expect(await screen.findByText('批量通过完成：共 5 个项目')).toBeInTheDocument();
    const sent = api.calls('POST /admin/projects/batch')[0]?.body as { projectIds: number[] };
    expect(sent).toMatchObject({ action: 'approve', data: {} });
    expect(sent.projectIds.toSorted((a, b) => a - b)).toEqual([1, 13, 14, 15, 16]);
  });

  it('keeps the selection across pages, and counts and approves the rows of other pages', async () => {
    const risky = makeProject({
      id: 21,
      name: '第一页的钓鱼页',
      content_check: {
        level: 'high',
        counts: { high: 1, medium: 0, low: 0, info: 0 },
        reason: '钓鱼',
        usability_problems: 0,
      },
    });
    const plain = makeProject({ id: 22, name: '第二页的作业' });
    const pages: Record<number, AdminProjectDto[]> = {
      1: [
        ...rows,
        risky,
        ...Array.from({ length: 5 }, (_, i) => makeProject({ id: 30 + i, name: `填充${i}` })),
      ],
      2: [plain, makeProject({ id: 23, name: '第二页的另一个' })],
    };
    const { api, user } = await openReviews({
      'GET /admin/projects': ({ params }) => {
        const page = Number(params?.page ?? 1);
        return ok({ projects: pages[page], pagination: pagination(12, page, 10), counts });
      },
      'POST /admin/projects/batch': ok({ results: [], succeeded: 1, failed: 0 }),
    });
    await user.click(within(rowOf('第一页的钓鱼页')).getByRole('checkbox'));
    await user.click(screen.getByRole('listitem', { name: '2' }));
    await screen.findByRole('link', { name: '第二页的作业' });
    await user.click(within(rowOf('第二页的作业')).getByRole('checkbox'));
    await user.click(screen.getByRole('listitem', { name: '1' }));
    await screen.findByRole('link', { name: '第一页的钓鱼页' });
    // Back on page 1, its row is still checked; the row of page 2 is counted though not on screen.
    expect(within(rowOf('第一页的钓鱼页')).getByRole('checkbox')).toBeChecked();
    expect(screen.getByText(/已选择/)).toHaveTextContent('已选择 2 个项目');
    await user.click(screen.getByRole('button', { name: /批量通过/ }));
    expect(
      await screen.findByText('其中 1 个项目内容检查为中高风险，建议逐个查看后再通过。'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '通过未发现中高风险的 1 个' }));
    const confirm = (await screen.findAllByRole('button', { name: '确认通过' })).at(-1) as HTMLElement;
    await user.click(confirm);
    await waitFor(() => expect(api.calls('POST /admin/projects/batch')).toHaveLength(1));
    expect(api.calls('POST /admin/projects/batch')[0]?.body).toMatchObject({ projectIds: [22] });
  });

  it('says a selection kept across pages is more than one batch takes, before anything is sent', async () => {
    // Paging keeps the selection, so it can pass the server's 100 (BATCH_MAX_PROJECTS).
    const api = fakeApi({});
    const selected = Array.from({ length: 101 }, (_, i) => makeProject({ id: i + 1, name: `作业${i}` }));
    renderInProviders(<BatchActionBar selected={selected} onDone={() => {}} />);
    expect(await screen.findByText(/已选择/)).toHaveTextContent('已选择 101 个项目');
    expect(screen.getByRole('status')).toHaveTextContent('一次最多操作 100 个项目，请减少选择。');
    for (const name of [/批量通过/, /批量拒绝/, /批量删除/])
      expect(screen.getByRole('button', { name })).toBeDisabled();
    expect(api.calls('POST /admin/projects/batch')).toHaveLength(0);
  });

  it('marks an upload without a page at its address, and says so before a batch approval', async () => {
    const broken = makeProject({
      id: 6,
      name: '没有首页',
      status: 'pending',
      entry_file: null,
      file_count: 2,
    });
    const { user } = await openReviews({ 'GET /admin/projects': list([...rows, broken]) });
    expect(within(rowOf('没有首页')).getByText('无首页')).toBeInTheDocument();
    expect(within(rowOf('待审项目')).queryByText('无首页')).not.toBeInTheDocument();
    await user.click(within(rowOf('没有首页')).getByRole('checkbox'));
    await user.click(within(rowOf('待审项目')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: /批量通过/ }));
    expect(
      await screen.findByText('其中 1 个项目没有首页（index.html），上线后打开站点地址会显示 404。'),
    ).toBeInTheDocument();
  });

  it('says 获取项目列表失败 with a reload button', async () => {
    fakeApi({ 'GET /admin/projects': fail(500, '服务器内部错误，请稍后重试') });
    signIn(adminUser());
    renderApp('/admin/reviews');
    expect(await screen.findByText('获取项目列表失败')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /重新加载/ })).toBeInTheDocument();
  });

  it('comes back from a project’s detail to the list as it was: tab, search and page', async () => {
    const { router, user } = await openReviews(
      {
        'GET /admin/projects': list(rows, 25),
        'GET /admin/projects/1': ok(
          makeDetail({ project: { ...makeDetail().project, id: 1, name: '待审项目' } }),
        ),
      },
      '/admin/reviews?status=pending&search=%E5%BE%85&page=2',
    );
    await user.click(screen.getByRole('link', { name: '待审项目' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/reviews/1'));
    await user.click((await screen.findAllByRole('link', { name: /返回审核列表/ }))[0]!);
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/reviews'));
    expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({
      status: 'pending',
      search: '待',
      page: '2',
    });
  });

  it('goes back to project management when the detail was opened there', async () => {
    const { router, user } = await openReviews(
      {
        'GET /admin/projects/1': ok(
          makeDetail({ project: { ...makeDetail().project, id: 1, name: '待审项目' } }),
        ),
      },
      '/admin/projects?status=pending',
    );
    await user.click(screen.getByRole('link', { name: '待审项目' }));
    await user.click((await screen.findAllByRole('link', { name: /返回项目管理/ }))[0]!);
    await waitFor(() =>
      expect(router.state.location.pathname + router.state.location.search).toBe(
        '/admin/projects?status=pending',
      ),
    );
  });
});
