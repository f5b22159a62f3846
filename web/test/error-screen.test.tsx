import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from './fake-api';
import { renderApp } from './render';

vi.mock('../src/pages/showcase/ShowcasePage', () => ({
  ShowcasePage: () => {
    throw new Error('render failure');
  },
}));

describe('generic error screen', () => {
  it('replaces a page that fails to render, keeping the navigation bar', async () => {
    fakeApi();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { user } = renderApp('/public');
    expect(await screen.findByText('出现了一些问题')).toBeInTheDocument();
    expect(screen.getByText('页面遇到了意外错误，请刷新页面重试。')).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: '主导航' })).toBeInTheDocument();

    const back = vi.spyOn(window.history, 'back').mockImplementation(() => {});
    await user.click(screen.getByRole('button', { name: '返回上一页' }));
    expect(back).toHaveBeenCalled();
    expect(screen.getByRole('button', { name: '刷新页面' })).toBeInTheDocument();
  });
});
