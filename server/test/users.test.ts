/** Account administration under /api/admin/users: list, change, reset password, delete. */
import { messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  loginAttempt,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

const m = messages.auth;

let t: TestApp;
let admin: string;
let adminId: number;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  adminId = (await t.request({ url: '/api/auth/profile', token: admin })).json().data.user.id;
});
afterAll(() => t.close());

const list = (query: string, token = admin) => t.request({ url: `/api/admin/users${query}`, token });
const patch = (id: number | string, body: unknown, token = admin) =>
  t.request({ method: 'PATCH', url: `/api/admin/users/${id}`, token, body });
const resetPassword = (id: number | string, token = admin) =>
  t.request({ method: 'POST', url: `/api/admin/users/${id}/reset-password`, token });
const remove = (id: number | string, token = admin) =>
  t.request({ method: 'DELETE', url: `/api/admin/users/${id}`, token });
const profile = (token: string) => t.request({ url: '/api/auth/profile', token });
const userRow = (id: number) =>
  t.ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

/** A project row owned by the user, written straight to the table. */
async function giveProject(t: TestApp, ownerId: number) {
  const at = new Date().toISOString();
  await t.ctx.db
    .insertInto('projects')
    .values({
      owner_id: ownerId,
      name: '某个项目',
      description: null,
      status: 'pending',
      is_public: 1,
      live_deployment_id: null,
      latest_deployment_id: null,
      view_count: 0,
      download_count: 0,
      approved_at: null,
      approved_by: null,
      published_at: null,
      created_at: at,
      updated_at: at,
      search_text: '某个项目',
    })
    .execute();
}

describe('list', () => {
  let ids: Record<string, number>;
  beforeAll(async () => {
    ids = {};
    for (const [username, email] of [
      ['listx_alpha', 'alpha@listx-mail.test'],
      ['listx_beta', undefined],
      ['listx_gamma', 'gamma@listx-mail.test'],
      ['listxzdelta', undefined],
      ['测试用户甲', 'jia@example.com'],
    ] as const) {
      ids[username] = (await t.createUser({ username, email })).id;
    }
    await giveProject(t, ids.listx_beta!);
    await giveProject(t, ids.listx_beta!);
  });

  it('pages through a search on username substrings, in creation order', async () => {
    let res = await list('?search=LISTX_&page_size=2');
    expect(res.statusCode).toBe(200);
    let data = res.json().data;
    expect(data.users.map((u: { username: string }) => u.username)).toEqual(['listx_alpha', 'listx_beta']);
    expect(data.pagination).toEqual({ current_page: 1, total_pages: 2, total_count: 3, page_size: 2 });
    res = await list('?search=listx_&page_size=2&page=2');
    data = res.json().data;
    expect(data.users.map((u: { username: string }) => u.username)).toEqual(['listx_gamma']);
    expect(data.pagination).toMatchObject({ current_page: 2, total_count: 3 });
    // Past the end: an empty page, not an error.
    res = await list('?search=listx_&page_size=2&page=9');
    expect(res.json().data.users).toEqual([]);
  });

  it('treats % and _ as plain characters, and matches emails and Chinese substrings', async () => {
    // '_' is not a wildcard: listxzdelta does not match 'listx_'.
    const names = async (q: string) =>
      (await list(q)).json().data.users.map((u: { username: string }) => u.username);
    expect(await names('?search=listx_')).not.toContain('listxzdelta');
    expect(await names('?search=%25')).toEqual([]);
    expect(await names(`?search=${encodeURIComponent('listx-mail')}`)).toEqual([
      'listx_alpha',
      'listx_gamma',
    ]);
    expect(await names(`?search=${encodeURIComponent('用户')}`)).toEqual(['测试用户甲']);
    expect(await names(`?search=${encodeURIComponent('户甲')}`)).toEqual(['测试用户甲']);
  });

  it('shows project counts and never a password hash', async () => {
    const res = await list('?search=listx_beta');
    expect(res.json().data.users[0]).toMatchObject({ id: ids.listx_beta, role: 'user', project_count: 2 });
    // Nothing of the password but whether it is still the generated one (password_initial).
    expect(res.body.replaceAll('"password_initial":', '')).not.toMatch(/password|argon2/);
  });

  it('filters by role', async () => {
    const res = await list('?role=admin&page_size=100');
    const users = res.json().data.users as Array<{ role: string; username: string }>;
    expect(users.length).toBeGreaterThan(0);
    expect(users.every((u) => u.role === 'admin')).toBe(true);
    expect(users.map((u) => u.username)).toContain('admin');
  });

  it('validates the query in Chinese', async () => {
    expectFailure(await list('?page=0'), 400, messages.common.pageInvalid);
    expectFailure(await list('?page=abc'), 400, messages.common.pageInvalid);
    expectFailure(await list('?page=1e308'), 400, messages.common.pageInvalid);
    expectFailure(await list('?page=1.5'), 400, messages.common.pageInvalid);
    expectFailure(await list('?page_size=101'), 400, '每页数量必须在1到100之间');
    expectFailure(await list(`?search=${'x'.repeat(101)}`), 400, messages.common.searchInvalid);
    expectFailure(await list('?search=a%00b'), 400, messages.common.searchInvalid);
    expectFailure(await list('?search=a&search=b'), 400, messages.common.searchInvalid);
    expectFailure(await list('?role=root'), 400, m.roleInvalid);
  });

  it('is for administrators only', async () => {
    const u = await t.createUser();
    expectFailure(await list('', u.token), 403, messages.common.adminOnly);
    expectFailure(await t.request({ url: '/api/admin/users' }), 401);
  });
});

describe('roles', () => {
  it('reads the role from the database on every request', async () => {
    const u = await t.createUser();
    expectFailure(await list('', u.token), 403);

    const res = await patch(u.id, { role: 'admin' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      message: m.userUpdated,
      data: { user: { role: 'admin' } },
    });
    // The same token, unchanged, now reaches admin routes...
    expect((await list('', u.token)).statusCode).toBe(200);
    // ...and loses them as soon as the role is taken away.
    expect((await patch(u.id, { role: 'user' })).statusCode).toBe(200);
    expectFailure(await list('', u.token), 403);
    expect((await profile(u.token)).statusCode).toBe(200);

    const entries = await auditEntries(t, { action: 'user.role_change', targetId: u.id });
    expect(entries.map((e) => JSON.parse(e.detail!))).toEqual([
      { from: 'user', to: 'admin' },
      { from: 'admin', to: 'user' },
    ]);
    expect(entries[0]).toMatchObject({ actor_id: adminId, actor_name: 'admin', ip: '127.0.0.1' });
  });

  it('refuses invalid roles and unknown or mistyped fields', async () => {
    const u = await t.createUser();
    let body = expectFailure(await patch(u.id, { role: 'root' }), 400, m.roleInvalid);
    expect(body.errors).toEqual({ role: m.roleInvalid });
    body = expectFailure(await patch(u.id, { disabled: 'yes' }), 400, m.disabledInvalid);
    expect(body.errors).toEqual({ disabled: m.disabledInvalid });
    body = expectFailure(await patch(u.id, { username: 'other' }), 400);
    expect(Object.keys(body.errors!)).toEqual(['username']);
    body = expectFailure(await patch(u.id, { password_hash: 'x', role: 'admin' }), 400);
    expect(Object.keys(body.errors!)).toEqual(['password_hash']);
    expect(await userRow(u.id)).toMatchObject({ role: 'user', username: u.username });
  });

  it('does not let an admin demote, disable, delete or reset the password of themselves', async () => {
    let body = expectFailure(await patch(adminId, { role: 'user' }), 409, m.cannotChangeOwnRole);
    expect(body.errors).toEqual({ role: m.cannotChangeOwnRole });
    body = expectFailure(await patch(adminId, { disabled: true }), 409, m.cannotDisableSelf);
    expect(body.errors).toEqual({ disabled: m.cannotDisableSelf });
    expectFailure(await remove(adminId), 409, m.cannotDeleteSelf);
    // Their own password is changed on the profile, with the current one: a stolen session gets no
    // new password here, and the owner's other sessions live on.
    const before = await userRow(adminId);
    expectFailure(await resetPassword(adminId), 409, m.cannotResetOwnPassword);
    expect(await userRow(adminId)).toMatchObject({
      role: 'admin',
      disabled: 0,
      password_hash: before?.password_hash,
    });
    expect((await t.request({ method: 'GET', url: '/api/auth/profile', token: admin })).statusCode).toBe(200);
    // A no-op on oneself is fine.
    expect((await patch(adminId, { role: 'admin', disabled: false })).statusCode).toBe(200);
  });

  it('answers 404 for a missing or malformed user id', async () => {
    for (const id of ['999999', 'abc', '0', '-1', '1.5', '99999999999']) {
      expectFailure(await patch(id, { role: 'user' }), 404, m.userNotFound);
      expectFailure(await resetPassword(id), 404, m.userNotFound);
      expectFailure(await remove(id), 404, m.userNotFound);
    }
  });
});

describe('the last enabled administrator', () => {
  // Its own app: these tests take administrators away.
  let t2: TestApp;
  let a: { id: number; token: string };
  let b: { id: number; token: string };
  beforeAll(async () => {
    t2 = await createTestApp();
    const token = await t2.adminToken();
    a = { id: (await t2.request({ url: '/api/auth/profile', token })).json().data.user.id, token };
    const second = await t2.createUser({ username: 'second_admin', role: 'admin' });
    b = { id: second.id, token: second.token };
  });
  afterAll(() => t2.close());

  const enabledAdmins = async () =>
    (
      await t2.ctx.db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'admin')
        .where('disabled', '=', 0)
        .execute()
    ).map((r) => r.id);

  /** Both admins act on each other at the same moment; exactly one may win. */
  async function duel(method: string, suffix: string, body?: unknown) {
    const [x, y] = await Promise.all([
      t2.request({ method, url: `/api/admin/users/${b.id}${suffix}`, token: a.token, body }),
      t2.request({ method, url: `/api/admin/users/${a.id}${suffix}`, token: b.token, body }),
    ]);
    const statuses = [x.statusCode, y.statusCode];
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const res of [x, y].filter((r) => r.statusCode !== 200)) {
      // The loser either hits the guard or has already lost its admin rights (or its session).
      expect([401, 403, 409]).toContain(res.statusCode);
      if (res.statusCode === 409) expectFailure(res, 409, m.lastAdmin);
    }
    expect(await enabledAdmins()).toHaveLength(1);
    return (await enabledAdmins())[0]!;
  }

  /** Makes both accounts enabled admins again, with fresh tokens. */
  async function restore(winner: number) {
    const winnerToken = winner === a.id ? a.token : b.token;
    const loser = winner === a.id ? b : a;
    const res = await t2.request({
      method: 'PATCH',
      url: `/api/admin/users/${loser.id}`,
      token: winnerToken,
      body: { role: 'admin', disabled: false },
    });
    expect(res.statusCode).toBe(200);
    const pw = await t2.request({
      method: 'POST',
      url: `/api/admin/users/${loser.id}/reset-password`,
      token: winnerToken,
    });
    loser.token = await t2.login(pw.json().data.user.username, pw.json().data.password);
    expect(await enabledAdmins()).toHaveLength(2);
  }

  it('survives two admins demoting each other at once', async () => {
    await restore(await duel('PATCH', '', { role: 'user' }));
  });

  it('survives two admins disabling each other at once', async () => {
    await restore(await duel('PATCH', '', { disabled: true }));
  });

  it('survives two admins deleting each other at once', async () => {
    const winner = await duel('DELETE', '');
    expect(await t2.ctx.db.selectFrom('users').select('id').execute()).toHaveLength(1);
    expect(winner).toBeGreaterThan(0);
  });
});

describe('disable and enable', () => {
  it('signs a disabled account out everywhere and keeps it out until enabled', async () => {
    const u = await t.createUser();
    const second = await t.login(u.username, u.password);
    const res = await patch(u.id, { disabled: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user.disabled).toBe(true);
    expectFailure(await profile(u.token), 401, m.accountDisabled);
    expectFailure(await profile(second), 401, m.accountDisabled);
    // Its sessions are over: kept only to tell their holders why (docs/decisions.md).
    expect(
      await t.ctx.db
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', u.id)
        .where('ended_reason', 'is', null)
        .execute(),
    ).toHaveLength(0);
    expectFailure(await loginAttempt(t, u.username, u.password), 403, m.accountDisabled);

    expect((await patch(u.id, { disabled: false })).json().data.user.disabled).toBe(false);
    // Old sessions stay revoked; signing in works again.
    expectFailure(await profile(u.token), 401);
    expect((await profile(await t.login(u.username, u.password))).statusCode).toBe(200);

    expect((await auditEntries(t, { targetId: u.id })).map((e) => e.action)).toEqual(
      expect.arrayContaining(['user.create', 'user.disable', 'user.enable']),
    );
    const [disable] = await auditEntries(t, { action: 'user.disable', targetId: u.id });
    expect(disable).toMatchObject({ actor_id: adminId, ip: '127.0.0.1', target_type: 'user' });
  });
});

describe('email', () => {
  it('sets, clears and refuses a taken email', async () => {
    const u = await t.createUser();
    const other = await t.createUser({ email: 'someone@example.com' });
    expect((await patch(u.id, { email: 'Fresh@Example.com' })).json().data.user.email).toBe(
      'fresh@example.com',
    );
    const body = expectFailure(await patch(u.id, { email: 'someone@example.com' }), 409, m.emailTaken);
    expect(body.errors).toEqual({ email: m.emailTaken });
    expectFailure(await patch(u.id, { email: 'bad email' }), 400, m.emailInvalid);
    expect((await patch(u.id, { email: null })).json().data.user.email).toBeNull();
    expect((await patch(other.id, { email: '' })).json().data.user.email).toBeNull();
    expect(await auditEntries(t, { action: 'user.email_change', targetId: u.id })).toHaveLength(2);
  });
});

describe('reset password', () => {
  it('returns a new generated password once and signs the account out everywhere', async () => {
    const u = await t.createUser();
    const res = await resetPassword(u.id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, message: m.passwordReset, data: { user: { id: u.id } } });
    expect(body.data.password.length).toBeGreaterThanOrEqual(16);
    expectFailure(await profile(u.token), 401);
    expectFailure(await loginAttempt(t, u.username, u.password), 401);
    expect((await profile(await t.login(u.username, body.data.password))).statusCode).toBe(200);
    expect((await list(`?search=${u.username}`)).body).not.toContain(body.data.password);
    const [entry] = await auditEntries(t, { action: 'user.password_reset', targetId: u.id });
    expect(entry).toMatchObject({ actor_id: adminId, ip: '127.0.0.1' });
    expect(JSON.stringify(entry)).not.toContain(body.data.password);
  });

  it('lets the owner in at once even after failed sign-ins locked the account', async () => {
    const u = await t.createUser();
    for (let i = 0; i < 6; i++) await loginAttempt(t, u.username, `guess-${i}`, { ip: '10.2.0.1' });
    expectFailure(await loginAttempt(t, u.username, u.password, { ip: '10.2.0.1' }), 429);
    const { password } = (await resetPassword(u.id)).json().data;
    // From the very address that failed.
    const res = await loginAttempt(t, u.username, password, { ip: '10.2.0.1' });
    expect(res.statusCode).toBe(200);
  });

  it('is for administrators only', async () => {
    const u = await t.createUser();
    const victim = await t.createUser();
    expectFailure(await resetPassword(victim.id, u.token), 403);
    expectFailure(
      await t.request({ method: 'POST', url: `/api/admin/users/${victim.id}/reset-password` }),
      401,
    );
    expect((await profile(victim.token)).statusCode).toBe(200);
  });
});

describe('delete', () => {
  it('deletes an account with its sessions, and records who it was', async () => {
    const u = await t.createUser();
    const res = await remove(u.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: m.userDeleted });
    expect(await userRow(u.id)).toBeUndefined();
    expect(
      await t.ctx.db.selectFrom('sessions').select('id').where('user_id', '=', u.id).execute(),
    ).toHaveLength(0);
    expectFailure(await profile(u.token), 401);
    expectFailure(await remove(u.id), 404, m.userNotFound);
    const [entry] = await auditEntries(t, { action: 'user.delete', targetId: u.id });
    expect(entry).toMatchObject({ actor_id: adminId, actor_name: 'admin', ip: '127.0.0.1' });
    expect(JSON.parse(entry!.detail!)).toEqual({ username: u.username });
  });

  it('refuses with 409 while the user owns projects, and changes nothing', async () => {
    const u = await t.createUser();
    await giveProject(t, u.id);
    expectFailure(await remove(u.id), 409, m.userHasProjects);
    expect(await userRow(u.id)).toBeDefined();
    expect((await profile(u.token)).statusCode).toBe(200);
    expect(await auditEntries(t, { action: 'user.delete', targetId: u.id })).toHaveLength(0);
    // Disabling is the way out.
    expect((await patch(u.id, { disabled: true })).statusCode).toBe(200);
  });

  it('refuses with 409 when the account’s first upload commits while the delete waits, keeping both', async () => {
    const u = await t.createUser();
    // The upload's commit holds the account's row (its quota) from here to its end; the delete is
    // sent then and given time to reach the database. On PostgreSQL it counted no projects before
    // waiting for the row, then deleted the account, and with it the project just stored (the
    // upload answered 500); on SQLite the transactions run one after the other.
    const users = t.ctx.repositories.users;
    const lockQuota = users.lockQuota.bind(users);
    let deletion: ReturnType<typeof remove> | undefined;
    const lock = vi.spyOn(users, 'lockQuota').mockImplementation(async (trx, id) => {
      const own = await lockQuota(trx, id);
      if (id === u.id && deletion === undefined) {
        deletion = remove(u.id);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return own;
    });
    try {
      const up = await uploadProject(t, u.token, { name: '删号时上传', files: SIMPLE_SITE });
      expect(up.statusCode, up.body).toBe(201);
      expectFailure(await deletion!, 409, m.userHasProjects);
      expect(await userRow(u.id)).toBeDefined();
      const id = up.json().data.project.id as number;
      expect((await t.request({ url: `/api/projects/${id}`, token: u.token })).statusCode).toBe(200);
      expect(await auditEntries(t, { action: 'user.delete', targetId: u.id })).toHaveLength(0);
    } finally {
      lock.mockRestore();
    }
  });

  it('deletes other administrators, but is for administrators only', async () => {
    const other = await t.createUser({ role: 'admin' });
    const u = await t.createUser();
    expectFailure(await remove(other.id, u.token), 403);
    expectFailure(await t.request({ method: 'DELETE', url: `/api/admin/users/${other.id}` }), 401);
    expect((await remove(other.id)).statusCode).toBe(200);
  });
});
