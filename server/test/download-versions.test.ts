/**
 * The project download of one version (docs/decisions/uploads.md "Download"):
 * `?deployment_id=` sends that version's files, named project-{id}-v{n}.zip, to the owner or an
 * admin; a version of another project is as missing as an unknown one, a malformed id is 400, and
 * without it the live version (or the newest) is sent as before. On both engines.
 */
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  liveProject,
  review,
  type TestApp,
  type UploadFile,
  unzip,
  uploadProject,
} from './helpers.js';

const V1: UploadFile[] = [
  { name: 'index.html', content: '<h1>第一版</h1>' },
  { name: 'old.txt', content: '旧文件' },
];
const V2: UploadFile[] = [
  { name: 'index.html', content: '<h1>第二版，待审核</h1>' },
  { name: 'new.txt', content: '新文件' },
];
const filesOf = (files: UploadFile[]) => Object.fromEntries(files.map((f) => [f.name, String(f.content)]));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A live v1 with a v2 waiting for review, and the id of each version. */
async function liveWithPendingVersion(name: string) {
  const { id, owner } = await liveProject(t, V1, { name });
  const res = await uploadProject(t, owner.token, { projectId: id, files: V2 });
  if (res.statusCode !== 200) throw new Error(`new version failed: ${res.statusCode} ${res.body}`);
  return { id, owner, versions: await versionIds(id, owner.token) };
}

/** version number → deployment id, as the project's version history lists them. */
async function versionIds(projectId: number, token: string): Promise<Record<number, number>> {
  const res = await t.request({ url: `/api/projects/${projectId}`, token });
  const deployments = res.json().data.project.deployments as Array<{ id: number; version: number }>;
  return Object.fromEntries(deployments.map((d) => [d.version, d.id]));
}

async function downloadCount(projectId: number): Promise<number> {
  const res = await t.request({ url: `/api/admin/projects/${projectId}`, token: await t.adminToken() });
  return res.json().data.stats.download_count as number;
}

describe('download of one version', () => {
  it('gives an admin the version under review, by either download route; without one the live version as before', async () => {
    const { id, versions } = await liveWithPendingVersion('审核下载');
    const admin = await t.adminToken();

    for (const base of [`/api/admin/projects/${id}/download`, `/api/projects/${id}/download`]) {
      const res = await t.request({ url: `${base}?deployment_id=${versions[2]}`, token: admin });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('application/zip');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="project-${id}-v2.zip"`);
      expect(await unzip(res.rawPayload)).toEqual(filesOf(V2));
    }

    // The default is what it was: the live version, under the project's name.
    const plain = await t.request({ url: `/api/admin/projects/${id}/download`, token: admin });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-disposition']).toBe(`attachment; filename="project-${id}.zip"`);
    expect(await unzip(plain.rawPayload)).toEqual(filesOf(V1));

    // Each download counts once, whichever version, and the audit log names the version sent.
    expect(await downloadCount(id)).toBe(3);
    const logged = await auditEntries(t, { action: 'project.download', targetId: id });
    expect(logged.map((e) => JSON.parse(e.detail ?? 'null'))).toEqual([
      { version: 2 },
      { version: 2 },
      { version: 1 },
    ]);
  });

  it('gives the owner each of their versions: a superseded, a rejected and a taken-down one', async () => {
    const { id, owner } = await liveWithPendingVersion('自己的版本');
    const v3 = await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<h1>第三版</h1>' }],
    });
    expect(v3.statusCode).toBe(200);
    expect((await review(t, id, 'reject', '第三版有问题')).statusCode).toBe(200);
    expect((await review(t, id, 'takedown', '下线检查')).statusCode).toBe(200);
    const versions = await versionIds(id, owner.token);
    const statuses = (await t.request({ url: `/api/projects/${id}`, token: owner.token }))
      .json()
      .data.project.deployments.map((d: { version: number; status: string }) => [d.version, d.status]);
    expect(statuses).toEqual([
      [3, 'rejected'],
      [2, 'superseded'],
      [1, 'rejected'],
    ]);

    const expected: Record<number, Record<string, string>> = {
      1: filesOf(V1),
      2: filesOf(V2),
      3: { 'index.html': '<h1>第三版</h1>' },
    };
    for (const version of [1, 2, 3]) {
      const res = await t.request({
        url: `/api/projects/${id}/download?deployment_id=${versions[version]}`,
        token: owner.token,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="project-${id}-v${version}.zip"`);
      expect(await unzip(res.rawPayload)).toEqual(expected[version]);
    }
  });

  it("refuses another project's version as missing, for its owner, another owner and an admin, counting nothing", async () => {
    const mine = await liveWithPendingVersion('我的项目');
    const theirs = await liveWithPendingVersion('别人的项目');
    const admin = await t.adminToken();
    const calls = [
      // The owner of one project asks for the other's version through their own project.
      {
        url: `/api/projects/${mine.id}/download?deployment_id=${theirs.versions[2]}`,
        token: mine.owner.token,
      },
      {
        url: `/api/projects/${mine.id}/download?deployment_id=${theirs.versions[1]}`,
        token: mine.owner.token,
      },
      { url: `/api/admin/projects/${mine.id}/download?deployment_id=${theirs.versions[2]}`, token: admin },
      // An id no version has.
      { url: `/api/projects/${mine.id}/download?deployment_id=2147483647`, token: mine.owner.token },
    ];
    for (const call of calls) expectFailure(await t.request(call), 404, messages.review.deploymentNotFound);
    // Another account's project stays missing, whatever version is named.
    expectFailure(
      await t.request({
        url: `/api/projects/${theirs.id}/download?deployment_id=${theirs.versions[2]}`,
        token: mine.owner.token,
      }),
      404,
      messages.project.notFound,
    );

    expect(await downloadCount(mine.id)).toBe(0);
    expect(await downloadCount(theirs.id)).toBe(0);
    expect(await auditEntries(t, { action: 'project.download', targetId: mine.id })).toEqual([]);
  });

  it('refuses a malformed version id with 400 and the message, naming the field', async () => {
    const { id, owner, versions } = await liveWithPendingVersion('格式错误');
    // Other spellings of a real version's id: Number() would take each of them (an outside review).
    const v = versions[1] as number;
    const spellings = [`0${v}`, `${v}.0`, `${v}e0`, `0x${v.toString(16)}`, `%20${v}`, `${v}%20`, `+${v}`];
    for (const value of ['abc', '0', '-1', '1.5', '', '2147483648', '1&deployment_id=2', ...spellings]) {
      const res = await t.request({
        url: `/api/projects/${id}/download?deployment_id=${value}`,
        token: owner.token,
      });
      const body = expectFailure(res, 400, messages.review.deploymentIdInvalid);
      expect(body.errors).toEqual({ deployment_id: messages.review.deploymentIdInvalid });
    }
    expect(await downloadCount(id)).toBe(0);
  });
});
