import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';

describe('app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers unknown API paths with the JSON envelope', async () => {
    const res = await t.request({ url: '/api/does-not-exist' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, message: '接口不存在' });
  });

  it('signs the first admin in', async () => {
    const token = await t.adminToken();
    const res = await t.request({ url: '/api/auth/profile', token });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user).toMatchObject({ username: 'admin', role: 'admin' });
  });
});
