import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  liveProject,
  review,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

describe('review decisions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('approving puts the site live; a new version waits while the old one serves; approval switches it', async () => {
    const { id, owner } = await liveProject(t, [{ name: 'index.html', content: '<h1>v1</h1>' }]);
    const v1 = await t.request({ url: `/sites/${id}/` });
    expect(v1.statusCode).toBe(200);
    expect(v1.body).toBe('<h1>v1</h1>');
    const up = await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<h1>v2</h1>' }],
    });
    expect(up.statusCode).toBe(200);
    expect(up.json().data.project).toMatchObject({
      status: 'pending',
      is_live: true,
      live_version: 1,
      latest_version: 2,
    });
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('<h1>v1</h1>');
    const listed = (await t.request({ url: '/api/projects/my', token: owner.token })).json().data.projects;
    expect(listed.find((p: { id: number }) => p.id === id)).toMatchObject({
      status: 'pending',
      live_version: 1,
      latest_version: 2,
    });
    const approved = await review(t, id, 'approve');
    expect(approved.statusCode).toBe(200);
    expect(approved.json().data.project).toMatchObject({ status: 'approved', live_version: 2 });
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('<h1>v2</h1>');
  });

  it('rejecting a new version keeps the live one serving and tells the owner why', async () => {
    const { id, owner } = await liveProject(t, [{ name: 'index.html', content: '<h1>live</h1>' }]);
    await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<h1>bad</h1>' }],
    });
    const missing = await review(t, id, 'reject');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors.comment).toBe('拒绝项目时必须提供原因');
    const res = await review(t, id, 'reject', '图片侵权');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.project).toMatchObject({
      status: 'rejected',
      is_live: true,
      rejectionReason: '图片侵权',
    });
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('<h1>live</h1>');
    const mine = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project;
    expect(mine.review_comments[0]).toMatchObject({
      action: 'reject',
      comment: '图片侵权',
      reviewer: 'admin',
    });
  });

  it('publish features a live project; unpublish removes it; takedown puts it offline at once', async () => {
    const { id } = await liveProject(t);
    expect((await review(t, id, 'publish')).json().data.project).toMatchObject({
      status: 'published',
      featured: true,
    });
    expect((await review(t, id, 'unpublish')).json().data.project).toMatchObject({
      status: 'approved',
      featured: false,
    });
    const noReason = await review(t, id, 'takedown');
    expect(noReason.statusCode).toBe(400);
    expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(200);
    const down = await review(t, id, 'takedown', '违规内容');
    expect(down.statusCode).toBe(200);
    expect(down.json().data.project).toMatchObject({
      status: 'taken_down',
      is_live: false,
      access_url: null,
      takedownReason: '违规内容',
      rejectionReason: null,
    });
    expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(404);
  });

  it('answers 409 for an action not allowed from the current status, changing nothing', async () => {
    const owner = await t.createUser();
    const id = (await uploadProject(t, owner.token, { files: SIMPLE_SITE })).json().data.project.id;
    for (const action of ['publish', 'unpublish']) {
      const res = await review(t, id, action);
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toMatch(/当前状态（待审核）不能执行此操作/);
    }
    expect((await review(t, id, 'takedown', '原因')).statusCode).toBe(409);
    const p = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project;
    expect(p.status).toBe('pending');
    expect(p.review_comments).toEqual([]);
  });

  it('rolls back to an earlier approved version: the owner or an admin, only while live', async () => {
    const { id, owner } = await liveProject(t, [{ name: 'index.html', content: 'one' }]);
    await uploadProject(t, owner.token, { projectId: id, files: [{ name: 'index.html', content: 'two' }] });
    await review(t, id, 'approve');
    await uploadProject(t, owner.token, { projectId: id, files: [{ name: 'index.html', content: 'bad' }] });
    await review(t, id, 'reject', '不合格');
    const detail = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project;
    const version = (n: number) => detail.deployments.find((d: { version: number }) => d.version === n);
    // Each version says whether this user may make it live now: the web shows 回滚 from it.
    const mayRollBack = (project: { deployments: { version: number; abilities: { rollback: boolean } }[] }) =>
      Object.fromEntries(project.deployments.map((d) => [d.version, d.abilities.rollback]));
    expect(mayRollBack(detail)).toEqual({ 1: true, 2: false, 3: false });
    const stranger = await t.createUser();
    expect((await t.request({ url: `/api/projects/${id}`, token: stranger.token })).statusCode).toBe(404);
    const rollback = (token: string, deploymentId: number, projectId = id) =>
      t.request({
        method: 'POST',
        url: `/api/projects/${projectId}/rollback`,
        token,
        body: { deployment_id: deploymentId },
      });
    const comments = async () =>
      (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project
        .review_comments.length as number;

    const res = await rollback(owner.token, version(1).id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.project).toMatchObject({ live_version: 1, latest_version: 3, status: 'rejected' });
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('one');

    // An admin may roll back anyone's project; the decision is kept in the history.
    const admin = await rollback(await t.adminToken(), version(2).id);
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data.project.live_version).toBe(2);
    expect(admin.json().data.project.review_comments[0]).toMatchObject({
      action: 'rollback',
      comment: 'v2',
      reviewer: 'admin',
    });
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('two');

    // Refused, changing nothing: the live version itself, a rejected one, another project's, a stranger.
    const before = await comments();
    expectFailure(await rollback(owner.token, version(2).id), 409, messages.review.rollbackAlreadyLive);
    expectFailure(await rollback(owner.token, version(3).id), 409, messages.review.rollbackNotAllowed);
    const other = await liveProject(t);
    expectFailure(await rollback(owner.token, version(1).id, other.id), 404);
    expectFailure(await rollback(other.owner.token, version(1).id), 404, messages.project.notFound);
    expect(await comments()).toBe(before);
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('two');

    // Taken down, the project has no live version to replace.
    await review(t, id, 'takedown', '违规');
    expectFailure(await rollback(owner.token, version(1).id), 409, messages.review.rollbackOffline);
    expectFailure(await rollback(await t.adminToken(), version(1).id), 409, messages.review.rollbackOffline);
    const offline = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project;
    expect(mayRollBack(offline)).toEqual({ 1: false, 2: false, 3: false });
    expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(404);

    // An id no row can have is refused as such, on both databases (PostgreSQL's ids are 32-bit).
    for (const bad of [2_147_483_648, 0, 1.5, '1']) {
      const res = await rollback(owner.token, bad as number);
      expectFailure(res, 400);
      expect(res.json().errors.deployment_id).toBe(messages.review.deploymentIdInvalid);
    }
  });

  it('decides only the version the reviewer saw: one uploaded meanwhile is refused (409), not put live unseen', async () => {
    const owner = await t.createUser();
    const id = (
      await uploadProject(t, owner.token, {
        name: '审核中替换',
        files: [{ name: 'index.html', content: '<p>v1 无害</p>' }],
      })
    ).json().data.project.id;
    // The reviewer opens v1; the owner swaps in v2 before 通过 is pressed.
    const seen = (await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() })).json()
      .data.project.latest_version;
    expect(seen).toBe(1);
    await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<p>v2 换过</p>' }],
    });
    const adminToken = await t.adminToken();
    const decide = (body: Record<string, unknown>) =>
      t.request({ method: 'POST', url: `/api/admin/projects/${id}/review`, token: adminToken, body });
    for (const body of [
      { action: 'approve', version: seen },
      { action: 'reject', comment: '不行', version: seen },
    ]) {
      expectFailure(await decide(body), 409, '项目已有新上传的版本（第 2 版），请重新查看后再审核');
    }
    expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(404);
    expect(
      (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project.status,
    ).toBe('pending');
    // A batch names each project's version the same way.
    const batch = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: adminToken,
      body: { projectIds: [id], action: 'approve', data: { versions: { [id]: seen } } },
    });
    expect(batch.json().data.results).toEqual([
      { id, success: false, message: '项目已有新上传的版本（第 2 版），请重新查看后再审核' },
    ]);
    expectFailure(await decide({ action: 'approve', version: 0 }), 400, '版本号无效');
    // The version seen now is the newest: decided.
    expect((await decide({ action: 'approve', version: 2 })).statusCode).toBe(200);
    expect((await t.request({ url: `/sites/${id}/` })).body).toBe('<p>v2 换过</p>');
  });

  it('batch actions report each project and apply all-or-nothing per project', async () => {
    const owner = await t.createUser();
    const a = (await uploadProject(t, owner.token, { name: '批量甲', files: SIMPLE_SITE })).json().data
      .project.id;
    const b = (await uploadProject(t, owner.token, { name: '批量乙', files: SIMPLE_SITE })).json().data
      .project.id;
    await review(t, b, 'reject', '不合格');
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: await t.adminToken(),
      body: { projectIds: [a, b, 99999999], action: 'approve' },
    });
    expect(res.statusCode).toBe(200);
    const { results, succeeded, failed } = res.json().data;
    expect(succeeded).toBe(1);
    expect(failed).toBe(2);
    expect(results).toEqual([
      { id: a, success: true, message: '项目已通过' },
      { id: b, success: false, message: expect.stringMatching(/已拒绝/) },
      { id: 99999999, success: false, message: '项目不存在' },
    ]);
    const del = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: await t.adminToken(),
      body: { projectIds: [a, b], action: 'delete' },
    });
    expect(del.json().data.succeeded).toBe(2);
    expect((await t.request({ url: `/sites/${a}/` })).statusCode).toBe(404);
  });

  it('names the problem with a comment over 1,000 characters or a batch of 0 or over 100 projects', async () => {
    const owner = await t.createUser();
    const id = (await uploadProject(t, owner.token, { name: '长意见', files: SIMPLE_SITE })).json().data
      .project.id;
    const admin = await t.adminToken();
    const long = await t.request({
      method: 'POST',
      url: `/api/admin/projects/${id}/review`,
      token: admin,
      body: { action: 'reject', comment: '改'.repeat(1001) },
    });
    expectFailure(long, 400, messages.review.commentTooLong);
    for (const projectIds of [[], Array.from({ length: 101 }, (_, i) => i + 1), 'all']) {
      const res = await t.request({
        method: 'POST',
        url: '/api/admin/projects/batch',
        token: admin,
        body: { projectIds, action: 'approve' },
      });
      expectFailure(res, 400, messages.review.batchSize);
    }
    // An id no row can have (PostgreSQL's ids are 32-bit) is refused before any is applied.
    for (const bad of [2_147_483_648, 0, -1, 2.5, '3']) {
      const res = await t.request({
        method: 'POST',
        url: '/api/admin/projects/batch',
        token: admin,
        body: { projectIds: [id, bad], action: 'approve' },
      });
      expectFailure(res, 400, messages.review.batchIdsInvalid);
    }
    // Still pending: nothing was applied.
    const detail = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    expect(detail.json().data.project.status).toBe('pending');
  });

  describe('sent at the same moment (on PostgreSQL they run side by side)', () => {
    const statuses = (answers: { statusCode: number }[]) => answers.map((a) => a.statusCode).sort();

    it('takes one of many identical decisions; the rest are refused and change nothing', async () => {
      const owner = await t.createUser();
      const { id } = (await uploadProject(t, owner.token, { name: '并发审核', files: SIMPLE_SITE })).json()
        .data.project;
      const answers = await Promise.all(Array.from({ length: 6 }, () => review(t, id, 'approve')));
      expect(statuses(answers)).toEqual([200, 409, 409, 409, 409, 409]);
      expect(await auditEntries(t, { action: 'review.approve', targetId: id })).toHaveLength(1);
      const comments = await t.ctx.db
        .selectFrom('review_comments')
        .select('action')
        .where('project_id', '=', id)
        .execute();
      expect(comments).toEqual([{ action: 'approve' }]);
    });

    it('leaves a consistent project when a takedown and a publish cross', async () => {
      for (let round = 0; round < 4; round++) {
        const { id } = await liveProject(t, SIMPLE_SITE);
        const [takedown, publish] = await Promise.all([
          review(t, id, 'takedown', '违规内容'),
          review(t, id, 'publish'),
        ]);
        expect(takedown.statusCode).toBe(200);
        // The publish came first (then the takedown undid it) or after (refused).
        expect([200, 409]).toContain(publish.statusCode);
        const row = await t.ctx.db
          .selectFrom('projects')
          .select(['status', 'live_deployment_id', 'featured'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ status: 'taken_down', live_deployment_id: null, featured: 0 });
        expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(404);
      }
    });

    it('answers a decision crossing the project’s deletion with 200 or 404, never an error', async () => {
      for (let round = 0; round < 4; round++) {
        const owner = await t.createUser();
        const { id } = (
          await uploadProject(t, owner.token, { name: '审核时删除', files: SIMPLE_SITE })
        ).json().data.project;
        const [decision, deletion] = await Promise.all([
          review(t, id, 'approve'),
          t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token }),
        ]);
        expect(deletion.statusCode).toBe(200);
        expect([200, 404]).toContain(decision.statusCode);
        if (decision.statusCode === 404) expectFailure(decision, 404, messages.project.notFound);
        expect((await t.request({ url: `/api/projects/${id}`, token: owner.token })).statusCode).toBe(404);
      }
    });

    it('deletes a project once when asked many times at once; every repeat by its owner is a success', async () => {
      const owner = await t.createUser();
      const { id } = (await uploadProject(t, owner.token, { name: '重复删除', files: SIMPLE_SITE })).json()
        .data.project;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token }),
        ),
      );
      // A delete repeated by the account that made it (a retry, docs/decisions/uploads.md "A committed delete
      // answers success") is not an error; it deletes nothing more.
      expect(statuses(answers)).toEqual([200, 200, 200, 200, 200]);
      expect(await auditEntries(t, { action: 'project.delete', targetId: id })).toHaveLength(1);
    });
  });
});
