import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, fakeApi, ok } from '../../test/fake-api';
import { makeUser, signIn } from '../../test/fixtures';
import { loadSession } from '../lib/session';
import { ApiError, apiClient, call, errorMessage, http, onUnauthorized } from './client';

describe('api client', () => {
  let stopListening: (() => void) | undefined;
  afterEach(() => stopListening?.());

  it('talks to /api with a 10 s timeout and sends the stored bearer token', async () => {
    const api = fakeApi({ 'GET /ping': ok({ pong: true }) });
    signIn(makeUser(), { token: 'abc123' });
    await expect(http.get('/ping')).resolves.toEqual({ pong: true });
    const [request] = api.requests;
    expect(apiClient.defaults.baseURL).toBe('/api');
    expect(request?.config.timeout).toBe(10_000);
    expect(request?.headers.get('Authorization')).toBe('Bearer abc123');
    expect(request?.headers.get('Content-Type')).toMatch(/application\/json/);
  });

  it('sends no Authorization header when signed out', async () => {
    const api = fakeApi({ 'GET /ping': ok(null) });
    await http.get('/ping');
    expect(api.requests[0]?.headers.has('Authorization')).toBe(false);
  });

  it('drops the JSON content type for multipart bodies and can lift the timeout', async () => {
    const api = fakeApi({ 'POST /upload': ok(null) });
    const form = new FormData();
    form.append('files', new Blob(['<h1>hi</h1>']), 'index.html');
    await http.post('/upload', form, { noTimeout: true });
    const [request] = api.requests;
    expect(request?.headers.get('Content-Type')).toBeFalsy();
    expect(request?.config.timeout).toBe(0);
  });

  it('calls an endpoint of the table: its method, its path with the parameters filled in, query and body', async () => {
    const api = fakeApi({
      'PATCH /admin/users/7': ok({ user: { id: 7 } }),
      'GET /admin/projects/12/source': ok({ lines: ['<h1>'] }),
    });
    await expect(call('updateUser', { params: { id: 7 }, body: { disabled: true } })).resolves.toEqual({
      user: { id: 7 },
    });
    await call('adminSource', { params: { id: 12 }, query: { path: '首页.html', line: 3 } });
    expect(api.requests.map((r) => [r.method, r.url, r.params, r.body])).toEqual([
      ['PATCH', '/admin/users/7', undefined, { disabled: true }],
      ['GET', '/admin/projects/12/source', { path: '首页.html', line: 3 }, undefined],
    ]);
  });

  it("uses the server's message, with field errors", async () => {
    fakeApi({
      'POST /thing': fail(400, '项目名称至少需要2个字符', { project_name: '项目名称至少需要2个字符' }),
    });
    const error = await http.post('/thing', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      message: '项目名称至少需要2个字符',
      serverMessage: '项目名称至少需要2个字符',
      fieldErrors: { project_name: '项目名称至少需要2个字符' },
    });
  });

  it('falls back to 网络错误，请稍后重试 without a message', async () => {
    fakeApi({
      'GET /bare': { status: 502, body: '<html>Bad gateway</html>' },
      'GET /down': { networkError: true },
    });
    const bare = await http.get('/bare').catch((e: unknown) => e);
    expect(errorMessage(bare)).toBe('网络错误，请稍后重试');
    expect(bare).toMatchObject({ status: 502, serverMessage: null });
    const down = await http.get('/down').catch((e: unknown) => e);
    expect(errorMessage(down)).toBe('网络错误，请稍后重试');
    expect(down).toMatchObject({ status: 0 });
    expect(errorMessage(new Error('boom'))).toBe('网络错误，请稍后重试');
  });

  it('on 401 clears the stored token and user and hands over to the sign-in redirect', async () => {
    fakeApi({ 'GET /auth/me-only': fail(401, '登录已过期，请重新登录') });
    signIn(makeUser(), { remember: true });
    const listener = vi.fn();
    stopListening = onUnauthorized(listener);
    const error = await http.get('/auth/me-only').catch((e: unknown) => e);
    expect(errorMessage(error)).toBe('登录已过期，请重新登录');
    expect(listener).toHaveBeenCalledTimes(1);
    expect(loadSession()).toBeNull();
    expect(window.localStorage.getItem('sitehall.user')).toBeNull();
  });

  it('leaves the session alone for calls that handle 401 themselves (the login call)', async () => {
    fakeApi({ 'POST /auth/login': fail(401, '用户名或密码错误') });
    signIn(makeUser());
    const listener = vi.fn();
    stopListening = onUnauthorized(listener);
    await http.post('/auth/login', {}, { skipAuthRedirect: true }).catch(() => {});
    expect(listener).not.toHaveBeenCalled();
    expect(loadSession()?.user.username).toBe('alice');
  });

  it('does not sign out on other failures', async () => {
    fakeApi({ 'GET /admin/x': fail(403, '只有管理员可以执行此操作') });
    signIn(makeUser());
    const listener = vi.fn();
    stopListening = onUnauthorized(listener);
    const error = await http.get('/admin/x').catch((e: unknown) => e);
    expect(errorMessage(error)).toBe('只有管理员可以执行此操作');
    expect(listener).not.toHaveBeenCalled();
    expect(loadSession()).not.toBeNull();
  });
});
