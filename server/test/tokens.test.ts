/**
 * Personal API tokens (docs/decisions/deploys.md "API tokens"): shown once, stored hashed, listed without
 * the secret, revoked; a token acts as its owner for the owner's own projects only, and is refused
 * on administration, on the token list and on account changes, whatever the owner's role.
 */
import { API_TOKEN_PREFIX, API_TOKENS_MAX, format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/services/sessions.js';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
} from './helpers.js';

const m = messages.deploy;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function newToken(session: string, name = 'CI') {
  const res = await t.request({ method: 'POST', url: '/api/auth/tokens', token: session, body: { name } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; name: string; token: string };
}

describe('API tokens', () => {
  it('shows a prefixed token once, keeps only its hash and lists it without the secret', async () => {
    const user = await t.createUser();
    const created = await newToken(user.token, '  部署机器人 ');
    expect(created.name).toBe('部署机器人');
    expect(created.token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    const row = await t.ctx.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);

    const list = await t.request({ url: '/api/auth/tokens', token: user.token });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.tokens).toEqual([
      {
        id: created.id,
        name: '部署机器人',
        prefix: created.token.slice(0, API_TOKEN_PREFIX.length + 8),
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    expect(list.body).not.toContain(created.token);

    const me = await t.request({ url: '/api/auth/profile', token: created.token });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.user.id).toBe(user.id);
    const after = await t.request({ url: '/api/auth/tokens', token: user.token });
    expect(after.json().data.tokens[0].last_used_at).not.toBeNull();
  });

  it('holds at most 20 tokens per account: the next one is refused with 409', async () => {
    const user = await t.createUser();
    for (let i = 0; i < API_TOKENS_MAX; i++) await newToken(user.token, `令牌 ${i}`);
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/tokens',
      token: user.token,
      body: { name: '多一个' },
    });
    expectFailure(res, 409, format(m.tooManyTokens, { n: API_TOKENS_MAX }));
    const rows = await t.ctx.db
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(API_TOKENS_MAX);
  });

  it('refuses a blank, over-long or look-alike name with a Chinese message and stores nothing', async () => {
    const user = await t.createUser();
    const refusals: Array<[string, string]> = [
      ['', m.tokenNameRequired],
      ['   ', m.tokenNameRequired],
      ['x'.repeat(51), m.tokenNameTooLong],
      ['a\u0000b', m.tokenNameInvalid],
      // Zero-width and bidirectional characters: "CI" and "CI\u200b" look the same in a list.
      ['CI\u200b', m.tokenNameInvalid],
      ['部署\u200d机器人', m.tokenNameInvalid],
      ['\u202ebuild', m.tokenNameInvalid],
      ['tok\u2067en', m.tokenNameInvalid],
      ['tok\u200een', m.tokenNameInvalid],
      ['C\ufeffI', m.tokenNameInvalid],
    ];
    for (const [name, message] of refusals) {
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/tokens',
        token: user.token,
        body: { name },
      });
      const body = expectFailure(res, 400, message);
      expect(body.errors).toEqual({ name: message });
    }
    const rows = await t.ctx.db.selectFrom('api_tokens').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toEqual([]);
  });

  it('acts for its owner on their own projects and deploys only', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const { token } = await newToken(owner.token);
    const up = await uploadProject(t, token, { name: '令牌上传', files: SIMPLE_SITE });
    expect(up.statusCode, up.body).toBe(201);
    const mine = await t.request({ url: '/api/projects/my', token });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data.projects.map((p: { id: number }) => p.id)).toEqual([up.json().data.project.id]);

    const theirs = await uploadProject(t, other.token, { name: '别人的项目', files: SIMPLE_SITE });
    const theirId = theirs.json().data.project.id as number;
    expectFailure(await t.request({ url: `/api/projects/${theirId}`, token }), 404);
    expectFailure(await t.request({ method: 'DELETE', url: `/api/projects/${theirId}`, token }), 404);
  });

  it('is refused on administration, tokens and account changes, even an admin’s', async () => {
    const admin = await t.createUser({ role: 'admin' });
    const user = await t.createUser();
    const { token, id } = await newToken(admin.token);
    const someone = await uploadProject(t, user.token, { name: '用户项目', files: SIMPLE_SITE });
    const refused = [
      { method: 'GET', url: '/api/admin/users' },
      { method: 'GET', url: '/api/admin/projects' },
      { method: 'PATCH', url: `/api/admin/users/${user.id}`, body: { disabled: true } },
      { method: 'POST', url: '/api/auth/register', body: { username: 'via_token', role: 'admin' } },
      { method: 'GET', url: '/api/auth/tokens' },
      { method: 'POST', url: '/api/auth/tokens', body: { name: '再造一个' } },
      { method: 'DELETE', url: `/api/auth/tokens/${id}` },
      { method: 'PUT', url: '/api/auth/profile', body: { email: 'x@example.com' } },
      { method: 'POST', url: '/api/auth/logout' },
      { method: 'POST', url: '/api/auth/refresh' },
    ];
    for (const r of refused) {
      const res = await t.request({ ...r, token });
      expectFailure(res, 403, m.tokenForbidden);
    }
    // As a plain user: another user's project is not found, not administered.
    expectFailure(await t.request({ url: `/api/projects/${someone.json().data.project.id}`, token }), 404);
    // The same admin signed in with a session still administers.
    expect((await t.request({ url: '/api/admin/users', token: admin.token })).statusCode).toBe(200);
    const user2 = await t.ctx.db
      .selectFrom('users')
      .select('disabled')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(user2.disabled).toBe(0);
  });

  it('stops working once revoked; another user cannot revoke it', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    const { token, id } = await newToken(user.token);
    expectFailure(
      await t.request({ method: 'DELETE', url: `/api/auth/tokens/${id}`, token: other.token }),
      404,
      m.tokenNotFound,
    );
    expect((await t.request({ url: '/api/projects/my', token })).statusCode).toBe(200);
    const gone = await t.request({ method: 'DELETE', url: `/api/auth/tokens/${id}`, token: user.token });
    expect(gone.statusCode).toBe(200);
    expectFailure(await t.request({ url: '/api/projects/my', token }), 401, m.tokenInvalid);
    expectFailure(
      await t.request({ method: 'DELETE', url: `/api/auth/tokens/${id}`, token: user.token }),
      404,
    );
    expectFailure(await t.request({ method: 'DELETE', url: '/api/auth/tokens/abc', token: user.token }), 404);
  });

  it('is revoked when the account is disabled, and stays revoked when it is enabled again', async () => {
    const user = await t.createUser();
    const { token } = await newToken(user.token);
    const admin = await t.adminToken();
    const off = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      token: admin,
      body: { disabled: true },
    });
    expect(off.statusCode, off.body).toBe(200);
    expectFailure(await t.request({ url: '/api/projects/my', token }), 401);
    await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      token: admin,
      body: { disabled: false },
    });
    expectFailure(await t.request({ url: '/api/projects/my', token }), 401);
    const rows = await t.ctx.db.selectFrom('api_tokens').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toEqual([]);
  });

  it('ends with the password: a change of one’s own or an admin’s reset revokes every token', async () => {
    const user = await t.createUser();
    const [a, b] = [await newToken(user.token, '一'), await newToken(user.token, '二')];
    const changed = await t.request({
      method: 'PUT',
      url: '/api/auth/profile',
      token: user.token,
      body: { current_password: user.password, new_password: 'a brand new password 7391' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    for (const { token } of [a, b]) {
      expectFailure(await t.request({ url: '/api/projects/my', token }), 401, m.tokenInvalid);
    }
    // The session that changed it stays, and a token made afterwards works.
    const c = await newToken(user.token, '三');
    expect((await t.request({ url: '/api/projects/my', token: c.token })).statusCode).toBe(200);
    const [changedEntry] = await auditEntries(t, { action: 'user.password_changed', targetId: user.id });
    expect(JSON.parse(changedEntry!.detail!)).toEqual({ tokens_revoked: 2 });

    const reset = await t.request({
      method: 'POST',
      url: `/api/admin/users/${user.id}/reset-password`,
      token: await t.adminToken(),
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expectFailure(await t.request({ url: '/api/projects/my', token: c.token }), 401, m.tokenInvalid);
    const rows = await t.ctx.db.selectFrom('api_tokens').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toEqual([]);
    const [resetEntry] = await auditEntries(t, { action: 'user.password_reset', targetId: user.id });
    expect(JSON.parse(resetEntry!.detail!)).toEqual({ tokens_revoked: 1 });
  });

  it('a wrong current password or a weak new one revokes nothing', async () => {
    const user = await t.createUser();
    const { token } = await newToken(user.token);
    for (const body of [
      { current_password: 'not-the-password', new_password: 'a brand new password 7391' },
      { current_password: user.password, new_password: '12345678' },
    ]) {
      expectFailure(
        await t.request({ method: 'PUT', url: '/api/auth/profile', token: user.token, body }),
        400,
      );
    }
    expect((await t.request({ url: '/api/projects/my', token })).statusCode).toBe(200);
  });
});

describe('an account’s API tokens, administered', () => {
  it('lists another account’s tokens (name, prefix, dates, never the secret) and revokes one', async () => {
    const admin = await t.adminToken();
    const user = await t.createUser();
    const keep = await newToken(user.token, '保留');
    const leak = await newToken(user.token, '泄露的');
    await t.request({ url: '/api/projects/my', token: leak.token });

    const list = await t.request({ url: `/api/admin/users/${user.id}/tokens`, token: admin });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.tokens).toEqual([
      {
        id: leak.id,
        name: '泄露的',
        prefix: leak.token.slice(0, 12),
        created_at: expect.any(String),
        last_used_at: expect.any(String),
      },
      {
        id: keep.id,
        name: '保留',
        prefix: keep.token.slice(0, 12),
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    expect(list.body).not.toContain(leak.token);
    expect(list.body).not.toContain('token_hash');

    const gone = await t.request({
      method: 'DELETE',
      url: `/api/admin/users/${user.id}/tokens/${leak.id}`,
      token: admin,
    });
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json().message).toBe(m.tokenRevoked);
    expectFailure(await t.request({ url: '/api/projects/my', token: leak.token }), 401, m.tokenInvalid);
    expect((await t.request({ url: '/api/projects/my', token: keep.token })).statusCode).toBe(200);

    const [entry] = await auditEntries(t, { action: 'token.admin_revoke', targetId: user.id });
    expect(entry!.actor_id).not.toBeNull();
    expect(JSON.parse(entry!.detail!)).toEqual({ token_id: leak.id, name: '泄露的' });
  });

  it('answers 404 for a token of another account, a revoked one, a bad id or an unknown user', async () => {
    const admin = await t.adminToken();
    const [user, other] = [await t.createUser(), await t.createUser()];
    const theirs = await newToken(other.token);
    for (const url of [
      `/api/admin/users/${user.id}/tokens/${theirs.id}`,
      `/api/admin/users/${user.id}/tokens/abc`,
      `/api/admin/users/${user.id}/tokens/0`,
      `/api/admin/users/99999999/tokens/${theirs.id}`,
    ]) {
      expectFailure(await t.request({ method: 'DELETE', url, token: admin }), 404);
    }
    expectFailure(await t.request({ url: '/api/admin/users/99999999/tokens', token: admin }), 404);
    expectFailure(await t.request({ url: '/api/admin/users/abc/tokens', token: admin }), 404);
    // Nothing of the other account's went.
    expect((await t.request({ url: '/api/projects/my', token: theirs.token })).statusCode).toBe(200);
    expect(await auditEntries(t, { action: 'token.admin_revoke', targetId: other.id })).toEqual([]);
  });

  it('is for administrators signed in: a user, or an admin’s own token, is refused', async () => {
    const user = await t.createUser();
    const victim = await t.createUser();
    const { id } = await newToken(victim.token);
    const admin = await t.createUser({ role: 'admin' });
    const adminsToken = await newToken(admin.token);
    for (const token of [user.token, adminsToken.token]) {
      expectFailure(await t.request({ url: `/api/admin/users/${victim.id}/tokens`, token }), 403);
      expectFailure(
        await t.request({ method: 'DELETE', url: `/api/admin/users/${victim.id}/tokens/${id}`, token }),
        403,
      );
    }
    expectFailure(await t.request({ url: `/api/admin/users/${victim.id}/tokens` }), 401);
    const rows = await t.ctx.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('user_id', '=', victim.id)
      .execute();
    expect(rows.map((r) => r.id)).toEqual([id]);
  });
});

describe('made-up tokens', () => {
  it('answers 401 to a made-up token', async () => {
    expectFailure(
      await t.request({ url: '/api/projects/my', token: `${API_TOKEN_PREFIX}${'a'.repeat(43)}` }),
      401,
      m.tokenInvalid,
    );
  });
});
