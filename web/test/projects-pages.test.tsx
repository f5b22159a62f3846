import { messages, type ProjectStatus } from '@sitehall/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { StatusTag } from '../src/components/StatusTag';
import { PROJECT_FILTERS } from '../src/pages/projects/filters';
import { fail, fakeApi } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { makeProject, myProjects } from './project-fixtures';
import { renderApp } from './render';

// Role queries over the whole antd page are slow in jsdom; buttons are found by their text.
const button = (text: string | RegExp, root: HTMLElement = document.body) =>
  within(root).getByText(text, { selector: 'button span, a span' }).closest('button, a') as HTMLElement;
const lastButton = async (text: string) =>
  (await screen.findAllByText(text, { selector: 'button span' })).at(-1)?.closest('button') as HTMLElement;

describe('status labels for the owner', () => {
  it('reads the same words as the admins: live 已发布, featured 精选, a takedown 已下线', () => {
    const statuses: ProjectStatus[] = ['pending', 'approved', 'published', 'rejected', 'taken_down'];
    const labels = statuses.map((status) => {
      const { container, unmount } = render(<StatusTag status={status} />);
      const text = container.textContent;
      unmount();
      return text;
    });
    expect(labels).toEqual(['待审核', '已发布', '精选', '已拒绝', '已下线']);
  });
});

describe('my projects', () => {
  it('names the filter in the empty text, with an upload link only for 全部', async () => {
    expect(PROJECT_FILTERS.map((f) => [f.value, f.label])).toEqual([
      ['all', '全部'],
      ['pending', '待审核'],
      ['approved', '已发布'],
      ['rejected', '已拒绝'],
      ['taken_down', '已下线'],
    ]);
    const api = fakeApi({ 'GET /projects/my': myProjects([]) });
    signIn(makeUser());
    const { router } = renderApp('/projects');
    expect(await screen.findByText('还没有项目，上传你的第一个项目吧')).toBeInTheDocument();
    const main = () => document.querySelector('main') as HTMLElement;
    // The page header's upload button, and the empty state's.
    expect(within(main()).getAllByText('上传项目', { selector: 'a span' })).toHaveLength(2);

    for (const [status, text] of [
      ['pending', '暂无待审核的项目'],
      ['approved', '暂无已发布的项目'],
      ['rejected', '暂无已拒绝的项目'],
      ['taken_down', '暂无已下线的项目'],
    ] as const) {
      await router.navigate(`/projects?status=${status}`);
      expect(await screen.findByText(text)).toBeInTheDocument();
      // Only the header's upload button is left.
      expect(within(main()).getAllByText('上传项目', { selector: 'a span' })).toHaveLength(1);
      // The text follows the address at once; the request goes out as the list's query starts.
      await waitFor(() =>
        expect(api.calls('GET /projects/my').at(-1)?.params).toMatchObject({ status, page: 1 }),
      );
    }
  });

  it('keeps the chosen filter in the address', async () => {
    fakeApi({
      'GET /projects/my': myProjects([], { total: 3, pending: 1, reviewed: 2, published: 1, taken_down: 0 }),
    });
    signIn(makeUser());
    const { router, user } = renderApp('/projects');
    await screen.findByText('还没有项目，上传你的第一个项目吧');
    await user.click(screen.getByText('已拒绝'));
    await waitFor(() => expect(router.state.location.search).toBe('?status=rejected'));
    expect(await screen.findByText('暂无已拒绝的项目')).toBeInTheDocument();
    // A history entry: Back shows every project again.
    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('');
    expect(await screen.findByText('还没有项目，上传你的第一个项目吧')).toBeInTheDocument();
  });

  it('shows the error message with a retry', async () => {
    const api = fakeApi({ 'GET /projects/my': fail(500, '服务器内部错误，请稍后重试') });
    signIn(makeUser());
    const { user } = renderApp('/projects');
    expect(await screen.findByText('服务器内部错误，请稍后重试')).toBeInTheDocument();
    api.on('GET /projects/my', myProjects([makeProject({ name: '重试后的项目' })]));
    await user.click(button('重试'));
    expect(await screen.findByText('重试后的项目')).toBeInTheDocument();
  });

  it('shows each project as a card with its facts and a way to see it', async () => {
    fakeApi({
      'GET /projects/my': myProjects([
        makeProject({
          id: 1,
          name: '已上线站点',
          status: 'published',
          is_live: true,
          access_url: '/sites/1/',
          live_version: 1,
        }),
        makeProject({ id: 2, name: '等待审核站点', description: null, file_size: 1536 }),
      ]),
    });
    signIn(makeUser());
    renderApp('/projects');
    const live = await screen.findByRole('article', { name: '已上线站点' });
    expect(within(live).getByText('精选')).toBeInTheDocument();
    const visit = button('访问', live);
    expect(visit).toHaveAttribute('href', `${window.location.origin}/sites/1/`);
    expect(visit).toHaveAttribute('target', '_blank');

    const pending = screen.getByRole('article', { name: '等待审核站点' });
    expect(within(pending).getByText('暂无描述')).toBeInTheDocument();
    expect(within(pending).getByText('1.5 KB')).toBeInTheDocument();
    expect(button('生成预览', pending)).toBeInTheDocument();
    expect(button('详情', pending)).toHaveAttribute('href', '/projects/2');
  });

  it('says on a refused or taken-down card which it was, and why', async () => {
    fakeApi({
      'GET /projects/my': myProjects([
        makeProject({ id: 3, name: '被拒站点', status: 'rejected', rejectionReason: '缺少首页 index.html' }),
        makeProject({ id: 4, name: '被下线站点', status: 'taken_down', takedownReason: '含有违规内容' }),
        makeProject({ id: 5, name: '无原因站点', status: 'rejected', rejectionReason: null }),
      ]),
    });
    signIn(makeUser());
    renderApp('/projects');
    const refused = await screen.findByRole('article', { name: '被拒站点' });
    expect(within(refused).getByText(messages.project.previewRejectedVersion)).toBeInTheDocument();
    expect(within(refused).getByText('原因：缺少首页 index.html')).toBeInTheDocument();
    const down = screen.getByRole('article', { name: '被下线站点' });
    expect(within(down).getByText(messages.project.previewTakenDown)).toBeInTheDocument();
    expect(within(down).getByText('原因：含有违规内容')).toBeInTheDocument();
    expect(
      within(screen.getByRole('article', { name: '无原因站点' })).getByText('原因：管理员未填写原因'),
    ).toBeInTheDocument();
    expect(screen.queryByText(messages.project.previewRejected)).toBeNull();
  });

  it('names a card’s picture link after its project, so a screen reader says where it leads', async () => {
    fakeApi({ 'GET /projects/my': myProjects([makeProject({ id: 2, name: '等待审核站点' })]) });
    signIn(makeUser());
    renderApp('/projects');
    const card = await screen.findByRole('article', { name: '等待审核站点' });
    const links = within(card).getAllByRole('link', { name: '等待审核站点' });
    const picture = links.find((link) => link.querySelector('.project-picture'));
    expect(picture).toHaveAttribute('href', '/projects/2');
    // Beside the name's link, which the keyboard reaches: the picture is no second Tab stop.
    expect(picture).toHaveAttribute('tabindex', '-1');
  });

  it('asks before deleting and reports a failure with the server message', async () => {
    const api = fakeApi({
      'GET /projects/my': myProjects([makeProject({ id: 5, name: '要删除的站点' })]),
      'DELETE /projects/5': fail(409, '项目正在处理中'),
    });
    signIn(makeUser());
    const { user } = renderApp('/projects');
    const card = await screen.findByRole('article', { name: '要删除的站点' });
    await user.click(button('删除', card));
    expect(await screen.findByText('确定要删除这个项目吗？此操作不可撤销。')).toBeInTheDocument();
    await user.click(await lastButton('删除'));
    expect(await screen.findByText('删除项目失败：项目正在处理中')).toBeInTheDocument();
    expect(api.calls('DELETE /projects/5')).toHaveLength(1);
  });
});

describe('dashboard', () => {
  it('greets the user, shows the four counters and the newest projects', async () => {
    const api = fakeApi({
      'GET /projects/my': myProjects(
        [
          makeProject({ id: 3, name: '最新项目', description: null }),
          makeProject({ id: 2, name: '已拒绝项目', status: 'rejected' }),
        ],
        { total: 6, pending: 2, reviewed: 4, published: 3, taken_down: 0 },
      ),
    });
    signIn(makeUser());
    renderApp('/dashboard');
    expect(await screen.findByText('你好，alice！在这里查看项目概况与审核进度。')).toBeInTheDocument();
    await screen.findByText('最新项目');
    for (const [key, value] of [
      ['total', '6'],
      ['pending', '2'],
      ['reviewed', '4'],
      ['published', '3'],
    ]) {
      expect(screen.getByTestId(`counter-${key}`)).toHaveTextContent(value as string);
    }
    for (const title of ['总项目', '待审核', '已处理', '已发布'])
      expect(screen.getAllByText(title).length).toBeGreaterThan(0);
    expect(api.calls('GET /projects/my')[0]?.params).toMatchObject({ status: 'all', page: 1, page_size: 5 });
    expect(screen.getByText('暂无描述')).toBeInTheDocument();
    expect(screen.getAllByText('创建于 2024/05/01')).toHaveLength(2);
    expect(screen.getAllByText('查看详情')[0]?.closest('a')).toHaveAttribute('href', '/projects/3');
    expect(screen.getByText('项目上传后需经管理员审核，审核通过后才会发布。')).toBeInTheDocument();
  });

  it('says a live site keeps serving when its newest version waits or was refused', async () => {
    fakeApi({
      'GET /projects/my': myProjects([
        makeProject({ id: 4, name: '改版被拒', status: 'rejected', is_live: true, live_version: 1 }),
        makeProject({ id: 5, name: '改版待审', status: 'pending', is_live: true, live_version: 2 }),
        makeProject({ id: 6, name: '首次被拒', status: 'rejected', is_live: false, live_version: null }),
      ]),
    });
    signIn(makeUser());
    renderApp('/dashboard');
    await screen.findByText('改版被拒');
    const row = (name: string) => screen.getByText(name).closest('li') as HTMLElement;
    expect(within(row('改版被拒')).getByText('线上版本 v1，新版本未通过审核')).toBeInTheDocument();
    expect(within(row('改版待审')).getByText('线上版本 v2，新版本审核中')).toBeInTheDocument();
    expect(within(row('首次被拒')).queryByText(/线上版本/)).toBeNull();
  });

  it('invites the first upload when there are no projects', async () => {
    fakeApi({ 'GET /projects/my': myProjects([]) });
    signIn(makeUser());
    renderApp('/dashboard');
    expect(await screen.findByText('还没有项目')).toBeInTheDocument();
    expect(button('上传第一个项目')).toHaveAttribute('href', '/upload');
  });
});
