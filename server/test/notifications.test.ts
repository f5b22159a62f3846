/**
 * Notices (docs/notifications.md): who is told of what, under the bell and by e-mail through a
 * real SMTP server started here; the outbox survives a mail server that is down, and never holds
 * up the action; each account reads and marks only its own notices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as outbox from '../src/repositories/mail-outbox.js';
import { createTestApp, liveProject, review, SIMPLE_SITE, type TestApp, uploadProject } from './helpers.js';
import { freePort, startSmtp, type TestSmtp } from './support/smtp.js';

type Notice = { id: number; kind: string; title: string; reason: string | null; read: boolean; link: string };

async function notices(t: TestApp, token: string, query = ''): Promise<{ list: Notice[]; unread: number }> {
  const res = await t.request({ url: `/api/notifications${query}`, token });
  expect(res.statusCode).toBe(200);
  return { list: res.json().data.notifications, unread: res.json().data.unread_count };
}

const fastMail = (smtpUrl: string) => ({
  smtpUrl,
  from: '站点展厅 <hall@example.test>',
  publicUrl: 'https://hall.example.test',
  pollMs: 100,
  retryBaseMs: 100,
  maxAttempts: 50,
});

describe('notices under the bell', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('tells the owner of approval, a new version live, rejection and takedown with the reason, and a rollback', async () => {
    const { id, owner } = await liveProject(t, SIMPLE_SITE, { name: '通知站点' });
    let seen = await notices(t, owner.token);
    expect(seen.list.map((n) => n.kind)).toEqual(['approved']);
    expect(seen.list[0]).toMatchObject({
      title: '「通知站点」审核通过，已上线',
      link: `/projects/${id}`,
      read: false,
    });

    await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<p>v2</p>' }],
    });
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<p>v3</p>' }],
    });
    expect((await review(t, id, 'reject', '图片侵权')).statusCode).toBe(200);
    const versions = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project
      .deployments as { id: number; version: number }[];
    const v1 = versions.find((d) => d.version === 1)!;
    const admin = await t.adminToken();
    const back = await t.request({
      method: 'POST',
      url: `/api/projects/${id}/rollback`,
      token: admin,
      body: { deployment_id: v1.id },
    });
    expect(back.statusCode).toBe(200);
    expect((await review(t, id, 'takedown', '违反平台规定')).statusCode).toBe(200);

    seen = await notices(t, owner.token);
    expect(seen.list.map((n) => [n.kind, n.title, n.reason])).toEqual([
      ['taken_down', '「通知站点」已被管理员下线', '违反平台规定'],
      ['rolled_back', '「通知站点」已回滚到第 1 版', null],
      ['rejected', '「通知站点」第 3 版未通过审核', '图片侵权'],
      ['version_live', '「通知站点」第 2 版审核通过，已上线', null],
      ['approved', '「通知站点」审核通过，已上线', null],
    ]);
    expect(seen.unread).toBe(5);
  });

  it('does not tell an owner of what they did themselves (their own rollback)', async () => {
    const { id, owner } = await liveProject(t);
    await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<p>b</p>' }],
    });
    await review(t, id, 'approve');
    const deployments = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data
      .project.deployments as { id: number; version: number }[];
    const res = await t.request({
      method: 'POST',
      url: `/api/projects/${id}/rollback`,
      token: owner.token,
      body: { deployment_id: deployments.find((d) => d.version === 1)!.id },
    });
    expect(res.statusCode).toBe(200);
    expect((await notices(t, owner.token)).list.map((n) => n.kind)).toEqual(['version_live', 'approved']);
  });

  it('tells the owner when an admin deletes the project, with the reason, and leads nowhere; not an owner who deletes it', async () => {
    const { id, owner } = await liveProject(t, SIMPLE_SITE, { name: '被删站点' });
    const admin = await t.adminToken();
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: admin,
      body: { projectIds: [id], action: 'delete', data: { comment: '长期无人维护' } },
    });
    expect(res.json().data.succeeded).toBe(1);
    const seen = await notices(t, owner.token);
    expect(seen.list.map((n) => [n.kind, n.title, n.reason, n.link])).toEqual([
      ['deleted', '「被删站点」已被管理员删除', '长期无人维护', null],
      ['approved', '「被删站点」审核通过，已上线', null, `/projects/${id}`],
    ]);

    const own = await liveProject(t, SIMPLE_SITE, { name: '自己删' });
    const gone = await t.request({
      method: 'DELETE',
      url: `/api/projects/${own.id}`,
      token: own.owner.token,
    });
    expect(gone.statusCode).toBe(200);
    expect((await notices(t, own.owner.token)).list.map((n) => n.kind)).toEqual(['approved']);
  });

  it('tells the owner the reason an admin gave when deleting the project on its own (DELETE with comment)', async () => {
    const { id, owner } = await liveProject(t, SIMPLE_SITE, { name: '单个删除' });
    const admin = await t.adminToken();
    // Too long, or not text: 400 with the reason named, and the project stays.
    for (const comment of ['长'.repeat(1001), 12]) {
      const bad = await t.request({
        method: 'DELETE',
        url: `/api/projects/${id}`,
        token: admin,
        body: { comment },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe(
        typeof comment === 'string' ? '删除原因不能超过1000个字符' : '删除原因应为文字',
      );
    }
    const res = await t.request({
      method: 'DELETE',
      url: `/api/projects/${id}`,
      token: admin,
      body: { comment: '  含有侵权内容  ' },
    });
    expect(res.statusCode).toBe(200);
    expect((await notices(t, owner.token)).list.map((n) => [n.kind, n.title, n.reason, n.link])).toEqual([
      ['deleted', '「单个删除」已被管理员删除', '含有侵权内容', null],
      ['approved', '「单个删除」审核通过，已上线', null, `/projects/${id}`],
    ]);

    // Without a body, as before: told, with no reason.
    const other = await liveProject(t, SIMPLE_SITE, { name: '无原因' });
    const plain = await t.request({ method: 'DELETE', url: `/api/projects/${other.id}`, token: admin });
    expect(plain.statusCode).toBe(200);
    expect((await notices(t, other.owner.token)).list[0]).toMatchObject({ kind: 'deleted', reason: null });
  });

  it('tells every other admin of a new upload once per project until read, not the uploading admin', async () => {
    const second = await t.createUser({ role: 'admin' });
    const admin = await t.adminToken();
    const before = (await notices(t, second.token)).list.length;
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, { name: '待审站点', files: SIMPLE_SITE });
    const id = up.json().data.project.id as number;
    for (const content of ['<p>2</p>', '<p>3</p>'])
      await uploadProject(t, owner.token, { projectId: id, files: [{ name: 'index.html', content }] });
    let seen = await notices(t, second.token);
    const mine = seen.list.filter((n) => n.link === `/admin/reviews/${id}`);
    expect(mine.map((n) => n.title)).toEqual(['「待审站点」第 3 版等待审核']);
    expect(seen.list.length).toBe(before + 1);
    expect((await notices(t, admin)).list.filter((n) => n.link === `/admin/reviews/${id}`)).toHaveLength(1);

    // Read: the next version is a notice of its own.
    const read = await t.request({
      method: 'POST',
      url: `/api/notifications/${mine[0]!.id}/read`,
      token: second.token,
    });
    expect(read.json().data.marked).toBe(1);
    await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<p>4</p>' }],
    });
    seen = await notices(t, second.token);
    expect(seen.list.filter((n) => n.link === `/admin/reviews/${id}`).map((n) => [n.title, n.read])).toEqual([
      ['「待审站点」第 4 版等待审核', false],
      ['「待审站点」第 3 版等待审核', true],
    ]);
    // Decided, by any admin: no longer waiting, so read for every admin (the bell counts what waits).
    const unreadBefore = (await notices(t, second.token)).unread;
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    seen = await notices(t, second.token);
    expect(seen.list.filter((n) => n.link === `/admin/reviews/${id}`).map((n) => n.read)).toEqual([
      true,
      true,
    ]);
    expect(seen.unread).toBe(unreadBefore - 1);
    expect((await notices(t, admin)).list.find((n) => n.link === `/admin/reviews/${id}`)?.read).toBe(true);

    // An admin's own upload tells the other admins, not the uploader.
    const own = await uploadProject(t, second.token, { name: '管理员站点', files: SIMPLE_SITE });
    const ownId = own.json().data.project.id;
    expect((await notices(t, second.token)).list.some((n) => n.link === `/admin/reviews/${ownId}`)).toBe(
      false,
    );
    expect((await notices(t, admin)).list.some((n) => n.link === `/admin/reviews/${ownId}`)).toBe(true);
  });

  it("reads every admin's notice of a project's uploads once the project is taken down or deleted: nothing waits", async () => {
    const second = await t.createUser({ role: 'admin' });
    const waiting = async (id: number) =>
      (await notices(t, second.token)).list.filter((n) => n.link === `/admin/reviews/${id}` && !n.read);
    // Live at v1, v2 waiting; taken down (which rejects v2 too).
    const live = await liveProject(t, SIMPLE_SITE);
    await uploadProject(t, live.owner.token, {
      projectId: live.id,
      files: [{ name: 'index.html', content: '<p>v2</p>' }],
    });
    expect(await waiting(live.id)).toHaveLength(1);
    expect((await review(t, live.id, 'takedown', '下线')).statusCode).toBe(200);
    expect(await waiting(live.id)).toEqual([]);
    // Pending, deleted by its owner, and by an admin.
    for (const by of ['owner', 'admin'] as const) {
      const owner = await t.createUser();
      const id = (await uploadProject(t, owner.token, { name: `待删-${by}`, files: SIMPLE_SITE })).json().data
        .project.id as number;
      expect(await waiting(id)).toHaveLength(1);
      const token = by === 'owner' ? owner.token : await t.adminToken();
      expect((await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token })).statusCode).toBe(200);
      expect(await waiting(id), by).toEqual([]);
    }
  });

  it("reads a demoted admin's notices of waiting uploads: it can no longer open them", async () => {
    const second = await t.createUser({ role: 'admin' });
    const owner = await t.createUser();
    const id = (await uploadProject(t, owner.token, { name: '降级前的待审', files: SIMPLE_SITE })).json().data
      .project.id as number;
    const waiting = async () =>
      (await notices(t, second.token)).list.filter((n) => n.link === `/admin/reviews/${id}` && !n.read);
    expect(await waiting()).toHaveLength(1);
    const secondId = (await t.request({ url: '/api/auth/profile', token: second.token })).json().data.user.id;
    const demoted = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${secondId}`,
      token: await t.adminToken(),
      body: { role: 'user' },
    });
    expect(demoted.statusCode).toBe(200);
    expect(await waiting()).toEqual([]);
    // The other admins still have theirs.
    expect(
      (await notices(t, await t.adminToken())).list.some((n) => n.link === `/admin/reviews/${id}` && !n.read),
    ).toBe(true);
  });

  it('reads, marks read and marks all read for the signed-in account only', async () => {
    const { owner } = await liveProject(t);
    const other = await t.createUser();
    const [notice] = (await notices(t, owner.token)).list;
    // Another account can neither see nor mark it: the same 404 as a missing notice.
    expect((await notices(t, other.token)).list).toEqual([]);
    const foreign = await t.request({
      method: 'POST',
      url: `/api/notifications/${notice!.id}/read`,
      token: other.token,
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('通知不存在');
    expect(
      (await t.request({ method: 'POST', url: '/api/notifications/read-all', token: other.token })).json()
        .data.marked,
    ).toBe(0);
    expect((await notices(t, owner.token)).unread).toBe(1);
    expect((await t.request({ url: '/api/notifications', token: '' })).statusCode).toBe(401);

    const count = await t.request({ url: '/api/notifications/unread-count', token: owner.token });
    expect(count.json().data.unread_count).toBe(1);
    const all = await t.request({ method: 'POST', url: '/api/notifications/read-all', token: owner.token });
    expect(all.json()).toMatchObject({ success: true, message: '已全部标为已读', data: { marked: 1 } });
    const after = await notices(t, owner.token);
    expect(after.unread).toBe(0);
    expect(after.list.every((n) => n.read)).toBe(true);
    expect((await notices(t, owner.token, '?unread=1')).list).toEqual([]);
    // Marking a read notice again changes nothing and is no error.
    const again = await t.request({
      method: 'POST',
      url: `/api/notifications/${notice!.id}/read`,
      token: owner.token,
    });
    expect(again.json().data.marked).toBe(0);
  });
});

describe('notices by e-mail through a real SMTP server', () => {
  let smtp: TestSmtp;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await createTestApp({ mail: fastMail(smtp.url) });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('mails the owner the notice with its reason and link; nothing reaches a header from a name or reason', async () => {
    // The profile page learns that notices go out by e-mail on this server.
    const config = await t.request({ url: '/api/config/public' });
    expect(config.json().data.mail_enabled).toBe(true);
    const owner = await t.createUser({ email: 'owner@example.test' });
    const up = await uploadProject(t, owner.token, {
      name: '邮件站点 Bcc: evil@example.test',
      files: SIMPLE_SITE,
    });
    const id = up.json().data.project.id as number;
    const res = await review(t, id, 'reject', '图片侵权\r\nBcc: evil@example.test\r\n\r\n伪造正文');
    expect(res.statusCode).toBe(200);
    await expect
      .poll(() => smtp.received.filter((m) => m.to.includes('owner@example.test')).length, {
        timeout: 60_000,
      })
      .toBe(1);
    const mail = smtp.received.find((m) => m.to.includes('owner@example.test'))!;
    expect(mail.to).toEqual(['owner@example.test']);
    expect(mail.from).toBe('hall@example.test');
    expect(mail.subject).toBe('[站点展厅] 「邮件站点 Bcc: evil@example.test」第 1 版未通过审核');
    expect(mail.headers.map(([n]) => n)).not.toContain('bcc');
    expect(mail.text).toContain('原因：图片侵权');
    expect(mail.text).toContain(`查看：https://hall.example.test/projects/${id}`);
    expect(mail.text).toContain('个人设置');
  });

  it('sends nothing to an account that turned e-mail off on its profile', async () => {
    const owner = await t.createUser({ email: 'quiet@example.test' });
    const off = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: owner.token,
      body: { email_notifications: false },
    });
    expect(off.statusCode).toBe(200);
    expect(off.json().data.user.email_notifications).toBe(false);
    const bad = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: owner.token,
      body: { email_notifications: 'no' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.email_notifications).toBe('邮件通知设置必须是开或关');
    const { id } = await liveProject(t, SIMPLE_SITE, { owner });
    // A second owner's mail, sent after: once it arrived, the first would have too.
    const loud = await t.createUser({ email: 'loud@example.test' });
    await liveProject(t, SIMPLE_SITE, { owner: loud });
    await expect
      .poll(() => smtp.received.some((m) => m.to.includes('loud@example.test')), { timeout: 60_000 })
      .toBe(true);
    expect(smtp.received.some((m) => m.to.includes('quiet@example.test'))).toBe(false);
    // The notice is still under the bell.
    expect((await notices(t, owner.token)).list[0]).toMatchObject({
      kind: 'approved',
      link: `/projects/${id}`,
    });
  });

  it('an outbox row is claimed by one sender only', async () => {
    const user = await t.createUser();
    const at = new Date(Date.now() - 60_000).toISOString();
    await outbox.enqueue(t.ctx.db, { user_id: user.id, subject: 's', body: 'b' }, at);
    const now = new Date().toISOString();
    const until = new Date(Date.now() + 60_000).toISOString();
    // The app's own worker may take it too: of three claimants at most one wins.
    const taken = await Promise.all([
      outbox.take(t.ctx.db, 'a', now, until),
      outbox.take(t.ctx.db, 'b', now, until),
    ]);
    const ids = taken.filter((r) => r?.user_id === user.id);
    expect(ids.length).toBeLessThanOrEqual(1);
  });
});

describe('a mail server that is down', () => {
  it('never holds up the action; the outbox delivers once the server is back', async () => {
    const port = await freePort();
    const t = await createTestApp({ mail: fastMail(`smtp://127.0.0.1:${port}`) });
    let smtp: TestSmtp | undefined;
    try {
      const owner = await t.createUser({ email: 'patient@example.test' });
      const { id } = await liveProject(t, SIMPLE_SITE, { owner, name: '耐心站点' });
      expect((await notices(t, owner.token)).list[0]?.kind).toBe('approved');
      // Tried and failed: still queued, with the reason and a later time for the next try.
      await expect
        .poll(
          async () =>
            (
              await t.ctx.db
                .selectFrom('mail_outbox')
                .selectAll()
                .where('user_id', '=', owner.id)
                .executeTakeFirst()
            )?.attempts ?? 0,
          { timeout: 60_000 },
        )
        .toBeGreaterThan(0);
      const row = await t.ctx.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('user_id', '=', owner.id)
        .executeTakeFirstOrThrow();
      expect(['queued', 'sending']).toContain(row.status);
      smtp = await startSmtp(port);
      await expect.poll(() => smtp!.received.length, { timeout: 60_000 }).toBe(1);
      expect(smtp.received[0]!.subject).toBe('[站点展厅] 「耐心站点」审核通过，已上线');
      await expect
        .poll(
          async () =>
            (
              await t.ctx.db
                .selectFrom('mail_outbox')
                .select('status')
                .where('user_id', '=', owner.id)
                .executeTakeFirst()
            )?.status,
        )
        .toBe('sent');
      expect(id).toBeGreaterThan(0);
    } finally {
      await t.close();
      await smtp?.close();
    }
  });
});
