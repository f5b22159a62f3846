import type { AdminProjectDto } from '@sitehall/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeProject, pagination } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { renderApp } from './render';

const counts = { all: 25, pending: 20, approved: 4, published: 1, rejected: 0 };
const rows: AdminProjectDto[] = [
  makeProject({ id: 1, name: '作品集', status: 'pending', viewCount: 1234, download_count: 5 }),
  makeProject({
    id: 2,
    name: '精选站点',
    status: 'published',
    is_live: true,
    featured: true,
    live_version: 1,
    access_url: '/sites/2/',
  }),
];
const list = (projects = rows, total = 25, page = 1) =>
  ok({ projects, pagination: pagination(total, page, 20), counts });

async function openProjects(routes: Record<string, FakeHandler> = {}, path = '/admin/projects') {
  const api = fakeApi({ 'GET /admin/projects': list(), ...routes });
  signIn(adminUser());
  const app = renderApp(path);
  await screen.findByRole('link', { name: '作品集' });
  return { ...app, api };
}

const rowOf = (name: string) => screen.getByRole('link', { name }).closest('tr') as HTMLElement;

describe('admin projects page', () => {
  it('lists every project with its live and featured marks, views, downloads and the page summary', async () => {
    await openProjects();
    expect(within(rowOf('作品集')).getByTitle('访问 1234 次，下载 5 次')).toHaveTextContent('1,234 / 5');
    // The owner is on the project's line (the table fits a 1280-pixel window without scrolling).
    expect(within(rowOf('作品集')).getByText(/^#1 · .+ · /)).toBeInTheDocument();
    expect(within(rowOf('作品集')).getByText('未上线')).toBeInTheDocument();
    // No sites port in this install's configuration: the address opens on the app's own host.
    expect(within(rowOf('精选站点')).getByRole('link', { name: '打开 精选站点 的站点' })).toHaveAttribute(
      'href',
      new URL('/sites/2/', window.location.href).href,
    );
    expect(within(rowOf('精选站点')).getByLabelText('精选')).toBeInTheDocument();
    expect(screen.getByText('第 1 页，共 2 页，总计 25 项')).toBeInTheDocument();
  });

  it('pages, searches and keeps the view in the address', async () => {
    const { api, user, router } = await openProjects();
    await user.click(screen.getByTitle('2'));
    await waitFor(() => expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({ page: 2 }));
    expect(router.state.location.search).toBe('?page=2');
    await user.type(screen.getByRole('searchbox', { name: '搜索项目' }), '  作品  {Enter}');
    await waitFor(() =>
      expect(api.calls('GET /admin/projects').at(-1)?.params).toMatchObject({ search: '作品', page: 1 }),
    );
    expect(router.state.location.search).toBe('?search=%E4%BD%9C%E5%93%81');
    // Each change is a history entry: Back shows the page before the search.
    await act(() => router.navigate(-1));
    expect(router.state.location.search).toBe('?page=2');
    await waitFor(() => expect(screen.getByTitle('2')).toHaveClass('ant-pagination-item-active'));
    expect(screen.getByRole('searchbox', { name: '搜索项目' })).toHaveValue('');
  });

  it('opens on the view a link carries', async () => {
    const { api } = await openProjects({}, '/admin/projects?status=pending&sort=oldest&page=3&page_size=50');
    expect(api.calls('GET /admin/projects')[0]?.params).toMatchObject({
      status: 'pending',
      sort: 'oldest',
      page: 3,
      page_size: 50,
    });
  });

  it('deletes a project after confirmation and reports a failure with the server message', async () => {
    const { api, user } = await openProjects({
      'DELETE /projects/1': fail(409, '项目正在处理中'),
    });
    await user.click(screen.getByRole('button', { name: '删除 作品集' }));
    await user.click(await screen.findByRole('button', { name: '确认删除' }));
    expect(await screen.findByText('删除项目失败：项目正在处理中')).toBeInTheDocument();
    expect(api.calls('DELETE /projects/1')).toHaveLength(1);
  });

  it("deletes one project with the reason its owner will read, or without one; the admin's own asks none", async () => {
    const own = makeProject({ id: 3, name: '我的站点', owner: { id: 1, username: 'admin' } });
    const { api, user } = await openProjects({
      'GET /admin/projects': list([...rows, own]),
      'DELETE /projects/1': ok(null, '项目已删除'),
      'DELETE /projects/2': ok(null, '项目已删除'),
      'DELETE /projects/3': ok(null, '项目已删除'),
    });
    await user.click(screen.getByRole('button', { name: '删除 作品集' }));
    expect(await screen.findByText(/项目所有者（alice）会收到删除通知/)).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: '删除原因' }), '  含有侵权内容  ');
    expect(api.calls('DELETE /projects/1')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: '确认删除' }));
    await waitFor(() => expect(api.calls('DELETE /projects/1')).toHaveLength(1));
    expect(api.calls('DELETE /projects/1')[0]?.body).toEqual({ comment: '含有侵权内容' });

    // No reason typed: no body, as before.
    await user.click(screen.getByRole('button', { name: '删除 精选站点' }));
    const confirms = await screen.findAllByRole('button', { name: '确认删除' });
    await user.click(confirms.at(-1)!);
    await waitFor(() => expect(api.calls('DELETE /projects/2')).toHaveLength(1));
    expect(api.calls('DELETE /projects/2')[0]?.body).toBeUndefined();

    // The admin's own project tells nobody: no box, no promise of a notice.
    await user.click(screen.getByRole('button', { name: '删除 我的站点' }));
    await waitFor(() =>
      expect(screen.getAllByText('确定要删除这个项目吗？此操作不可撤销。').length).toBeGreaterThan(0),
    );
    const visible = screen.getAllByRole('tooltip').at(-1)!;
    expect(within(visible).queryByRole('textbox', { name: '删除原因' })).toBeNull();
  });

  it('keeps the rows on screen when a refresh fails, with a notice and a retry', async () => {
    const { api, user } = await openProjects();
    api.on('GET /admin/projects', fail(500, '服务器内部错误，请稍后重试'));
    await user.click(screen.getByRole('button', { name: /刷\s*新/ }));
    expect(await screen.findByText('获取项目列表失败：服务器内部错误，请稍后重试')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '作品集' })).toBeInTheDocument();
    api.on('GET /admin/projects', list());
    await user.click(screen.getByRole('button', { name: /重\s*试/ }));
    await waitFor(() =>
      expect(screen.queryByText('获取项目列表失败：服务器内部错误，请稍后重试')).not.toBeInTheDocument(),
    );
  });
});
