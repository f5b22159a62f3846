/**
 * What a first walk through the product found on the server's side: a take-down's own wording, a
 * disabled user told why their session ended, the audit log naming only the fields that changed,
 * and a project's newest upload time.
 */
import { DEFAULT_LIMITS } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  listTree,
  liveProject,
  projectRowCounts,
  review,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('review reasons', () => {
  it('asks for a take-down reason in its own words, and a rejection reason in its own', async () => {
    const { id } = await liveProject(t);
    expectFailure(await review(t, id, 'takedown'), 400, '下线项目时必须提供原因');
    expectFailure(await review(t, id, 'takedown', '   '), 400, '下线项目时必须提供原因');
    expect((await review(t, id, 'takedown', '内容过期')).statusCode).toBe(200);

    const owner = await t.createUser();
    const pending = (await uploadProject(t, owner.token, { files: SIMPLE_SITE })).json().data.project.id;
    expectFailure(await review(t, pending, 'reject'), 400, '拒绝项目时必须提供原因');
  });
});

describe('a disabled account', () => {
  const profile = (token: string) => t.request({ url: '/api/auth/profile', token });
  const setDisabled = async (id: number, disabled: boolean) => {
    const res = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${id}`,
      token: await t.adminToken(),
      body: { disabled },
    });
    expect(res.statusCode).toBe(200);
  };

  it('tells the holder of a session it ended 账号已被停用, on every signed-in request', async () => {
    const user = await t.createUser();
    expect((await profile(user.token)).statusCode).toBe(200);
    await setDisabled(user.id, true);
    expectFailure(await profile(user.token), 401, '账号已被停用，请联系管理员');
    expectFailure(
      await t.request({ url: '/api/projects/my', token: user.token }),
      401,
      '账号已被停用，请联系管理员',
    );
    // Public pages still answer, as to anyone.
    expect((await t.request({ url: '/api/projects/public', token: user.token })).statusCode).toBe(200);
  });

  it('once enabled again, its old sessions stay over and no longer say it is disabled', async () => {
    const user = await t.createUser();
    await setDisabled(user.id, true);
    await setDisabled(user.id, false);
    expectFailure(await profile(user.token), 401, '登录已过期，请重新登录');
    expect((await profile(await t.login(user.username, user.password))).statusCode).toBe(200);
  });
});

/** An audit entry's changed fields (detail is JSON text). */
const fieldsOf = (detail: unknown) =>
  (typeof detail === 'string' ? JSON.parse(detail) : (detail as { fields?: string[] } | null))?.fields;

describe('editing a project', () => {
  it('records only the fields whose value changed, and nothing when none did', async () => {
    const owner = await t.createUser();
    const id = (
      await uploadProject(t, owner.token, {
        name: '原来的名字',
        description: '原来的描述',
        files: SIMPLE_SITE,
      })
    ).json().data.project.id as number;
    const edit = (body: Record<string, unknown>) =>
      t.request({ method: 'PUT', url: `/api/projects/${id}`, token: owner.token, body });

    // The edit form sends all three fields; only the description is new.
    expect((await edit({ name: '原来的名字', description: '新的描述', is_public: true })).statusCode).toBe(
      200,
    );
    let entries = await auditEntries(t, { action: 'project.update', targetId: id });
    expect(entries.map((e) => fieldsOf(e.detail))).toEqual([['description']]);

    expect((await edit({ name: '原来的名字', description: '新的描述', is_public: true })).statusCode).toBe(
      200,
    );
    entries = await auditEntries(t, { action: 'project.update', targetId: id });
    expect(entries).toHaveLength(1);

    expect((await edit({ name: '新的名字', is_public: false })).statusCode).toBe(200);
    entries = await auditEntries(t, { action: 'project.update', targetId: id });
    expect(entries.map((e) => fieldsOf(e.detail)).sort()).toEqual([['description'], ['name', 'is_public']]);
  });
});

describe('a new version', () => {
  it('moves the upload time, not the creation time', async () => {
    const owner = await t.createUser();
    const first = (await uploadProject(t, owner.token, { files: SIMPLE_SITE })).json().data.project;
    expect(first.uploaded_at).toBe(first.created_at);
    await new Promise((r) => setTimeout(r, 20));
    const res = await uploadProject(t, owner.token, { projectId: first.id, files: SIMPLE_SITE });
    expect(res.statusCode).toBe(200);
    const second = res.json().data.project;
    expect(second.created_at).toBe(first.created_at);
    expect(Date.parse(second.uploaded_at)).toBeGreaterThan(Date.parse(first.uploaded_at));
    const mine = (await t.request({ url: '/api/projects/my', token: owner.token })).json().data;
    const listed = mine.projects.find((p: { id: number }) => p.id === first.id);
    expect(listed.uploaded_at).toBe(second.uploaded_at);
  });
});

describe('a folder upload', () => {
  const folder = (name: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      name: i === 0 ? `${name}/index.html` : `${name}/pages/p${i}.html`,
      content: `<p>${i}</p>`,
    }));

  it('counts as one item against the files-per-upload limit, like an archive; entries still count', async () => {
    const settings = t.ctx.services.settings;
    const saved = await settings.get();
    const owner = await t.createUser();
    try {
      await settings.update({
        ...saved,
        limits: { ...DEFAULT_LIMITS, maxFilesPerUpload: 2, maxArchiveEntries: 30 },
      });
      // One folder of 25 files, and one loose file: two items.
      const ok = await uploadProject(t, owner.token, {
        files: [...folder('site', 25), { name: 'readme.txt', content: 'hi' }],
      });
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json().data.project.file_count).toBe(26);

      const before = await projectRowCounts(t);
      // Three items: refused with the files-per-upload message.
      const three = await uploadProject(t, owner.token, {
        files: [...folder('a', 2), ...folder('b', 2), { name: 'c.html', content: 'c' }],
      });
      expectFailure(three, 413);
      expect(three.json().errors.files).toBe('文件数量超过限制。最多允许上传 2 个文件');
      // A folder of more files than an archive may hold: refused, and nothing is left behind.
      const huge = await uploadProject(t, owner.token, { files: folder('big', 31) });
      expectFailure(huge, 413);
      expect(huge.json().errors.files).toBe('文件夹中的文件数量超过限制。最多允许 30 个');
      expect(await projectRowCounts(t)).toEqual(before);
      expect(listTree(`${t.dataDir}/staging`)).toEqual([]);
    } finally {
      await settings.update(saved);
    }
  });
});
