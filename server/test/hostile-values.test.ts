/**
 * Values a client chooses that once reached the database or the stack unchecked and answered 500
 * (docs/security.md "Hostile values in requests"): a multipart body on a JSON route, a JSON array
 * too long to spread, ids past the columns' range and deploy ids no deploy can have. Each is
 * answered with its 4xx and a Chinese message on both engines, and the service carries on.
 */
import { format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectFailure, SIMPLE_SITE, type TestApp, uploadProject } from './helpers.js';

let t: TestApp;
let owner: { token: string };
let projectId: number;
beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createUser();
  const res = await uploadProject(t, owner.token, { name: '目标项目', files: SIMPLE_SITE });
  expect(res.statusCode, res.body).toBe(201);
  projectId = res.json().data.project.id;
});
afterAll(() => t.close());

const PAST_INT4 = 2_147_483_648;

describe('a multipart body where a route takes JSON', () => {
  it('is refused with 415 on every JSON route, signed in or not', async () => {
    const admin = await t.adminToken();
    for (const route of [
      { method: 'POST', url: '/api/auth/login', token: undefined },
      { method: 'PUT', url: '/api/auth/profile', token: owner.token },
      { method: 'POST', url: '/api/auth/register', token: admin },
      { method: 'POST', url: '/api/deploys', token: owner.token },
      { method: 'POST', url: `/api/admin/projects/${projectId}/review`, token: admin },
    ]) {
      for (const payload of ['', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n']) {
        const res = await t.request({
          ...route,
          payload,
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
        });
        expect(res.statusCode, `${route.method} ${route.url}: ${res.body}`).toBe(415);
        expectFailure(res, 415, messages.common.unsupportedMediaType);
      }
    }
  });

  it('still reaches the one JSON route that also takes multipart: a new version by upload', async () => {
    const res = await uploadProject(t, owner.token, { projectId, files: SIMPLE_SITE });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('a JSON body with a very long array', () => {
  it('is walked for refused keys without overflowing the stack', async () => {
    const payload = `[[${'0,'.repeat(300_000)}0],{"__proto__":1}]`;
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    expectFailure(res, 400, format(messages.common.forbiddenJsonKey, { name: '__proto__' }));
    // The same length without a refused key is just a body that is not an object.
    const plain = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      payload: `[[${'0,'.repeat(300_000)}0]]`,
      headers: { 'content-type': 'application/json' },
    });
    expectFailure(plain, 400, messages.common.badRequest);
  });
});

describe('ids past the columns’ range', () => {
  it('are answered as no such project or version, never passed to the database', async () => {
    const check = await t.request({
      url: `/api/projects/site-name?name=abcd&project_id=${PAST_INT4}`,
      token: owner.token,
    });
    expectFailure(check, 400, messages.project.notFound);
    const start = await t.request({
      method: 'POST',
      url: '/api/deploys',
      token: owner.token,
      body: { project_id: PAST_INT4, files: { 'index.html': 'a'.repeat(64) } },
    });
    expectFailure(start, 400, messages.project.notFound);
    const base = await t.request({
      method: 'POST',
      url: '/api/deploys',
      token: owner.token,
      body: { project_id: projectId, base_version: PAST_INT4, changes: {} },
    });
    expectFailure(base, 400, messages.deploy.baseVersionInvalid);
    // The largest id a column holds is an id like any other: no such project here.
    const largest = await t.request({
      method: 'POST',
      url: '/api/deploys',
      token: owner.token,
      body: { project_id: PAST_INT4 - 1, files: { 'index.html': 'a'.repeat(64) } },
    });
    expectFailure(largest, 404, messages.project.notFound);
  });
});

describe('deploy ids no deploy can have', () => {
  it('are a deploy that does not exist, whatever bytes they hold', async () => {
    const hash = 'a'.repeat(64);
    for (const id of ['a%00b', 'x'.repeat(23), `${'x'.repeat(24)}%00`, '%C3%A9'.repeat(24), 'x'.repeat(25)]) {
      const put = await t.request({
        method: 'PUT',
        url: `/api/deploys/${id}/files/${hash}`,
        token: owner.token,
        payload: Buffer.from('x'),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expectFailure(put, 404, messages.deploy.deployNotFound);
      const finish = await t.request({
        method: 'POST',
        url: `/api/deploys/${id}/finish`,
        token: owner.token,
      });
      expectFailure(finish, 404, messages.deploy.deployNotFound);
      const batch = await t.request({
        method: 'POST',
        url: `/api/deploys/${id}/files`,
        token: owner.token,
        payload: '--x--\r\n',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expectFailure(batch, 404, messages.deploy.deployNotFound);
    }
    // A well-formed id that was never issued is the same answer.
    const unknown = await t.request({
      method: 'POST',
      url: `/api/deploys/${'A'.repeat(24)}/finish`,
      token: owner.token,
    });
    expectFailure(unknown, 404, messages.deploy.deployNotFound);
  });
});

describe('a path too long for the router', () => {
  it('is answered 414 saying the address is too long', async () => {
    const res = await t.request({ url: `/api/projects/${'1'.repeat(3000)}`, token: owner.token });
    expectFailure(res, 414, messages.common.uriTooLong);
  });
});
