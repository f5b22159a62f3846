/**
 * An answer is never lost while the upload is kept (docs/decisions/review.md "An answer is never lost"):
 * an upload whose client is gone before the commit stores nothing, and a retry with the same
 * `Idempotency-Key` answers with the first upload (same project and version) without storing or
 * charging it again, for new projects, new versions and digest deploys.
 */
import net from 'node:net';
import path from 'node:path';
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  listenPort,
  listTree,
  multipart,
  projectRowCounts,
  SIMPLE_SITE,
  type TestApp,
  type UploadFile,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type User = Awaited<ReturnType<TestApp['createUser']>>;

const staging = () => listTree(path.join(t.dataDir, 'staging'));
const uploadEvents = async (userId: number) =>
  Number(
    (
      await t.ctx.db
        .selectFrom('upload_events')
        .where('user_id', '=', userId)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function send(
  user: User,
  opts: { key?: string; files?: UploadFile[]; projectId?: number; name?: string },
) {
  const fields: Record<string, string> =
    opts.projectId === undefined ? { project_name: opts.name ?? '重试项目' } : {};
  const { payload, headers } = await multipart(fields, opts.files ?? SIMPLE_SITE);
  return t.request({
    method: opts.projectId === undefined ? 'POST' : 'PUT',
    url: opts.projectId === undefined ? '/api/projects/upload' : `/api/projects/${opts.projectId}`,
    token: user.token,
    payload,
    headers: { ...headers, ...(opts.key ? { 'idempotency-key': opts.key } : {}) },
  });
}

const projectOf = (res: {
  json(): { data: { project: { id: number; latest_deployment?: { id: number } } } };
}) => res.json().data.project;

async function waitUntil(condition: () => boolean | Promise<boolean>, ms = 60_000) {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('Idempotency-Key on uploads', () => {
  it('a retry with the same key returns the first project and version, stored and charged once', async () => {
    const user = await t.createUser();
    // One upload an hour: a retry that counted again would be refused.
    const admin = await t.adminToken();
    await t.request({
      method: 'PUT',
      url: '/api/admin/config',
      token: admin,
      body: { max_uploads_per_hour: 1 },
    });
    try {
      const first = await send(user, { key: 'web-1f3a9c' });
      expect(first.statusCode, first.body).toBe(201);
      const rows = await projectRowCounts(t);
      const again = await send(user, { key: 'web-1f3a9c' });
      expect(again.statusCode, again.body).toBe(201);
      expect(projectOf(again)).toEqual(projectOf(first));
      expect(await projectRowCounts(t)).toEqual(rows);
      expect(await uploadEvents(user.id)).toBe(1);
      // Another key is another upload: the hourly limit applies to it.
      expect((await send(user, { key: 'web-other' })).statusCode).toBe(429);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/admin/config',
        token: admin,
        body: { max_uploads_per_hour: 100 },
      });
    }
  });

  it("is the account's own: another account's upload with the same key is its own project", async () => {
    const [alice, bob] = [await t.createUser(), await t.createUser()];
    const a = projectOf(await send(alice, { key: 'shared-key' }));
    const res = await send(bob, { key: 'shared-key' });
    expect(res.statusCode).toBe(201);
    expect(projectOf(res).id).not.toBe(a.id);
  });

  it('a retried new version answers with the first new version', async () => {
    const user = await t.createUser();
    const project = projectOf(await send(user, {}));
    const files = [{ name: 'index.html', content: '<!doctype html><h1>第二版</h1>' }];
    const first = await send(user, { projectId: project.id, key: 'v2-key', files });
    expect(first.statusCode, first.body).toBe(200);
    const rows = await projectRowCounts(t);
    const again = await send(user, { projectId: project.id, key: 'v2-key', files });
    expect(again.statusCode, again.body).toBe(200);
    expect(projectOf(again)).toEqual(projectOf(first));
    expect(await projectRowCounts(t)).toEqual(rows);
  });

  it('two uploads with the same key at the same moment store one', async () => {
    const user = await t.createUser();
    const rows = await projectRowCounts(t);
    const [a, b] = await Promise.all([
      send(user, { key: 'double-click' }),
      send(user, { key: 'double-click' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(projectOf(a).id).toBe(projectOf(b).id);
    expect((await projectRowCounts(t)).projects).toBe(rows.projects + 1);
    expect(await uploadEvents(user.id)).toBe(1);
  });

  it('answers again only the request it was first sent with: the same key elsewhere is 409', async () => {
    const user = await t.createUser();
    const first = projectOf(await send(user, { key: 'one-request' }));
    const other = projectOf(await send(user, {}));
    const rows = await projectRowCounts(t);
    // Another project's new version, and the finish of a deploy that does not exist, with that key:
    // they were answered with the first upload's project.
    const version = await send(user, { projectId: other.id, key: 'one-request' });
    expect(version.statusCode, version.body).toBe(409);
    expect(version.json().message).toBe(messages.project.idempotencyKeyReused);
    const finish = await t.request({
      method: 'POST',
      // A deploy id of the right form (24 base64url characters) that was never issued.
      url: `/api/deploys/${'A'.repeat(24)}/finish`,
      token: user.token,
      headers: { 'idempotency-key': 'one-request' },
    });
    expect(finish.statusCode, finish.body).toBe(409);
    expect(await projectRowCounts(t)).toEqual(rows);
    // Its own request, again: the first answer.
    const again = await send(user, { key: 'one-request' });
    expect(again.statusCode).toBe(201);
    expect(projectOf(again)).toEqual(first);
  });

  it('answers again only the same upload: other files or other fields with the key are 409, nothing stored', async () => {
    const user = await t.createUser();
    const first = await send(user, { key: 'same-upload' });
    expect(first.statusCode, first.body).toBe(201);
    const rows = await projectRowCounts(t);
    // Another page under the same key: it was answered with the first project, its files dropped.
    const otherFiles = await send(user, {
      key: 'same-upload',
      files: [{ name: 'index.html', content: '<!doctype html><h1>另一个站点</h1>' }],
    });
    expect(otherFiles.statusCode, otherFiles.body).toBe(409);
    expect(otherFiles.json().message).toBe(messages.project.idempotencyKeyOtherPayload);
    // The same files with another project name is another upload too.
    const otherName = await send(user, { key: 'same-upload', name: '改了名字' });
    expect(otherName.statusCode, otherName.body).toBe(409);
    expect(otherName.json().message).toBe(messages.project.idempotencyKeyOtherPayload);
    expect(await projectRowCounts(t)).toEqual(rows);
    expect(await uploadEvents(user.id)).toBe(1);
    await waitUntil(() => staging().length === 0);
    // A retry of the first upload, its files in another order (and a new multipart boundary):
    // still the first answer.
    const again = await send(user, { key: 'same-upload', files: [...SIMPLE_SITE].reverse() });
    expect(again.statusCode, again.body).toBe(201);
    expect(projectOf(again)).toEqual(projectOf(first));
    expect(await projectRowCounts(t)).toEqual(rows);
  });

  it("a new version's key with other files is 409; the first version stays the answer", async () => {
    const user = await t.createUser();
    const project = projectOf(await send(user, {}));
    const files = [{ name: 'index.html', content: '<!doctype html><h1>第二版</h1>' }];
    const first = await send(user, { projectId: project.id, key: 'v2-only', files });
    expect(first.statusCode, first.body).toBe(200);
    const rows = await projectRowCounts(t);
    const other = await send(user, {
      projectId: project.id,
      key: 'v2-only',
      files: [{ name: 'index.html', content: '<!doctype html><h1>第三版</h1>' }],
    });
    expect(other.statusCode, other.body).toBe(409);
    expect(other.json().message).toBe(messages.project.idempotencyKeyOtherPayload);
    expect(await projectRowCounts(t)).toEqual(rows);
    const again = await send(user, { projectId: project.id, key: 'v2-only', files });
    expect(projectOf(again)).toEqual(projectOf(first));
  });

  it('two different uploads with one key at the same moment: one is stored, the other is 409', async () => {
    const user = await t.createUser();
    const rows = await projectRowCounts(t);
    const [a, b] = await Promise.all([
      send(user, { key: 'two-sites', name: '站点甲' }),
      send(user, { key: 'two-sites', name: '站点乙' }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
    const refused = a.statusCode === 409 ? a : b;
    expect(refused.json().message).toBe(messages.project.idempotencyKeyOtherPayload);
    expect((await projectRowCounts(t)).projects).toBe(rows.projects + 1);
    expect(await uploadEvents(user.id)).toBe(1);
    await waitUntil(() => staging().length === 0);
  });

  it('refuses a key that is not one, with a Chinese message', async () => {
    const user = await t.createUser();
    const res = await send(user, { key: 'x'.repeat(201) });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(messages.project.idempotencyKeyInvalid);
  });
});

describe('an upload whose client is gone', () => {
  it('stores nothing when the connection closes before the commit', async () => {
    const user = await t.createUser();
    const before = await projectRowCounts(t);
    // Scripts that take the content check some seconds: the connection closes meanwhile.
    const heavy = Array.from({ length: 3 }, (_, i) => ({
      name: `s${i}.js`,
      content: `String.fromCharCode(${'1,'.repeat(600_000)}1);`,
    }));
    const { payload, headers } = await multipart({ project_name: '断线项目' }, [
      { name: 'index.html', content: '<!doctype html><h1>断线</h1>' },
      ...heavy,
    ]);
    const port = await listenPort(t);
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const head =
      `POST /api/projects/upload HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${user.token}\r\n` +
      `content-type: ${headers['content-type']}\r\ncontent-length: ${payload.length}\r\n\r\n`;
    await new Promise((resolve) => socket.write(Buffer.concat([Buffer.from(head), payload]), resolve));
    // The server has the upload (staged), and is working on it: the client leaves.
    await waitUntil(() => staging().length > 0);
    socket.destroy();
    // The upload is over when its staging folder is gone: nothing of it was stored.
    await waitUntil(() => staging().length === 0);
    expect(await projectRowCounts(t)).toEqual(before);
    expect(await uploadEvents(user.id)).toBe(0);
  });
});
