import { commonMessages, type PublicProjectDto } from '@sitehall/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '../src/AppProviders';
import { prefetchShowcase } from '../src/api/showcase';
import { SEARCH_LIMITS_NOTE } from '../src/pages/showcase/ShowcaseControls';
import { makePublicProject, pagination } from './admin-fixtures';
import { type FakeHandler, fail, fakeApi, ok } from './fake-api';
import { publicConfig } from './project-fixtures';
import { renderApp } from './render';

const page = (projects: PublicProjectDto[], total = projects.length, current = 1) =>
  ok({ projects, pagination: pagination(total, current, 12) });

function openShowcase(route: FakeHandler, path = '/public', routes: Record<string, FakeHandler> = {}) {
  const api = fakeApi({ 'GET /projects/public': route, ...routes });
  const app = renderApp(path);
  return { ...app, api };
}

describe('showcase', () => {
  it('asks for the first page of the address’s search as the app starts, and keeps it for the page', async () => {
    const api = fakeApi({ 'GET /projects/public': page([makePublicProject({ id: 1, name: '天气小站' })]) });
    const queryClient = createQueryClient();
    prefetchShowcase(queryClient, new URLSearchParams('search=天气&sort=popular&featured=true'));
    await waitFor(() => expect(api.calls('GET /projects/public')).toHaveLength(1));
    expect(api.calls('GET /projects/public')[0]?.params).toMatchObject({
      search: '天气',
      sort: 'popular',
      featured: 'true',
      page: 1,
      page_size: 12,
    });
    const key = ['showcase', 'list', { sort: 'popular', search: '天气', featured: 'true', page_size: 12 }];
    await waitFor(() => expect(queryClient.getQueryState(key)?.status).toBe('success'));
    const data = queryClient.getQueryData<{ pages: Array<{ projects: PublicProjectDto[] }> }>(key);
    expect(data?.pages[0]?.projects.map((p) => p.name)).toEqual(['天气小站']);
    // Already in the cache and fresh: asked again, nothing is sent.
    prefetchShowcase(queryClient, new URLSearchParams('search=天气&sort=popular&featured=true'));
    await queryClient.getQueryCache().find({ queryKey: key })?.promise;
    expect(api.calls('GET /projects/public')).toHaveLength(1);
  });

  it('leaves a failed first page to the page: nothing is thrown at the start', async () => {
    fakeApi({ 'GET /projects/public': fail(503, '服务暂时不可用') });
    const queryClient = createQueryClient();
    queryClient.setDefaultOptions({ queries: { retry: false } });
    prefetchShowcase(queryClient, new URLSearchParams(''));
    const key = ['showcase', 'list', { sort: 'latest', page_size: 12 }];
    await waitFor(() => expect(queryClient.getQueryState(key)?.status).toBe('error'));
  });

  it('shows the cards with their facts, the count line and the end of the list', async () => {
    openShowcase(
      page([
        makePublicProject({ id: 1, name: '天气小站', featured: true, file_size: 10240, viewCount: 17 }),
        makePublicProject({ id: 2, name: '像素画板', access_url: '', owner: { username: 'bob' } }),
      ]),
      '/public',
      // A default install: the site is on the sites port, under an origin of its own on localhost.
      { 'GET /config/public': ok({ ...publicConfig, sites_port: 3001 }) },
    );
    const card = await screen.findByRole('article', { name: '天气小站' });
    expect(screen.getByText('共 2 个项目')).toBeInTheDocument();
    expect(within(card).getByText('精选')).toBeInTheDocument();
    expect(within(card).getByText('4 个文件 · 10 KB')).toBeInTheDocument();
    expect(within(card).getByText('作者 alice')).toBeInTheDocument();
    expect(within(card).getByText('17 次访问')).toBeInTheDocument();
    const visit = within(card).getByRole('link', { name: '访问 天气小站' });
    await waitFor(() => expect(visit).toHaveAttribute('href', 'http://p1.localhost:3001/'));
    expect(visit).toHaveAttribute('target', '_blank');
    const other = screen.getByRole('article', { name: '像素画板' });
    expect(within(other).getByRole('button', { name: '访问 像素画板' })).toBeDisabled();
    expect(screen.getByText('已显示所有项目')).toBeInTheDocument();
  });

  it('shows a site’s rendered picture, sized and lazy, and the first letter where there is none', async () => {
    const url = `/api/thumbnails/${'a'.repeat(64)}.webp`;
    openShowcase(
      page([
        makePublicProject({ id: 1, name: '天气小站', thumbnail_url: url }),
        makePublicProject({ id: 2, name: '像素画板' }),
      ]),
    );
    const card = await screen.findByRole('article', { name: '天气小站' });
    const img = card.querySelector('img.showcase-card__picture');
    expect(img?.getAttribute('src')).toBe(url);
    expect([img?.getAttribute('width'), img?.getAttribute('height'), img?.getAttribute('loading')]).toEqual([
      '640',
      '400',
      'lazy',
    ]);
    const other = screen.getByRole('article', { name: '像素画板' });
    expect(other.querySelector('img')).toBeNull();
    expect(within(other).getByText('像')).toBeInTheDocument();
  });

  it('says 暂无已发布的项目 when nothing is published', async () => {
    openShowcase(page([]));
    expect(await screen.findByText('暂无已发布的项目')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '清除搜索' })).not.toBeInTheDocument();
  });

  it('says 没有找到匹配的项目 for a search without results, and 清除搜索 brings the list back', async () => {
    const { api, user, router } = openShowcase((request) =>
      request.params?.search ? page([]) : page([makePublicProject()]),
    );
    await screen.findByRole('article', { name: '天气小站' });
    // The controls load after the first cards (ShowcasePage): wait for them.
    await user.type(await screen.findByRole('searchbox', { name: '搜索项目' }), '不存在{Enter}');
    expect(await screen.findByText('没有找到匹配的项目')).toBeInTheDocument();
    expect(router.state.location.search).toContain('search=');
    expect(api.calls('GET /projects/public').at(-1)?.params).toMatchObject({ search: '不存在' });

    await user.click(screen.getByRole('button', { name: '清除搜索' }));
    expect(await screen.findByRole('article', { name: '天气小站' })).toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it('shows the load error with a reload button', async () => {
    const { api, user } = openShowcase(fail(500, '服务器内部错误，请稍后重试'));
    expect(await screen.findByText('加载项目失败，请稍后重试')).toBeInTheDocument();
    api.on('GET /projects/public', page([makePublicProject()]));
    await user.click(screen.getByRole('button', { name: /重新加载/ }));
    expect(await screen.findByRole('article', { name: '天气小站' })).toBeInTheDocument();
  });

  it('says why a search the server refuses can’t be used, with 清除搜索 instead of 重新加载', async () => {
    const refused = fail(400, commonMessages.searchInvalid, { search: commonMessages.searchInvalid });
    const { user, router } = openShowcase(
      (request) => (request.params?.search ? refused : page([makePublicProject()])),
      `/public?search=${encodeURIComponent('一 二 三 四 五 六 七 八 九')}`,
    );
    // Nine words, one more than a search may have: asking again gets the same answer.
    expect(await screen.findByText(commonMessages.searchInvalid)).toBeInTheDocument();
    expect(screen.getByText(SEARCH_LIMITS_NOTE)).toBeInTheDocument();
    expect(screen.queryByText('加载项目失败，请稍后重试')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /重新加载/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '清除搜索' }));
    expect(await screen.findByRole('article', { name: '天气小站' })).toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it('keeps sort and the 精选 filter in the address and asks the server for them', async () => {
    const { api, user, router } = openShowcase(page([makePublicProject()]));
    await screen.findByRole('article', { name: '天气小站' });
    await user.click(await screen.findByText('名称'));
    await waitFor(() =>
      expect(api.calls('GET /projects/public').at(-1)?.params).toMatchObject({ sort: 'name' }),
    );
    expect(router.state.location.search).toContain('sort=name');
    await user.click(screen.getByRole('checkbox', { name: /只看精选/ }));
    await waitFor(() =>
      expect(api.calls('GET /projects/public').at(-1)?.params).toMatchObject({
        sort: 'name',
        featured: 'true',
      }),
    );
    expect(router.state.location.search).toContain('featured=true');
  });

  it('reads search and sort from the address and loads more on request', async () => {
    const first = Array.from({ length: 12 }, (_, i) =>
      makePublicProject({ id: i + 1, name: `项目${i + 1}` }),
    );
    const { api, user } = openShowcase(
      (request) =>
        request.params?.page === 2
          ? page([makePublicProject({ id: 13, name: '项目13' })], 13, 2)
          : page(first, 13, 1),
      '/public?search=项目&sort=popular',
    );
    await screen.findByRole('article', { name: '项目1' });
    expect(api.calls('GET /projects/public')[0]?.params).toMatchObject({
      search: '项目',
      sort: 'popular',
      page: 1,
    });
    expect(await screen.findByRole('searchbox', { name: '搜索项目' })).toHaveValue('项目');
    expect(screen.getByText('共 13 个项目，匹配“项目”')).toBeInTheDocument();
    expect(screen.queryByText('已显示所有项目')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '加载更多' }));
    expect(await screen.findByRole('article', { name: '项目13' })).toBeInTheDocument();
    expect(screen.getByText('已显示所有项目')).toBeInTheDocument();
  });
});
