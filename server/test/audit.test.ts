/**
 * The audit log (review issue item 3): every admin action, every sign-in success and failure,
 * password resets, role changes, setting changes, uploads and deletions are recorded with actor,
 * target, time and IP; the application offers no way to change or remove an entry.
 */
import { AUDIT_ACTIONS, isAuditAction } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  auditEntries,
  createTestApp,
  multipart,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Calls the API from a given address, so each entry's IP can be checked. */
async function call(ip: string, opts: { method?: string; url: string; token?: string; body?: unknown }) {
  const res = await t.request({ ...opts, ip });
  if (res.statusCode >= 400) throw new Error(`${opts.url}: ${res.statusCode} ${res.body}`);
  return res;
}

/** The newest entry of an action, checked for actor, target, IP and a recent time. */
async function expectEntry(
  action: string,
  expected: { actor: string | null; targetType: string; targetId: number | null; ip: string },
) {
  const entries = await auditEntries(t, { action });
  const entry = entries.at(-1);
  expect(entry, action).toBeDefined();
  expect(entry, action).toMatchObject({
    actor_name: expected.actor,
    target_type: expected.targetType,
    target_id: expected.targetId === null ? null : String(expected.targetId),
    ip: expected.ip,
  });
  expect(Date.now() - Date.parse(entry!.created_at), action).toBeLessThan(60_000);
  return { ...entry!, detail: entry!.detail ? JSON.parse(entry!.detail) : null };
}

describe('what is audited', () => {
  it('records sign-ins, account administration, projects, reviews, batches and settings', async () => {
    const admin = await t.adminToken();
    const user = await t.createUser({ username: 'audit_user' });
    const ip = (n: number) => `203.0.113.${n}`;

    // Sign-in success and failure.
    await t.request({
      method: 'POST',
      url: '/api/auth/login',
      body: { username: 'admin', password: 'nope' },
      ip: ip(1),
    });
    await expectEntry('auth.login_failed', { actor: null, targetType: 'user', targetId: 1, ip: ip(1) });
    const adminIp = (
      await call(ip(2), {
        method: 'POST',
        url: '/api/auth/login',
        body: { username: 'admin', password: ADMIN_PASSWORD },
      })
    ).json().data.token as string;
    await expectEntry('auth.login', { actor: 'admin', targetType: 'user', targetId: 1, ip: ip(2) });

    // Accounts: creation, role change, password reset, disabling.
    const created = (
      await call(ip(3), {
        method: 'POST',
        url: '/api/auth/register',
        token: adminIp,
        body: { username: 'audit_new' },
      })
    ).json().data.user.id as number;
    await expectEntry('user.create', { actor: 'admin', targetType: 'user', targetId: created, ip: ip(3) });
    await call(ip(4), {
      method: 'PATCH',
      url: `/api/admin/users/${created}`,
      token: admin,
      body: { role: 'admin' },
    });
    const role = await expectEntry('user.role_change', {
      actor: 'admin',
      targetType: 'user',
      targetId: created,
      ip: ip(4),
    });
    expect(role.detail).toEqual({ from: 'user', to: 'admin' });
    await call(ip(5), { method: 'POST', url: `/api/admin/users/${created}/reset-password`, token: admin });
    const reset = await expectEntry('user.password_reset', {
      actor: 'admin',
      targetType: 'user',
      targetId: created,
      ip: ip(5),
    });
    expect(JSON.stringify(reset)).not.toMatch(/password":/);
    await call(ip(6), {
      method: 'PATCH',
      url: `/api/admin/users/${created}`,
      token: admin,
      body: { disabled: true },
    });
    await expectEntry('user.disable', { actor: 'admin', targetType: 'user', targetId: created, ip: ip(6) });

    // Uploads, edits, versions, downloads, previews.
    const { payload, headers } = await multipart({ project_name: '审计上传' }, SIMPLE_SITE);
    const up = await t.request({
      method: 'POST',
      url: '/api/projects/upload',
      token: user.token,
      payload,
      headers,
      ip: ip(7),
    });
    expect(up.statusCode).toBe(201);
    const id = up.json().data.project.id as number;
    const upload = await expectEntry('project.upload', {
      actor: 'audit_user',
      targetType: 'project',
      targetId: id,
      ip: ip(7),
    });
    expect(upload.detail).toMatchObject({ files: 2, bytes: expect.any(Number) });
    await call(ip(8), {
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: user.token,
      body: { description: '新的描述' },
    });
    await expectEntry('project.update', {
      actor: 'audit_user',
      targetType: 'project',
      targetId: id,
      ip: ip(8),
    });
    await call(ip(9), { method: 'POST', url: `/api/projects/${id}/preview-token`, token: user.token });
    await expectEntry('project.preview_link', {
      actor: 'audit_user',
      targetType: 'project',
      targetId: id,
      ip: ip(9),
    });

    // Every review decision, with the states it moved between and the comment.
    const decisions: Array<[string, string | undefined, string, string]> = [
      ['approve', undefined, 'pending', 'approved'],
      ['publish', undefined, 'approved', 'published'],
      ['unpublish', undefined, 'published', 'approved'],
      ['takedown', '违规', 'approved', 'taken_down'],
    ];
    for (const [i, [action, comment, from, to]] of decisions.entries()) {
      await call(ip(20 + i), {
        method: 'POST',
        url: `/api/admin/projects/${id}/review`,
        token: admin,
        body: { action, ...(comment ? { comment } : {}) },
      });
      const entry = await expectEntry(`review.${action}`, {
        actor: 'admin',
        targetType: 'project',
        targetId: id,
        ip: ip(20 + i),
      });
      // With the version it was on (the only one here): a project has several.
      expect(entry.detail).toEqual({ from, to, comment: comment ?? null, version: 1 });
    }
    const v2 = await uploadProject(t, user.token, { projectId: id, files: SIMPLE_SITE });
    expect(v2.statusCode).toBe(200);
    await expectEntry('project.new_version', {
      actor: 'audit_user',
      targetType: 'project',
      targetId: id,
      ip: '127.0.0.1',
    });
    await call(ip(30), {
      method: 'POST',
      url: `/api/admin/projects/${id}/review`,
      token: admin,
      body: { action: 'reject', comment: '仍有问题' },
    });
    const reject = await expectEntry('review.reject', {
      actor: 'admin',
      targetType: 'project',
      targetId: id,
      ip: ip(30),
    });
    expect(reject.detail).toEqual({ from: 'pending', to: 'rejected', comment: '仍有问题', version: 2 });

    // Rollback and admin download.
    const live = await uploadProject(t, user.token, { name: '回滚审计', files: SIMPLE_SITE });
    const liveId = live.json().data.project.id as number;
    await call(ip(31), {
      method: 'POST',
      url: `/api/admin/projects/${liveId}/review`,
      token: admin,
      body: { action: 'approve' },
    });
    await uploadProject(t, user.token, { projectId: liveId, files: [{ name: 'index.html', content: 'v2' }] });
    await call(ip(32), {
      method: 'POST',
      url: `/api/admin/projects/${liveId}/review`,
      token: admin,
      body: { action: 'approve' },
    });
    const v1 = (await call(ip(33), { url: `/api/projects/${liveId}`, token: user.token }))
      .json()
      .data.project.deployments.at(-1);
    await call(ip(34), {
      method: 'POST',
      url: `/api/projects/${liveId}/rollback`,
      token: user.token,
      body: { deployment_id: v1.id },
    });
    const rollback = await expectEntry('project.rollback', {
      actor: 'audit_user',
      targetType: 'project',
      targetId: liveId,
      ip: ip(34),
    });
    expect(rollback.detail).toEqual({ version: 1 });
    await call(ip(35), { url: `/api/admin/projects/${liveId}/download`, token: admin });
    await expectEntry('project.download', {
      actor: 'admin',
      targetType: 'project',
      targetId: liveId,
      ip: ip(35),
    });

    // A batch records one entry per project it changed, none for those it refused.
    const before = (await auditEntries(t, { action: 'review.takedown' })).length;
    const batch = await call(ip(40), {
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: admin,
      body: { projectIds: [liveId, id], action: 'takedown', data: { comment: '批量' } },
    });
    // The first project is live and goes offline; the second is not live, so it is refused.
    expect(batch.json().data).toMatchObject({ succeeded: 1, failed: 1 });
    const takedowns = (await auditEntries(t, { action: 'review.takedown' })).slice(before);
    expect(takedowns.map((e) => [e.target_id, e.ip])).toEqual([[String(liveId), ip(40)]]);

    // Deletion (by batch and by the owner), and settings.
    await call(ip(41), {
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: admin,
      body: { projectIds: [liveId], action: 'delete', data: { comment: '批量删除原因' } },
    });
    const deleted = await expectEntry('project.delete', {
      actor: 'admin',
      targetType: 'project',
      targetId: liveId,
      ip: ip(41),
    });
    // The reason the owner was told is kept with the deletion.
    expect(deleted.detail).toEqual({ name: '回滚审计', owner: 'audit_user', comment: '批量删除原因' });
    await call(ip(42), { method: 'DELETE', url: `/api/projects/${id}`, token: user.token });
    await expectEntry('project.delete', {
      actor: 'audit_user',
      targetType: 'project',
      targetId: id,
      ip: ip(42),
    });
    await call(ip(43), {
      method: 'PUT',
      url: '/api/admin/config',
      token: admin,
      body: { preview_ttl_seconds: 900 },
    });
    const config = await expectEntry('config.update', {
      actor: 'admin',
      targetType: 'config',
      targetId: null,
      ip: ip(43),
    });
    expect(config.detail).toEqual({ preview_ttl_seconds: { from: 1800, to: 900 } });

    // Every action recorded is one of the typed actions, about the target its descriptor names.
    for (const e of await auditEntries(t)) {
      expect(isAuditAction(e.action), e.action).toBe(true);
      if (isAuditAction(e.action)) expect(e.target_type, e.action).toBe(AUDIT_ACTIONS[e.action].target);
    }
  });
});

describe('append-only', () => {
  it('offers no API call that changes or removes entries, and entries outlive what they name', async () => {
    const auditRoutes = t.app.apiRoutes.filter((r) => r.url.includes('audit') && r.method !== 'HEAD');
    expect(auditRoutes.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/admin/audit-logs']);
    for (const method of ['DELETE', 'PUT', 'PATCH', 'POST']) {
      const res = await t.request({
        method,
        url: '/api/admin/audit-logs',
        token: await t.adminToken(),
        body: {},
      });
      expect(res.statusCode, method).toBe(404);
    }
    const user = await t.createUser({ username: 'short_lived' });
    await t.login(user.username, user.password);
    await t.request({ method: 'DELETE', url: `/api/admin/users/${user.id}`, token: await t.adminToken() });
    const entries = await auditEntries(t, { targetId: user.id });
    expect(entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['user.create', 'auth.login', 'user.delete']),
    );
  });
});
