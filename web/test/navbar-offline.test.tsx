/**
 * The phone's ☰ when its code can't be had: the connection notice, never the error screen in
 * place of the page (docs/decisions/web-app.md "A lost connection").
 */
import { screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { connectionState, resetConnection } from '../src/lib/connection';
import { fakeApi, ok } from './fake-api';
import { publicConfig } from './project-fixtures';
import { renderApp } from './render';

// The drawer's chunk fails as a browser says when the request got no answer.
vi.mock('../src/components/layout/NavDrawer', () => {
  throw new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/NavDrawer-x.js');
});

afterEach(() => resetConnection());

it('☰ without a connection shows the notice and keeps the page; if its code is gone for good, the page stays', async () => {
  let up = false;
  fakeApi({ 'GET /config/public': () => (up ? ok(publicConfig) : { networkError: true }) });
  vi.spyOn(console, 'error').mockImplementation(() => {});
  const { user } = renderApp('/');
  await user.click(await screen.findByRole('button', { name: '打开导航菜单' }));
  expect(await screen.findByText('无法连接服务器')).toBeInTheDocument();
  expect(screen.queryByText('出现了一些问题')).not.toBeInTheDocument();
  expect(screen.getByRole('navigation', { name: '主导航' })).toBeInTheDocument();

  // The server is back but (here) cannot give that code: the menu is left out, the page stays.
  up = true;
  await waitFor(() => expect(connectionState()).not.toBe('lost'));
  await waitFor(() =>
    expect(console.error).toHaveBeenCalledWith('页面的一部分加载失败', expect.anything(), expect.anything()),
  );
  expect(screen.queryByText('出现了一些问题')).not.toBeInTheDocument();
  expect(screen.getByRole('heading', { level: 1 })).toBeInTheDocument();
});
