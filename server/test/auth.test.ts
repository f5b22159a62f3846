/** Sign-in, sessions (bearer tokens), refresh, logout, the own profile and registration by admins. */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import {
  ADMIN_PASSWORD,
  auditEntries,
  createTestApp,
  expectFailure,
  freshDatabase,
  sessionToken,
  type TestApp,
  tempDir,
} from './helpers.js';

const m = messages.auth;
const HOUR = 3600_000;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const login = (body: unknown, ip?: string) => t.request({ method: 'POST', url: '/api/auth/login', body, ip });
const profile = (token: string) => t.request({ url: '/api/auth/profile', token });
const userRow = (id: number) =>
  t.ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const sessionsOf = (userId: number) =>
  t.ctx.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();

/** Milliseconds from now until an ISO time. */
const msUntil = (iso: string) => Date.parse(iso) - Date.now();

/** A 2 × 2 PNG, and the same with its header claiming another size (its pixels are never read). */
const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWPwd3vq7/aUAUIBACcOBelHopnCAAAAAElFTkSuQmCC';
const claiming = (width: number, height: number) => {
  const png = Buffer.from(TINY_PNG, 'base64');
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png.toString('base64');
};

describe('sign-in', () => {
  it('signs in by username (any case) and by email (any case) with the token, expiry and user', async () => {
    const u = await t.createUser({ username: 'Alice_Login', email: 'alice.login@example.com' });
    for (const name of [
      'Alice_Login',
      'alice_login',
      'ALICE_LOGIN',
      ' alice_login ',
      'Alice.Login@Example.com',
    ]) {
      const res = await login({ username: name, password: u.password });
      expect(res.statusCode, name).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: true, message: '登录成功' });
      expect(body.data.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
      expect(body.data.user).toMatchObject({
        id: u.id,
        username: 'Alice_Login',
        email: 'alice.login@example.com',
        role: 'user',
        avatar: null,
        disabled: false,
      });
      expect(body.data.user.last_login_at).toEqual(expect.any(String));
      expect(JSON.stringify(body)).not.toMatch(/password_hash|argon2/);
      // Without remember-me a session lasts 12 hours.
      expect(Math.abs(msUntil(body.data.expires_at) - 12 * HOUR)).toBeLessThan(60_000);
    }
  });

  it('keeps a remember-me session for 30 days', async () => {
    const u = await t.createUser();
    const res = await login({ username: u.username, password: u.password, remember: true });
    expect(res.statusCode).toBe(200);
    expect(Math.abs(msUntil(res.json().data.expires_at) - 30 * 24 * HOUR)).toBeLessThan(60_000);
    const row = (await sessionsOf(u.id)).find((s) => s.remember === 1);
    expect(row).toBeDefined();
  });

  it('stores tokens only as SHA-256 hashes', async () => {
    const u = await t.createUser();
    const token = await t.login(u.username, u.password);
    const rows = await sessionsOf(u.id);
    expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    // and the password only as an argon2id hash
    const user = await userRow(u.id);
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect(user.password_hash).not.toContain(u.password);
  });

  it('answers an unknown account and a wrong password identically', async () => {
    const u = await t.createUser();
    const wrong = await login({ username: u.username, password: 'not-the-password' }, '10.1.0.1');
    const unknown = await login({ username: 'nobody_here', password: 'not-the-password' }, '10.1.0.1');
    expectFailure(wrong, 401, '用户名或密码错误');
    expectFailure(unknown, 401, '用户名或密码错误');
    expect(unknown.body).toBe(wrong.body);
  });

  it('refuses a disabled account, without telling a wrong password apart from an unknown one', async () => {
    const u = await t.createUser();
    await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${u.id}`,
      token: await t.adminToken(),
      body: { disabled: true },
    });
    expectFailure(
      await login({ username: u.username, password: u.password }, '10.1.0.2'),
      403,
      m.accountDisabled,
    );
    expectFailure(
      await login({ username: u.username, password: 'wrong-password' }, '10.1.0.2'),
      401,
      m.badCredentials,
    );
  });

  it('validates the form with the spec messages', async () => {
    let body = expectFailure(await login({ password: 'x' }), 400, '请输入用户名或邮箱');
    expect(body.errors).toEqual({ username: '请输入用户名或邮箱' });
    body = expectFailure(await login({ username: 'admin', password: '' }), 400, '请输入密码');
    expect(body.errors).toEqual({ password: '请输入密码' });
    body = expectFailure(await login({ username: '   ' }), 400);
    expect(body.errors).toEqual({ username: '请输入用户名或邮箱', password: '请输入密码' });
    body = expectFailure(await login({ username: 'admin', password: 'x', remember: 'yes' }), 400);
    expect(Object.keys(body.errors ?? {})).toEqual(['remember']);
  });

  it('records successes and failures in the audit log with actor, target, ip and time', async () => {
    const u = await t.createUser();
    await login({ username: u.username, password: 'bad-password' }, '10.1.0.3');
    await login({ username: 'no_such_person', password: 'bad-password' }, '10.1.0.3');
    await login({ username: u.username, password: u.password }, '10.1.0.4');

    const failures = (await auditEntries(t, { action: 'auth.login_failed' })).filter(
      (e) => e.ip === '10.1.0.3',
    );
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({ actor_id: null, target_type: 'user', target_id: String(u.id) });
    expect(failures[1]).toMatchObject({ actor_id: null, target_id: null });
    expect(JSON.parse(failures[1]!.detail!)).toEqual({ login: 'no_such_person' });

    const [success] = (await auditEntries(t, { action: 'auth.login', targetId: u.id })).filter(
      (e) => e.ip === '10.1.0.4',
    );
    expect(success).toMatchObject({ actor_id: u.id, actor_name: u.username, target_type: 'user' });
    expect(Date.now() - Date.parse(success!.created_at)).toBeLessThan(60_000);
    // No secret ever reaches the audit log.
    const all = JSON.stringify(await auditEntries(t));
    expect(all).not.toContain(u.password);
    expect(all).not.toContain('bad-password');
  });
});

describe('lock-outs', () => {
  const adminUsers = async (search: string) =>
    (
      await t.request({
        url: `/api/admin/users?search=${encodeURIComponent(search)}`,
        token: await t.adminToken(),
      })
    ).json().data.users as Array<{ id: number; locked_until: string | null }>;

  it('warns of the attempts left, locks with the wait, and an admin sees and lifts the lock (audited)', async () => {
    const u = await t.createUser();
    const ip = '10.1.9.1';
    const wrong = () => login({ username: u.username, password: 'not-the-password' }, ip);
    const said: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await wrong();
      expect(res.statusCode).toBe(401);
      said.push(res.json().message);
    }
    expect(said).toEqual([
      m.badCredentials,
      m.badCredentials,
      format(m.badCredentialsLeft, { n: 2, minutes: 15 }),
      format(m.badCredentialsLeft, { n: 1, minutes: 15 }),
      format(m.badCredentialsLocked, { minutes: 15 }),
    ]);
    expect(said[2]).toBe('用户名或密码错误，再错 2 次将暂停登录 15 分钟');
    // Even the right password is refused from that address now.
    expectFailure(await login({ username: u.username, password: u.password }, ip), 429, m.loginThrottled);
    // An unknown name gets the same warnings: they tell no account apart.
    const ghost: string[] = [];
    for (let i = 0; i < 3; i++)
      ghost.push((await login({ username: 'nobody_locked', password: 'x-wrong-pass' }, ip)).json().message);
    expect(ghost[2]).toBe(said[2]);

    const [listed] = await adminUsers(u.username);
    expect(msUntil(listed!.locked_until!)).toBeGreaterThan(10 * 60_000);
    expect(msUntil(listed!.locked_until!)).toBeLessThanOrEqual(15 * 60_000);

    // Only an admin may unlock.
    const other = await t.createUser();
    expectFailure(
      await t.request({ method: 'POST', url: `/api/admin/users/${u.id}/unlock`, token: other.token }),
      403,
    );
    const unlocked = await t.request({
      method: 'POST',
      url: `/api/admin/users/${u.id}/unlock`,
      token: await t.adminToken(),
    });
    expect(unlocked.statusCode).toBe(200);
    expect(unlocked.json().message).toBe(m.userUnlocked);
    expect((await adminUsers(u.username))[0]!.locked_until).toBeNull();
    // The owner signs in from the same address at once, with the same password.
    expect((await login({ username: u.username, password: u.password }, ip)).statusCode).toBe(200);
    const [entry] = await auditEntries(t, { action: 'user.unlock', targetId: u.id });
    expect(entry).toMatchObject({ actor_name: 'admin', target_type: 'user' });
    // Unlocking an account that is not locked says so; a missing one is 404.
    expectFailure(
      await t.request({
        method: 'POST',
        url: `/api/admin/users/${u.id}/unlock`,
        token: await t.adminToken(),
      }),
      409,
      m.userNotLocked,
    );
    expectFailure(
      await t.request({ method: 'POST', url: '/api/admin/users/999999/unlock', token: await t.adminToken() }),
      404,
      m.userNotFound,
    );
  });
});

describe('bearer tokens', () => {
  let token: string;
  beforeAll(async () => {
    const u = await t.createUser();
    token = await t.login(u.username, u.password);
  });

  it('accepts the token in the Authorization header, with the scheme in any case', async () => {
    expect((await profile(token)).statusCode).toBe(200);
    const res = await t.request({ url: '/api/auth/profile', headers: { authorization: `bearer ${token}` } });
    expect(res.statusCode).toBe(200);
  });

  it('never accepts a token from the query string or a cookie', async () => {
    for (const url of [
      `/api/auth/profile?token=${token}`,
      `/api/auth/profile?access_token=${token}`,
      `/api/auth/profile?authorization=Bearer%20${token}`,
    ]) {
      expectFailure(await t.request({ url }), 401, messages.common.unauthenticated);
    }
    for (const cookie of [`token=${token}`, `authorization=Bearer ${token}`, `session=${token}`]) {
      expectFailure(await t.request({ url: '/api/auth/profile', headers: { cookie } }), 401);
    }
  });

  it('refuses other schemes and malformed or unknown tokens', async () => {
    // No bearer token at all: never signed in.
    for (const authorization of [token, `Basic ${token}`, `Token ${token}`, 'Bearer ']) {
      expectFailure(
        await t.request({ url: '/api/auth/profile', headers: { authorization } }),
        401,
        messages.common.unauthenticated,
      );
    }
    // A bearer token that doesn't (or no longer) work: the session is over.
    for (const authorization of ['Bearer short', `Bearer ${'x'.repeat(43)}`]) {
      expectFailure(
        await t.request({ url: '/api/auth/profile', headers: { authorization } }),
        401,
        messages.common.sessionExpired,
      );
    }
  });

  it('ignores a stale token on public routes, so signing in again still works', async () => {
    const u = await t.createUser();
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      headers: { authorization: `Bearer ${'y'.repeat(43)}` },
      body: { username: u.username, password: u.password },
    });
    expect(res.statusCode).toBe(200);
  });

  it('stops accepting a session once it has expired', async () => {
    const u = await t.createUser();
    const expiring = await t.login(u.username, u.password);
    expect((await profile(expiring)).statusCode).toBe(200);
    await t.ctx.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', createHash('sha256').update(expiring).digest('hex'))
      .execute();
    expectFailure(await profile(expiring), 401, messages.common.sessionExpired);
  });

  it('clears expired sessions from the table at the next sign-in', async () => {
    const u = await t.createUser();
    const stale = await t.login(u.username, u.password);
    const staleHash = createHash('sha256').update(stale).digest('hex');
    await t.ctx.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', staleHash)
      .execute();
    await t.login(u.username, u.password);
    const left = await t.ctx.db
      .selectFrom('sessions')
      .select('id')
      .where('token_hash', '=', staleHash)
      .execute();
    expect(left).toHaveLength(0);
    expect((await profile(u.token)).statusCode).toBe(200);
  });
});

describe('logout', () => {
  it('ends this session only, and records it', async () => {
    const u = await t.createUser();
    const a = await t.login(u.username, u.password);
    const b = await t.login(u.username, u.password);
    const res = await t.request({ method: 'POST', url: '/api/auth/logout', token: a });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: '登出成功' });
    expectFailure(await profile(a), 401);
    expect((await profile(b)).statusCode).toBe(200);
    expect(await auditEntries(t, { action: 'auth.logout', targetId: u.id })).toHaveLength(1);
  });

  it('needs a session', async () => {
    expectFailure(await t.request({ method: 'POST', url: '/api/auth/logout' }), 401);
  });
});

describe('refresh', () => {
  it('rotates the token: the new one works and the old one stops at once', async () => {
    const u = await t.createUser();
    const old = await t.login(u.username, u.password);
    const before = (await sessionsOf(u.id)).length;
    const res = await t.request({ method: 'POST', url: '/api/auth/refresh', token: old });
    expect(res.statusCode).toBe(200);
    const { token, expires_at, user } = res.json().data;
    expect(token).not.toBe(old);
    expect(user).toMatchObject({ id: u.id, username: u.username });
    expect(Math.abs(msUntil(expires_at) - 12 * HOUR)).toBeLessThan(60_000);
    expectFailure(await profile(old), 401);
    expect((await profile(token)).statusCode).toBe(200);
    expect(await sessionsOf(u.id)).toHaveLength(before);
  });

  it('keeps remember-me sessions long', async () => {
    const u = await t.createUser();
    const old = await t.login(u.username, u.password, true);
    const res = await t.request({ method: 'POST', url: '/api/auth/refresh', token: old });
    expect(Math.abs(msUntil(res.json().data.expires_at) - 30 * 24 * HOUR)).toBeLessThan(60_000);
  });

  it('lets only one of two simultaneous refreshes of the same token win', async () => {
    const u = await t.createUser();
    const old = await t.login(u.username, u.password);
    const before = (await sessionsOf(u.id)).length;
    const results = await Promise.all(
      [1, 2, 3].map(() => t.request({ method: 'POST', url: '/api/auth/refresh', token: old })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 401, 401]);
    expect(await sessionsOf(u.id)).toHaveLength(before);
  });

  it('needs a live session', async () => {
    expectFailure(await t.request({ method: 'POST', url: '/api/auth/refresh' }), 401);
  });

  it('never carries a sign-in past its own lifetime: a week, or 30 days remembered', async () => {
    const u = await t.createUser();
    const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
    /** Moves a session's sign-in back in time, as if it had been refreshed since. */
    const signedInAgo = (token: string, ms: number) =>
      t.ctx.db
        .updateTable('sessions')
        .set({ signed_in_at: new Date(Date.now() - ms).toISOString() })
        .where('token_hash', '=', hashOf(token))
        .execute();
    const refresh = async (token: string) => {
      const res = await t.request({ method: 'POST', url: '/api/auth/refresh', token });
      expect(res.statusCode).toBe(200);
      return res.json().data as { token: string; expires_at: string };
    };
    for (const [remember, lifetime] of [
      [false, 7 * 24 * HOUR],
      [true, 30 * 24 * HOUR],
    ] as const) {
      const first = await t.login(u.username, u.password, remember);
      const signedIn = (await sessionsOf(u.id)).find((s) => s.token_hash === hashOf(first))!;
      expect(signedIn.signed_in_at).toBe(signedIn.created_at);
      // Two hours of the sign-in left: a refresh gives those, not a fresh 12 hours or 30 days.
      await signedInAgo(first, lifetime - 2 * HOUR);
      const second = await refresh(first);
      expect(Math.abs(msUntil(second.expires_at) - 2 * HOUR)).toBeLessThan(60_000);
      const rows = await sessionsOf(u.id);
      const carried = rows.find((s) => s.token_hash === hashOf(second.token))!;
      expect(Date.parse(carried.signed_in_at!)).toBe(Date.parse(second.expires_at) - lifetime);
      // Refreshing again moves the end no further.
      const third = await refresh(second.token);
      expect(third.expires_at).toBe(second.expires_at);
      // Once that end has passed, the token is over, whatever refreshed it.
      await t.ctx.db
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('token_hash', '=', hashOf(third.token))
        .execute();
      expectFailure(
        await t.request({ method: 'POST', url: '/api/auth/refresh', token: third.token }),
        401,
        messages.common.sessionExpired,
      );
    }
  });

  it('counts a session made before sign-ins were recorded from its own start', async () => {
    const u = await t.createUser();
    const old = await t.login(u.username, u.password);
    const hash = createHash('sha256').update(old).digest('hex');
    // A row an instance older than migration 042 wrote: no sign-in time, made six days ago.
    await t.ctx.db
      .updateTable('sessions')
      .set({ signed_in_at: null, created_at: new Date(Date.now() - 6 * 24 * HOUR).toISOString() })
      .where('token_hash', '=', hash)
      .execute();
    const res = await t.request({ method: 'POST', url: '/api/auth/refresh', token: old });
    expect(res.statusCode).toBe(200);
    expect(Math.abs(msUntil(res.json().data.expires_at) - 12 * HOUR)).toBeLessThan(60_000);
    const again = await t.ctx.db
      .selectFrom('sessions')
      .select('signed_in_at')
      .where('user_id', '=', u.id)
      .where('token_hash', '=', createHash('sha256').update(res.json().data.token).digest('hex'))
      .executeTakeFirstOrThrow();
    expect(Date.now() - Date.parse(again.signed_in_at!)).toBeGreaterThan(6 * 24 * HOUR - 60_000);
  });
});

describe('own profile', () => {
  it('shows the signed-in user', async () => {
    const u = await t.createUser({ email: 'show.me@example.com' });
    const res = await profile(u.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user).toMatchObject({
      id: u.id,
      username: u.username,
      email: 'show.me@example.com',
    });
    // Nothing of the password but whether it is still the generated one (password_initial).
    expect(res.body.replace('"password_initial":', '')).not.toMatch(/password|\$argon2/);
  });

  it('changes email and avatar, and clears them with an empty string', async () => {
    const u = await t.createUser();
    const avatar = `data:image/png;base64,${TINY_PNG}`;
    let res = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: u.token,
      body: { email: ' New.Mail@Example.com ', avatar },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: m.profileUpdated });
    expect(res.json().data.user).toMatchObject({ email: 'new.mail@example.com', avatar });
    expect(await userRow(u.id)).toMatchObject({ email: 'new.mail@example.com', avatar });
    expect(await auditEntries(t, { action: 'user.email_change', targetId: u.id })).toHaveLength(1);

    res = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: u.token,
      body: { email: '', avatar: '' },
    });
    expect(res.json().data.user).toMatchObject({ email: null, avatar: null });
  });

  it('refuses an email that another account uses, and bad emails or avatars', async () => {
    await t.createUser({ email: 'taken@example.com' });
    const u = await t.createUser();
    const put = (body: unknown) =>
      t.request({ method: 'PUT', url: '/api/auth/profile', token: u.token, body });
    let body = expectFailure(await put({ email: 'TAKEN@example.com' }), 409, m.emailTaken);
    expect(body.errors).toEqual({ email: m.emailTaken });
    body = expectFailure(await put({ email: 'not-an-email' }), 400, m.emailInvalid);
    expect(body.errors).toEqual({ email: m.emailInvalid });
    for (const [avatar, message] of [
      ['javascript:alert(1)', m.avatarInvalid],
      ['data:text/html;base64,PGI+', m.avatarInvalid],
      ['data:image/svg+xml;base64,PHN2Zz4=', m.avatarInvalid],
      ['data:image/png;base64,iVBOR\u200bw0KGgo=', m.avatarInvalid],
      // A remote picture would fire in every viewer's browser (a tracking pixel in the admin's).
      ['https://tracker.example/pixel.gif?u=1', m.avatarRemote],
      ['http://127.0.0.1:9/p.png', m.avatarRemote],
      ['HTTPS://X.TEST/a.png', m.avatarRemote],
      ['//tracker.example/pixel.gif', m.avatarInvalid],
      [`data:image/png;base64,${'A'.repeat(300_000)}`, m.avatarTooLarge],
      // The bytes must be the image the URL names, whole, of a size a page can draw.
      ['data:image/png;base64,iVBORw0KGgo=', m.avatarUnreadable],
      [
        `data:image/png;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')}`,
        m.avatarUnreadable,
      ],
      [`data:image/jpeg;base64,${TINY_PNG}`, m.avatarUnreadable],
      [`data:image/png;base64,${claiming(32_000, 32_000)}`, '头像图片的宽和高都不能超过 4096 像素'],
      [`data:image/png;base64,${claiming(5_000, 2)}`, '头像图片的宽和高都不能超过 4096 像素'],
    ] as const) {
      body = expectFailure(await put({ avatar }), 400, message);
      expect(body.errors).toEqual({ avatar: message });
    }
    expect(await userRow(u.id)).toMatchObject({ email: null, avatar: null });
  });

  it('no longer shows a remote avatar saved before avatars had to be images of their own', async () => {
    const u = await t.createUser();
    await t.ctx.db
      .updateTable('users')
      .set({ avatar: 'https://tracker.example/pixel.gif?u=1' })
      .where('id', '=', u.id)
      .execute();
    const me = await profile(u.token);
    expect(me.json().data.user.avatar).toBeNull();
    const list = await t.request({
      url: `/api/admin/users?search=${u.username}`,
      token: await t.adminToken(),
    });
    expect(list.json().data.users[0].avatar).toBeNull();
    expect(list.body).not.toContain('tracker.example');
    // A data: image is shown as saved.
    const picture = `data:image/png;base64,${TINY_PNG}`;
    expect(
      (
        await t.request({
          method: 'PUT',
          url: '/api/auth/profile',
          token: u.token,
          body: { avatar: picture },
        })
      ).statusCode,
    ).toBe(200);
    expect((await profile(u.token)).json().data.user.avatar).toBe(picture);
  });

  it('never changes the role, username or anything else: extra fields are refused with 400', async () => {
    const u = await t.createUser();
    for (const extra of [
      { role: 'admin' },
      { username: 'renamed' },
      { disabled: false },
      { password_hash: 'x' },
    ]) {
      const field = Object.keys(extra)[0]!;
      const body = expectFailure(
        await t.request({
          method: 'PUT',
          url: '/api/auth/profile',
          token: u.token,
          body: { email: 'x@y.zz', ...extra },
        }),
        400,
      );
      expect(body.errors?.[field]).toContain(field);
    }
    const row = await userRow(u.id);
    expect(row).toMatchObject({ role: 'user', username: u.username, email: null });
    const res = await t.request({ url: '/api/admin/users', token: u.token });
    expectFailure(res, 403);
  });

  it('changes the password with the current one, signing out the other sessions only', async () => {
    const u = await t.createUser();
    const other = await t.login(u.username, u.password);
    const res = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: u.token,
      body: { current_password: u.password, new_password: 'a brand new password' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(m.passwordChanged);
    expect((await profile(u.token)).statusCode).toBe(200);
    expectFailure(await profile(other), 401);
    expectFailure(await login({ username: u.username, password: u.password }, '10.1.1.1'), 401);
    expect((await login({ username: u.username, password: 'a brand new password' })).statusCode).toBe(200);
    const [entry] = await auditEntries(t, { action: 'user.password_changed', targetId: u.id });
    expect(entry).toMatchObject({ actor_id: u.id, ip: '127.0.0.1' });
  });

  it('needs the right current password and a long enough new one', async () => {
    const u = await t.createUser();
    const put = (body: unknown) =>
      t.request({ method: 'PUT', url: '/api/auth/profile', token: u.token, body });
    let body = expectFailure(
      await put({ new_password: 'long enough password' }),
      400,
      m.currentPasswordRequired,
    );
    expect(body.errors).toEqual({ current_password: m.currentPasswordRequired });
    // A wrong current password is a 400, not a 401: the web app signs out on 401.
    body = expectFailure(
      await put({ current_password: 'wrong-password', new_password: 'long enough password' }),
      400,
      m.currentPasswordWrong,
    );
    expect(body.errors).toEqual({ current_password: m.currentPasswordWrong });
    // The generated password kept as "new" would clear password_initial and stay what the admin saw.
    body = expectFailure(
      await put({ current_password: u.password, new_password: u.password }),
      400,
      m.newPasswordSame,
    );
    expect(body.errors).toEqual({ new_password: m.newPasswordSame });
    const profile = await t.request({ url: '/api/auth/profile', token: u.token });
    expect(profile.json().data.user.password_initial).toBe(true);
    body = expectFailure(
      await put({ current_password: u.password, new_password: 'short' }),
      400,
      '新密码至少8个字符',
    );
    expect(body.errors).toEqual({ new_password: '新密码至少8个字符' });
    expectFailure(
      await put({ current_password: u.password, new_password: 'x'.repeat(129) }),
      400,
      m.newPasswordTooLong,
    );
    expect((await login({ username: u.username, password: u.password })).statusCode).toBe(200);
    expect(await auditEntries(t, { action: 'user.password_changed', targetId: u.id })).toHaveLength(0);
  });

  it('refuses common and guessable new passwords with the reason, changing nothing', async () => {
    const u = await t.createUser({ username: 'weakling', email: 'wei.ling@example.com' });
    const other = await t.login(u.username, u.password);
    const put = (new_password: string) =>
      t.request({
        method: 'PUT',
        url: '/api/auth/profile',
        token: u.token,
        body: { current_password: u.password, new_password },
      });
    for (const [password, reason] of [
      ['12345678', m.passwordTooCommon],
      ['password', m.passwordTooCommon],
      ['woaini1314', m.passwordTooCommon],
      ['5201314520', m.passwordTooCommon],
      ['qq123456', m.passwordTooCommon],
      ['1qaz2wsx', m.passwordTooCommon],
      ['weakling2024', m.passwordHasUsername],
      ['WEAKLING-and-more-words', m.passwordHasUsername],
      ['wei.ling1990', m.passwordHasUsername],
      ['aaaaaaaaaa', m.passwordRepetitive],
      ['abcdefghij', m.passwordRepetitive],
      ['xyzxyzxyzxyz', m.passwordRepetitive],
    ] as const) {
      const body = expectFailure(await put(password), 400, reason);
      expect(body.errors, password).toEqual({ new_password: reason });
    }
    // Nothing changed: the old password and the other session still work, nothing audited.
    expect((await profile(other)).statusCode).toBe(200);
    expect((await login({ username: u.username, password: u.password })).statusCode).toBe(200);
    expect(await auditEntries(t, { action: 'user.password_changed', targetId: u.id })).toHaveLength(0);
    // A password that is hard to guess is taken.
    expect((await put('冬天的雪落在旧城墙上')).statusCode).toBe(200);
  });

  it('stops a stolen session from guessing the current password', async () => {
    const u = await t.createUser();
    const put = (current_password: string) =>
      t.request({
        method: 'PUT',
        url: '/api/auth/profile',
        token: u.token,
        body: { current_password, new_password: 'long enough password' },
      });
    for (let i = 0; i < 5; i++) expectFailure(await put(`guess-${i}`), 400, m.currentPasswordWrong);
    const res = await put(u.password);
    expectFailure(res, 429, m.currentPasswordThrottled);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('register (admin only)', () => {
  const register = async (body: unknown, token?: string) =>
    t.request({ method: 'POST', url: '/api/auth/register', token: token ?? (await t.adminToken()), body });

  it('creates an account with a generated password shown once', async () => {
    const res = await register({ username: 'new_member', email: 'Member@Example.com' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ success: true, message: '注册成功！请保存生成的密码' });
    expect(body.data.user).toMatchObject({
      username: 'new_member',
      email: 'member@example.com',
      role: 'user',
      disabled: false,
    });
    const { password } = body.data;
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(password).toMatch(/^[A-Za-z0-9]+$/);
    // The password works, and is never shown again: no other answer about the user contains it.
    expect((await login({ username: 'new_member', password })).statusCode).toBe(200);
    const list = await t.request({ url: '/api/admin/users?search=new_member', token: await t.adminToken() });
    expect(list.body).not.toContain(password);
    const row = await userRow(body.data.user.id);
    expect(row.password_hash).not.toContain(password);
  });

  it('generates a different strong password every time', async () => {
    const passwords = new Set<string>();
    for (let i = 0; i < 3; i++)
      passwords.add((await register({ username: `strong_pw_${i}` })).json().data.password);
    expect(passwords.size).toBe(3);
  });

  it('lets admins create admins', async () => {
    const res = await register({ username: 'second_admin', role: 'admin' });
    expect(res.json().data.user.role).toBe('admin');
    const token = await t.login('second_admin', res.json().data.password);
    expect((await t.request({ url: '/api/admin/users', token })).statusCode).toBe(200);
  });

  it('accepts Chinese usernames', async () => {
    const res = await register({ username: '张三丰' });
    expect(res.statusCode).toBe(201);
    expect((await login({ username: '张三丰', password: res.json().data.password })).statusCode).toBe(200);
  });

  it('validates the username with the spec messages', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, '请输入用户名'],
      [{ username: '' }, '请输入用户名'],
      [{ username: '   ' }, '请输入用户名'],
      [{ username: 'ab' }, '用户名至少3个字符'],
      [{ username: ' ab ' }, '用户名至少3个字符'],
      [{ username: 'x'.repeat(33) }, m.usernameTooLong],
      [{ username: 'has space' }, m.usernameInvalid],
      [{ username: 'emoji😀x' }, m.usernameInvalid],
      [{ username: 'with@at' }, m.usernameInvalid],
      [{ username: 'nul\u0000byte' }, m.usernameInvalid],
      [{ username: 'admin\u200b' }, m.usernameInvalid],
      // Letters and marks that draw nothing: "admin" twice in the users list.
      [{ username: 'admin\u3164' }, m.usernameInvisible],
      [{ username: 'ad\u034fmin' }, m.usernameInvisible],
      [{ username: 'admin\u115f' }, m.usernameInvisible],
      [{ username: 123 }, '请输入用户名'],
    ];
    for (const [body, message] of cases) {
      const res = expectFailure(await register(body), 400, message);
      expect(res.errors).toEqual({ username: message });
    }
    expectFailure(await register({ username: 'valid_name', email: 'nope' }), 400, m.emailInvalid);
    expectFailure(await register({ username: 'valid_name', role: 'root' }), 400, m.roleInvalid);
    // The password is generated: one sent along would be silently dropped, so it is refused.
    const extra = expectFailure(await register({ username: 'valid_name', password: 'mine12345' }), 400);
    expect(extra.errors).toEqual({ password: '不支持的字段：password' });
    expect((await login({ username: 'valid_name', password: 'mine12345' })).statusCode).toBe(401);
  });

  it('refuses a username taken in any letter case, and an email in use, with 409', async () => {
    await register({ username: 'TakenName', email: 'used@example.com' });
    let body = expectFailure(await register({ username: 'takenname' }), 409, m.usernameTaken);
    expect(body.errors).toEqual({ username: m.usernameTaken });
    body = expectFailure(
      await register({ username: 'fresh_name', email: 'USED@example.com' }),
      409,
      m.emailTaken,
    );
    expect(body.errors).toEqual({ email: m.emailTaken });
  });

  it('gives one 201 and 409s when the same name is registered at the same time', async () => {
    const token = await t.adminToken();
    const results = await Promise.all([1, 2, 3].map(() => register({ username: 'race_name' }, token)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expectFailure(r, 409, m.usernameTaken);
  });

  it('is for administrators only', async () => {
    const u = await t.createUser();
    expectFailure(await register({ username: 'by_a_user' }, u.token), 403, messages.common.adminOnly);
    expectFailure(
      await t.request({ method: 'POST', url: '/api/auth/register', body: { username: 'anon_made' } }),
      401,
    );
    expect(await t.ctx.services.accounts.userByUsername('by_a_user')).toBeUndefined();
    expect(await t.ctx.services.accounts.userByUsername('anon_made')).toBeUndefined();
  });

  it('records the creation with the admin as actor', async () => {
    const res = await register({ username: 'audited_one', role: 'admin' });
    const id = res.json().data.user.id;
    const [entry] = await auditEntries(t, { action: 'user.create', targetId: id });
    expect(entry).toMatchObject({ actor_name: 'admin', target_type: 'user', ip: '127.0.0.1' });
    expect(JSON.parse(entry!.detail!)).toEqual({ username: 'audited_one', role: 'admin' });
  });
});

describe('first start', () => {
  it('created the admin account with ADMIN_PASSWORD, once', async () => {
    expect((await login({ username: 'admin', password: ADMIN_PASSWORD })).statusCode).toBe(200);
    expect(await t.ctx.services.accounts.ensureFirstAdmin('another-password')).toEqual({
      created: false,
      generated: false,
    });
    expect(await auditEntries(t, { action: 'user.bootstrap_admin' })).toHaveLength(1);
  });

  it('marks a generated password as initial until the account chooses its own', async () => {
    // ADMIN_PASSWORD is the operator's choice: not initial.
    const admin = await login({ username: 'admin', password: ADMIN_PASSWORD });
    expect(admin.json().data.user.password_initial).toBe(false);
    // 新建用户 generates one: initial, in the answer and at every sign-in until it is changed.
    const created = await t.request({
      method: 'POST',
      url: '/api/auth/register',
      token: await t.adminToken(),
      body: { username: 'initial_one', role: 'user' },
    });
    expect(created.json().data.user.password_initial).toBe(true);
    const password = created.json().data.password as string;
    const first = await login({ username: 'initial_one', password });
    expect(first.json().data.user.password_initial).toBe(true);
    const token = first.json().data.token as string;
    const profile = async (bearer: string) =>
      (await t.request({ url: '/api/auth/profile', token: bearer })).json().data.user.password_initial;
    expect(await profile(token)).toBe(true);
    // Other changes of the profile leave it initial; a new password of its own ends it.
    const mail = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token,
      body: { email_notifications: false },
    });
    expect(mail.json().data.user.password_initial).toBe(true);
    const changed = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token,
      body: { current_password: password, new_password: 'my-own-lantern-hall-7' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data.user.password_initial).toBe(false);
    expect(await profile(token)).toBe(false);
    // An administrator's 重置密码 generates one again.
    const reset = await t.request({
      method: 'POST',
      url: `/api/admin/users/${created.json().data.user.id}/reset-password`,
      token: await t.adminToken(),
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const again = await login({ username: 'initial_one', password: reset.json().data.password });
    expect(again.json().data.user.password_initial).toBe(true);
  });

  it('marks the first admin’s generated password as initial', async () => {
    const { database, drop } = await freshDatabase();
    const dataDir = tempDir();
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: path.join(dataDir, 'no-web') },
      database.kind === 'postgres' ? { database } : {},
    );
    const built = await buildApp(config, { logger: false });
    try {
      const made = await built.ctx.services.accounts.ensureFirstAdmin();
      expect(made).toMatchObject({ created: true, generated: true });
      const res = await built.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'admin', password: made.password },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.user.password_initial).toBe(true);
    } finally {
      await built.app.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a weak ADMIN_PASSWORD with the strength rule’s reason, creating nothing', async () => {
    const { database, drop } = await freshDatabase();
    const dataDir = tempDir();
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: path.join(dataDir, 'no-web') },
      database.kind === 'postgres' ? { database } : {},
    );
    const built = await buildApp(config, { logger: false });
    try {
      const accounts = built.ctx.services.accounts;
      for (const [weak, reason] of [
        ['password', m.passwordTooCommon],
        ['admin-password-123', m.passwordHasUsername],
        ['qwertyuiop', m.passwordTooCommon],
        ['woaini1314', m.passwordTooCommon],
      ] as const) {
        await expect(accounts.ensureFirstAdmin(weak)).rejects.toMatchObject({
          kind: 'invalid',
          message: format(m.adminPasswordWeak, { reason }),
        });
      }
      expect(await built.ctx.db.selectFrom('users').selectAll().execute()).toEqual([]);
      expect(await built.ctx.db.selectFrom('audit_logs').selectAll().execute()).toEqual([]);
      // A strong one, or none (a generated one), creates the account.
      expect(await accounts.ensureFirstAdmin('hall-keeper-lantern-42')).toMatchObject({ created: true });
    } finally {
      await built.app.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  /** The server's first start (src/main.ts, a child process on an empty SQLite data folder), its console gathered. */
  function firstStart(dataDir: string, adminPassword: string) {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', path.join(import.meta.dirname, '../src/main.ts')],
      {
        env: {
          ...process.env,
          NODE_ENV: 'test',
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          LOG_LEVEL: 'silent',
          PORT: '0',
          SITES_PORT: '0',
          HOST: '127.0.0.1',
          ADMIN_PASSWORD: adminPassword,
          RENDER_WORKER: 'off',
          WEB_DIST: path.join(dataDir, 'no-web'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    return { child, output: () => output };
  }

  it('stops the server at first start with a weak ADMIN_PASSWORD, saying why', async () => {
    const dataDir = tempDir();
    try {
      const { child, output } = firstStart(dataDir, 'password');
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, output()).toBe(1);
      expect(output()).toContain(format(m.adminPasswordWeak, { reason: m.passwordTooCommon }));
      expect(output()).toContain('ADMIN_PASSWORD is too weak');
      expect(output()).not.toContain('已创建管理员账号');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('says at first start that the admin signs in with the ADMIN_PASSWORD set, not that it was shown once', async () => {
    const dataDir = tempDir();
    const { child, output } = firstStart(dataDir, 'Hall-Keeper-Strong-2026!');
    try {
      await expect.poll(output, { timeout: 120_000 }).toMatch(/={60}\n\n$/);
      expect(output()).toContain('已创建管理员账号');
      expect(output()).toContain('sign in with the ADMIN_PASSWORD you set');
      expect(output()).not.toContain('shown only once');
      expect(output()).not.toContain('Hall-Keeper-Strong-2026!');
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('creates it once when several instances start together on an empty database', async () => {
    const { database, drop } = await freshDatabase();
    const dataDir = tempDir();
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: path.join(dataDir, 'no-web') },
      database.kind === 'postgres' ? { database } : {},
    );
    const instances = [await buildApp(config, { logger: false }), await buildApp(config, { logger: false })];
    try {
      // As main.ts does on each instance's start, at the same moment: none fails, one creates.
      const results = await Promise.all(
        instances.map((i) => i.ctx.services.accounts.ensureFirstAdmin('started-together')),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const res = await instances[1]!.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'admin', password: 'started-together' },
      });
      expect(res.statusCode).toBe(200);
    } finally {
      for (const i of instances) await i.app.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('issues sessions that the access hook accepts', async () => {
    const u = await t.createUser();
    expect((await profile(await sessionToken(t, u.id))).statusCode).toBe(200);
  });
});
