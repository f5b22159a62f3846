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
    // Whatever the body, its type or who asks: the address decides first (a malformed JSON body was
    // answered 400, a form 415, before the 404).
    const user = await t.createUser();
    for (const [type, payload] of [
      ['application/json', '{bad'],
      ['application/x-www-form-urlencoded', 'a=1'],
      ['text/plain', 'x'],
    ] as const) {
      for (const [method, url] of [
        ['POST', '/api/does-not-exist'],
        ['POST', '/api/admin/projects/1/approve'],
        ['PUT', '/api'],
      ] as const) {
        for (const token of [undefined, user.token]) {
          const sent = await t.app.inject({
            method,
            url,
            headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
            payload,
          });
          expect(sent.statusCode, `${method} ${url} ${type}`).toBe(404);
          expect(sent.json()).toEqual({ success: false, message: '接口不存在' });
        }
      }
    }
  });

  it('signs the first admin in', async () => {
    const token = await t.adminToken();
    const res = await t.request({ url: '/api/auth/profile', token });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user).toMatchObject({ username: 'admin', role: 'admin' });
  });
});
