/**
 * A lost connection (docs/decisions/web-app.md "A lost connection"): the notice says 无法连接服务器
 * while the server gives no answer, the app asks again on its own, and what failed (a list's data,
 * a page's code) comes once the server answers; code the server no longer has goes to the error
 * screen, and a menu's code never replaces the page.
 */
import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectionState, importChunk, resetConnection } from '../src/lib/connection';
import { makePublicProject, pagination } from './admin-fixtures';
import { fakeApi, ok } from './fake-api';
import { publicConfig } from './project-fixtures';
import { renderApp } from './render';

afterEach(() => resetConnection());

const DOWN = { networkError: true } as const;

describe('a lost connection', () => {
  it('shows 无法连接服务器 when a list gets no answer, retries on its own and shows the list once the server is back', async () => {
    let up = false;
    fakeApi({
      'GET /config/public': () => (up ? ok(publicConfig) : DOWN),
      'GET /projects/public': () =>
        up
          ? ok({
              projects: [makePublicProject({ id: 1, name: '天气小站' })],
              pagination: pagination(1, 1, 12),
            })
          : DOWN,
    });
    renderApp('/public');
    expect(await screen.findByText('无法连接服务器')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('正在自动重试');
    expect(connectionState()).toBe('lost');

    up = true;
    // No click: the next probe finds the server and the list is asked for again.
    expect(await screen.findByRole('article', { name: '天气小站' })).toBeInTheDocument();
    expect(screen.getByText('已重新连接服务器')).toBeInTheDocument();
    expect(screen.queryByText('无法连接服务器')).not.toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('已重新连接服务器')).not.toBeInTheDocument(), {
      timeout: 10_000,
    });
  });

  it('立即重试 asks the server at once', async () => {
    let up = false;
    const api = fakeApi({
      'GET /config/public': () => (up ? ok(publicConfig) : DOWN),
      'GET /projects/public': () => (up ? ok({ projects: [], pagination: pagination(0, 1, 12) }) : DOWN),
    });
    const { user } = renderApp('/public');
    const retry = await screen.findByRole('button', { name: '立即重试' });
    const probes = api.calls('GET /config/public').length;
    up = true;
    await user.click(retry);
    await waitFor(() => expect(connectionState()).not.toBe('lost'));
    expect(api.calls('GET /config/public').length).toBeGreaterThan(probes);
  });

  it('a failure the server answers (a 500) is no lost connection', async () => {
    fakeApi({
      'GET /config/public': ok(publicConfig),
      'GET /projects/public': {
        status: 500,
        body: { success: false, message: '服务器内部错误，请稍后重试' },
      },
    });
    renderApp('/public');
    expect(await screen.findByText(/服务器内部错误/)).toBeInTheDocument();
    expect(screen.queryByText('无法连接服务器')).not.toBeInTheDocument();
    expect(connectionState()).toBe('online');
  });
});

describe('a chunk of the app’s code', () => {
  const failedImport = () =>
    new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/UploadPage-abc.js');

  it('that got no answer is imported again, under a new address, once the server is back', async () => {
    let up = false;
    fakeApi({ 'GET /config/public': () => (up ? ok(publicConfig) : DOWN) });
    const load = vi.fn().mockRejectedValue(failedImport());
    const reimport = vi.fn().mockResolvedValue({ UploadPage: 'the page' });
    const result = importChunk(load, reimport);
    await waitFor(() => expect(connectionState()).toBe('lost'));
    expect(reimport).not.toHaveBeenCalled();
    up = true;
    await expect(result).resolves.toEqual({ UploadPage: 'the page' });
    expect(reimport).toHaveBeenCalledWith('http://localhost/assets/UploadPage-abc.js');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('that the server no longer has (it answers) fails after one more try, with no notice', async () => {
    fakeApi({ 'GET /config/public': ok(publicConfig) });
    const load = vi.fn().mockRejectedValue(failedImport());
    const reimport = vi.fn().mockRejectedValue(failedImport());
    await expect(importChunk(load, reimport)).rejects.toThrow(/UploadPage-abc/);
    expect(reimport).toHaveBeenCalledTimes(1);
    expect(connectionState()).toBe('online');
  });

  it('whose stylesheet failed (no address in the error) is loaded again by its own loader', async () => {
    let up = false;
    fakeApi({ 'GET /config/public': () => (up ? ok(publicConfig) : DOWN) });
    const load = vi
      .fn()
      .mockRejectedValueOnce(new Error('Unable to preload CSS for /assets/UploadPage-abc.css'))
      .mockResolvedValue({ UploadPage: 'styled' });
    const result = importChunk(load, vi.fn());
    await waitFor(() => expect(connectionState()).toBe('lost'));
    await act(async () => {
      up = true;
    });
    await expect(result).resolves.toEqual({ UploadPage: 'styled' });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
